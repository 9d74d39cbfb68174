'use client';
// Delete with a confirmation: on an object's page (DeleteButton) or from a row of a list
// (RowDeleteButton); both are ConfirmDelete. An object held by finalizers is not gone: it
// shows as Terminating until they are removed.
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState, type ReactNode } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import { podsUsingClaim } from '@/server/domain/pod-claims';
import type { KubeObject } from '@/server/resources/types';
import { errorInfo } from '../format/format';
import type { KindUi } from './kinds';
import { DeleteNotes } from '../pods/delete-notes';
import { DependentsNotes, isDependentsKind } from './delete-dependents-notes';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { pvcProtectionFinalizer } from '@/server/domain/well-known/finalizers';
import { usePodsOfClaim } from '../pods/use-claim-pods';
import type { AppRouter } from '@/server/trpc/root';

type DeleteResult = inferRouterOutputs<AppRouter>['objects']['delete'];

interface ConfirmDeleteProps {
  /** What to delete: its kind and name; a claim's consumers are known before Delete is offered, a deleted one shows Terminating. */
  obj: Pick<KubeObject, 'kind' | 'metadata'>;
  /** The dialog's title: "Delete {title}?". */
  title: string;
  /** Its sentence: "Delete {noun} <b>{label}</b>? This cannot be undone. {note}". */
  noun: string;
  label: string;
  note?: string;
  /** More words in the open dialog (a claim's consumers and reclaim policy). */
  notes?: ReactNode;
  /** A small button for a row of a list, with a test id naming what it deletes. */
  compact?: boolean;
  testId?: string;
  /** After the delete (the dialog is closed and the kind's lists are asked again). */
  onDeleted?: (res: DeleteResult) => void | Promise<void>;
}

/** The Delete button, its dialog and the delete itself, for an object of any kind. */
export function ConfirmDelete({ obj, title, noun, label, note, notes, compact, testId, onDeleted }: ConfirmDeleteProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const ref = { kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
  const del = useMutation(
    trpc.objects.delete.mutationOptions({
      onSuccess: async (res) => {
        setOpened(false);
        void queryClient.invalidateQueries({ queryKey: trpc.objects.list.queryKey({ kind: obj.kind }) });
        await onDeleted?.(res);
      },
    }),
  );
  // A claim's dialog knows its consumers before Delete is offered (a slow answer must not read as "not in use").
  const isClaim = obj.kind === 'PersistentVolumeClaim';
  const consumers = usePodsOfClaim(isClaim ? (obj.metadata.namespace ?? '') : '', isClaim ? ref.name : '', opened && isClaim);
  const terminating = Boolean(obj.metadata.deletionTimestamp);
  return (
    <>
      <Button size={compact ? 'compact-sm' : 'sm'} color="red" variant={compact ? 'subtle' : 'light'} onClick={() => setOpened(true)} disabled={terminating} data-testid={testId}>
        {terminating ? 'Terminating' : 'Delete'}
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={<Text fw={600}>Delete {title}?</Text>} size="md">
        <Stack gap="sm">
          <Text size="sm">
            Delete {noun} <b>{label}</b>? This cannot be undone.{note ? ` ${note}` : ''}
          </Text>
          {opened && notes}
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

/** What deleting a namespace does (the namespace controller), said before it is done. */
const NAMESPACE_DELETE_NOTE =
  'Everything in it is deleted with it: pods first, then claims (their volumes are released by their reclaim policy), snapshots, schedules, quotas and events. It stays Terminating until its content is gone.';

/** On an object's page: once it is gone (or as good as gone), back to its kind's list. */
export function DeleteButton({ obj, ui }: { obj: KubeObject; ui: KindUi }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const perms = usePermissions();
  const ref = { kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
  const onDeleted = async (res: DeleteResult) => {
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
  };
  // In-use protection is explained by DeleteNotes (it holds the object only while in use).
  const held = (obj.metadata.finalizers ?? []).filter((f) => f !== pvcProtectionFinalizer);
  const qualified = `${obj.metadata.namespace ? `${obj.metadata.namespace}/` : ''}${obj.metadata.name}`;
  const note =
    obj.kind === 'Namespace'
      ? NAMESPACE_DELETE_NOTE
      : held.length
        ? `It has finalizers (${held.join(', ')}), so it stays as Terminating until they are removed.`
        : undefined;
  return <ConfirmDelete obj={obj} title={ui.singular} noun={obj.kind} label={qualified} note={note} notes={<DeleteNotes obj={obj} />} onDeleted={onDeleted} />;
}

/** From a row of a list (a claim's snapshots, its schedules): the list stays where it is. */
export function RowDeleteButton({ kind, namespace, name, what, note }: { kind: string; namespace: string; name: string; what: string; note?: string }) {
  const obj = { kind, metadata: { namespace, name } };
  const notes = isDependentsKind(kind) ? <DependentsNotes kind={kind} name={name} /> : undefined;
  return <ConfirmDelete obj={obj} title={what} noun={what} label={name} note={note} notes={notes} compact testId={`delete-${what.replace(/\s+/g, '-')}`} />;
}
