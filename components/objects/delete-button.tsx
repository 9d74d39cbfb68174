'use client';
// Delete with a confirmation. An object held by finalizers is not gone: it shows as
// Terminating until they are removed.
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { podsUsingClaim } from '@/server/domain/pod-claims';
import type { KubeObject } from '@/server/resources/types';
import { errorInfo } from '../format/format';
import type { KindUi } from './kinds';
import { DeleteNotes } from '../pods/delete-notes';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { pvcProtectionFinalizer } from '@/server/domain/well-known/finalizers';
import { usePodsOfClaim } from '../pods/use-claim-pods';

export function DeleteButton({ obj, ui }: { obj: KubeObject; ui: KindUi }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [opened, setOpened] = useState(false);
  const perms = usePermissions();
  const ref = { kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
  const del = useMutation(
    trpc.objects.delete.mutationOptions({
      onSuccess: async (res) => {
        setOpened(false);
        void queryClient.invalidateQueries({ queryKey: trpc.objects.list.queryKey({ kind: obj.kind }) });
        // A claim no pod uses is held only by pvc-protection, which lets it go at once: it is as good as gone.
        const ns = obj.metadata.namespace ?? '';
        const freeClaim =
          !res.deleted &&
          obj.kind === 'PersistentVolumeClaim' &&
          perms.can('list', 'Pod', ns) &&
          (res.object?.metadata.finalizers ?? []).every((f) => f === pvcProtectionFinalizer) &&
          (await queryClient
            .fetchQuery(trpc.objects.list.queryOptions({ kind: 'Pod', namespace: ns }))
            .then((pods) => podsUsingClaim(pods.items, ns, ref.name).length === 0)
            .catch(() => false));
        if (res.deleted || freeClaim) {
          queryClient.removeQueries({ queryKey: trpc.objects.get.queryKey(ref) });
          router.push(ui.route);
        } else {
          queryClient.setQueryData(trpc.objects.get.queryKey(ref), res.object);
        }
      },
    }),
  );
  // A claim's dialog knows its consumers before Delete is offered (a slow answer must not read as "not in use").
  const isClaim = obj.kind === 'PersistentVolumeClaim';
  const consumers = usePodsOfClaim(isClaim ? (obj.metadata.namespace ?? '') : '', isClaim ? ref.name : '', opened && isClaim);
  const terminating = Boolean(obj.metadata.deletionTimestamp);
  // In-use protection is explained by DeleteNotes (it holds the object only while in use).
  const held = (obj.metadata.finalizers ?? []).filter((f) => f !== pvcProtectionFinalizer);
  const qualified = `${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name}`;
  return (
    <>
      <Button size="sm" color="red" variant="light" onClick={() => setOpened(true)} disabled={terminating}>
        {terminating ? 'Terminating' : 'Delete'}
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={<Text fw={600}>Delete {ui.singular}?</Text>} size="md">
        <Stack gap="sm">
          <Text size="sm">
            Delete {obj.kind} <b>{qualified}</b>? This cannot be undone.
            {held.length ? ` It has finalizers (${held.join(', ')}), so it stays as Terminating until they are removed.` : ''}
          </Text>
          {opened && <DeleteNotes obj={obj} />}
          {del.error && (
            <Text size="sm" c="red" role="alert">
              {errorInfo(del.error).message}
            </Text>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={() => setOpened(false)}>
              Cancel
            </Button>
            <Button color="red" onClick={() => del.mutate(ref)} loading={del.isPending || consumers.loading} disabled={consumers.loading} data-testid="confirm-delete">
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
