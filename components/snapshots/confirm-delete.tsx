'use client';
// Delete one snapshot or schedule from a list, after a confirmation; the list stays where it is.
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';

export function ConfirmDelete({ kind, namespace, name, what, note }: { kind: string; namespace: string; name: string; what: string; note?: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const del = useMutation(
    trpc.objects.delete.mutationOptions({
      onSuccess: () => {
        setOpened(false);
        void queryClient.invalidateQueries({ queryKey: trpc.objects.list.queryKey({ kind, namespace }) });
      },
    }),
  );
  return (
    <>
      <Button size="compact-sm" color="red" variant="subtle" onClick={() => setOpened(true)} data-testid={`delete-${what.replace(/\s+/g, '-')}`}>
        Delete
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={<Text fw={600}>Delete {what}?</Text>} size="md">
        <Stack gap="sm">
          <Text size="sm">
            Delete {what} <b>{name}</b>? This cannot be undone.{note ? ` ${note}` : ''}
          </Text>
          {del.error && (
            <Text size="sm" c="red" role="alert">
              {errorInfo(del.error).message}
            </Text>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={() => setOpened(false)}>
              Cancel
            </Button>
            <Button color="red" onClick={() => del.mutate({ kind, namespace, name })} loading={del.isPending} data-testid="confirm-delete">
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
