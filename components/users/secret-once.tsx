'use client';
// A secret the server hands out once (a new token, a new password): shown with a copy
// button until the user closes it; it cannot be shown again.
import { Alert, Button, Code, CopyButton, Group, Text } from '@mantine/core';

export function SecretOnce({ title, secret, onClose, testId }: { title: string; secret: string; onClose: () => void; testId: string }) {
  return (
    <Alert color="teal" title={title} withCloseButton closeButtonLabel="Close" onClose={onClose} data-testid={testId}>
      <Text size="sm" mb={6}>
        Copy it now: it is shown only this once and stored only as a hash.
      </Text>
      <Group gap="xs" wrap="nowrap">
        <Code data-testid={`${testId}-value`} style={{ overflowWrap: 'anywhere' }}>
          {secret}
        </Code>
        <CopyButton value={secret}>
          {({ copied, copy }) => (
            <Button size="xs" variant="light" onClick={copy}>
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Alert>
  );
}
