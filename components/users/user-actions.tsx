'use client';
// One user's actions in the admin's table: change, reset password (the new one shown
// once; the user is signed out everywhere), see and revoke tokens, remove.
import { Button, Group, Modal, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';
import { TokenTable } from './token-table';

type Dialog = 'reset' | 'remove' | 'tokens' | null;

function Confirm({ title, children, action, color, pending, error, onConfirm, onClose, testId }: {
  title: string;
  children: ReactNode;
  action: string;
  color?: string;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
  onClose: () => void;
  testId: string;
}) {
  return (
    <Modal opened onClose={onClose} title={<Text fw={600}>{title}</Text>}>
      <Text size="sm">{children}</Text>
      {Boolean(error) && (
        <Text size="sm" c="red" role="alert" mt="xs">
          {errorInfo(error).message}
        </Text>
      )}
      <Group justify="flex-end" mt="md">
        <Button variant="default" onClick={onClose}>
          Cancel
        </Button>
        <Button color={color} loading={pending} onClick={onConfirm} data-testid={testId}>
          {action}
        </Button>
      </Group>
    </Modal>
  );
}

export function UserActions({ name, self, onEdit, onPassword }: { name: string; self: boolean; onEdit: () => void; onPassword: (password: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<Dialog>(null);
  const done = () => {
    setDialog(null);
    void queryClient.invalidateQueries({ queryKey: trpc.users.pathKey() });
  };
  const reset = useMutation(trpc.users.resetPassword.mutationOptions({ onSuccess: (r) => (done(), onPassword(r.password)) }));
  const remove = useMutation(trpc.users.remove.mutationOptions({ onSuccess: done }));
  const why = self ? 'Another administrator can do this for you' : undefined;
  return (
    <Group gap={6} wrap="nowrap">
      <Button size="compact-xs" variant="light" onClick={onEdit} aria-label={`Change ${name}`}>
        Change
      </Button>
      <Button size="compact-xs" variant="light" onClick={() => setDialog('tokens')} aria-label={`Tokens of ${name}`}>
        Tokens
      </Button>
      <Button size="compact-xs" variant="light" onClick={() => setDialog('reset')} aria-label={`Reset password of ${name}`}>
        Reset password
      </Button>
      <Button size="compact-xs" variant="light" color="red" disabled={self} title={why} onClick={() => setDialog('remove')} aria-label={`Remove ${name}`}>
        Remove
      </Button>
      {dialog === 'reset' && (
        <Confirm title={`Reset the password of ${name}?`} action="Reset password" pending={reset.isPending} error={reset.error} onConfirm={() => reset.mutate({ name })} onClose={() => setDialog(null)} testId="confirm-reset">
          A new password is generated and shown once; {name} is signed out of every browser. API tokens keep working.
        </Confirm>
      )}
      {dialog === 'remove' && (
        <Confirm title={`Remove ${name}?`} action="Remove" color="red" pending={remove.isPending} error={remove.error} onConfirm={() => remove.mutate({ name })} onClose={() => setDialog(null)} testId="confirm-remove">
          Their sessions and API tokens stop working at once. Objects they made stay. This cannot be undone.
        </Confirm>
      )}
      {dialog === 'tokens' && (
        <Modal opened onClose={() => setDialog(null)} size="lg" title={<Text fw={600}>API tokens of {name}</Text>} closeButtonProps={{ 'aria-label': 'Close' }}>
          <TokenTable user={name} />
        </Modal>
      )}
    </Group>
  );
}
