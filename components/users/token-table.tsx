'use client';
// A user's API tokens (names and dates; the secrets are never shown again), each with
// Revoke behind a confirmation. Yours on the tokens page; anyone's for an admin.
import { Alert, Button, Group, Loader, Modal, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../data/trpc';
import { ageOf, errorInfo } from '../format/format';
import { useNow } from '../format/use-now';
import { DataTable } from '../table/data-table';

interface TokenRow {
  id: string;
  name: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

export function TokenTable({ user }: { user?: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const now = useNow(30_000);
  const tokens = useQuery(trpc.users.tokens.queryOptions({ user }));
  const [revoking, setRevoking] = useState<TokenRow | null>(null);
  const revoke = useMutation(
    trpc.users.revokeToken.mutationOptions({
      onSuccess: () => {
        setRevoking(null);
        void queryClient.invalidateQueries({ queryKey: trpc.users.pathKey() });
      },
    }),
  );
  if (tokens.isPending) return <Loader size="sm" />;
  if (tokens.isError) return <Alert color="red">{errorInfo(tokens.error).message}</Alert>;
  if (tokens.data.length === 0) {
    return (
      <Text size="sm" c="dimmed" data-testid="no-tokens">
        No API tokens.
      </Text>
    );
  }
  const when = (ts: string | null, none: string) => (ts ? <span title={ts}>{ageOf(ts, now)} ago</span> : none);
  return (
    <>
      <DataTable<TokenRow>
        label={user ? `API tokens of ${user}` : 'Your API tokens'}
        data-testid="token-table"
        rows={tokens.data}
        rowKey={(t) => t.id}
        rowProps={(t) => ({ 'data-testid': 'token-row', 'data-name': t.name })}
        columns={[
          { key: 'name', header: 'NAME', cell: (t) => t.name || <Text span c="dimmed" inherit>unnamed</Text> },
          { key: 'created', header: 'CREATED', nowrap: true, cell: (t) => when(t.createdAt, '') },
          { key: 'expires', header: 'EXPIRES', nowrap: true, cell: (t) => (t.expiresAt ? <span title={t.expiresAt}>{new Date(t.expiresAt).toLocaleDateString()}</span> : 'never') },
          {
            key: 'actions',
            header: 'ACTIONS',
            width: 'max-content',
            cell: (t) => (
              <Button size="compact-xs" variant="light" color="red" onClick={() => setRevoking(t)} aria-label={`Revoke token ${t.name}`}>
                Revoke
              </Button>
            ),
          },
        ]}
      />
      <Modal opened={revoking !== null} onClose={() => setRevoking(null)} title={<Text fw={600}>Revoke token {revoking?.name}?</Text>}>
        <Text size="sm">Programs using it (kubectl, scripts) are refused from the next request on. This cannot be undone.</Text>
        {revoke.error && (
          <Text size="sm" c="red" role="alert" mt="xs">
            {errorInfo(revoke.error).message}
          </Text>
        )}
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setRevoking(null)}>
            Cancel
          </Button>
          <Button color="red" loading={revoke.isPending} onClick={() => revoking && revoke.mutate({ id: revoking.id, user })} data-testid="confirm-revoke">
            Revoke
          </Button>
        </Group>
      </Modal>
    </>
  );
}
