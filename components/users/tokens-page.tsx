'use client';
// Your API tokens: create one (its secret shown once), revoke one, and download a
// kubeconfig for the Kubernetes-compatible API (made with a new token of yours).
import { Button, Group, NumberInput, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';
import { useMe } from '../session/session';
import { SecretOnce } from './secret-once';
import { TokenTable } from './token-table';

/** Hands a text to the browser as a file download. */
function download(fileName: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/yaml' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  URL.revokeObjectURL(url);
}

function CreateToken({ onCreated }: { onCreated: (secret: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [days, setDays] = useState<number | string>('');
  const create = useMutation(
    trpc.users.createToken.mutationOptions({
      onSuccess: (r) => {
        setName('');
        onCreated(r.secret);
        void queryClient.invalidateQueries({ queryKey: trpc.users.pathKey() });
      },
    }),
  );
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate({ name: name.trim(), ttlDays: typeof days === 'number' ? days : undefined });
      }}
    >
      <Group align="flex-end" gap="sm">
        <TextInput label="Token name" description="What uses it, e.g. ci or laptop" value={name} onChange={(e) => setName(e.currentTarget.value)} required maxLength={100} />
        <NumberInput label="Expires after (days)" description="Empty: never" value={days} onChange={setDays} min={1} max={3650} allowDecimal={false} w={180} />
        <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
          Create token
        </Button>
      </Group>
      {create.error && (
        <Text size="sm" c="red" role="alert" mt="xs">
          {errorInfo(create.error).message}
        </Text>
      )}
    </form>
  );
}

function KubeconfigDownload() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const make = useMutation(
    trpc.users.kubeconfig.mutationOptions({
      onSuccess: (r) => {
        download(r.fileName, r.text);
        void queryClient.invalidateQueries({ queryKey: trpc.users.pathKey() });
      },
    }),
  );
  return (
    <Stack gap={4}>
      <Group gap="sm">
        <Button variant="light" onClick={() => make.mutate({})} loading={make.isPending} data-testid="download-kubeconfig">
          Download kubeconfig
        </Button>
        <Text size="sm" c="dimmed">
          For kubectl against the API, with a new token of yours (listed below; revoke it to cut the file off).
        </Text>
      </Group>
      {make.error && (
        <Text size="sm" c="red" role="alert">
          {errorInfo(make.error).message}
        </Text>
      )}
    </Stack>
  );
}

export function TokensPage() {
  const me = useMe();
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <Stack gap="md">
      <Title order={1} size="h3">
        API tokens
      </Title>
      <Text size="sm" c="dimmed">
        Tokens let programs act as you ({me.name}, {me.role}) on the API and the dashboard&apos;s API.
      </Text>
      <Paper withBorder p="md">
        <Stack gap="sm">
          <CreateToken onCreated={setSecret} />
          {secret && <SecretOnce title="Your new token" secret={secret} onClose={() => setSecret(null)} testId="new-token" />}
        </Stack>
      </Paper>
      <KubeconfigDownload />
      <TokenTable />
    </Stack>
  );
}
