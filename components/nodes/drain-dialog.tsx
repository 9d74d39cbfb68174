'use client';
// A node's drain and uncordon, for administrators (a developer sees neither: the server
// refuses them too). "Drain…" opens a dialog with the preview (what moves where and how far
// behind its replica is, what stays and why, the pods that must stop first); "Drain" applies
// it and says what it did. "Uncordon" when the node is cordoned. Errors in words.
import { Alert, Button, Group, Loader, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';
import { usePermissions } from '../session/session';
import { DataTable, type DataColumn } from '../table/data-table';
import { ObjectLink } from '../objects/object-link';
import { behindText, drainErrorText, drainOutcome } from './drain-view';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/trpc/root';

type DrainPlan = inferRouterOutputs<AppRouter>['replication']['drainPreview'];
type Move = DrainPlan['moves'][number];
type Stay = DrainPlan['stays'][number];
type PodToStop = DrainPlan['podsToStop'][number];

/** Drain and uncordon are for who may update nodes and volumes (the server's rule). */
export function useMayDrain(): boolean {
  const perms = usePermissions();
  return perms.can('update', 'Node') && perms.can('update', 'PersistentVolume');
}

function VolumeCell({ pvName, claim }: { pvName: string; claim?: string }) {
  return (
    <Stack gap={0}>
      <ObjectLink kind="PersistentVolume" name={pvName}>
        {claim ?? pvName}
      </ObjectLink>
      {claim && (
        <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
          {pvName}
        </Text>
      )}
    </Stack>
  );
}

const MOVE_COLUMNS: DataColumn<Move>[] = [
  { key: 'volume', header: 'Volume (claim)', cell: (m) => <VolumeCell pvName={m.pvName} claim={m.claim} />, width: 'minmax(160px, 2fr)' },
  { key: 'to', header: 'Moves to', cell: (m) => m.to ?? '', nowrap: true, width: 'minmax(90px, 1fr)' },
  { key: 'behind', header: 'Replica data', cell: (m) => behindText(m.behindSeconds), nowrap: true, width: 'max-content', cellProps: (m) => ({ 'data-testid': 'move-behind', title: m.behindSeconds === undefined ? undefined : `${Math.round(m.behindSeconds)} s` }) },
];

const STAY_COLUMNS: DataColumn<Stay>[] = [
  { key: 'volume', header: 'Volume (claim)', cell: (s) => <VolumeCell pvName={s.pvName} claim={s.claim} />, width: 'minmax(160px, 1fr)' },
  { key: 'why', header: 'Why it stays', cell: (s) => s.stays ?? '', width: 'minmax(160px, 1fr)' },
];

const POD_COLUMNS: DataColumn<PodToStop>[] = [
  { key: 'pod', header: 'Pod', cell: (p) => <ObjectLink kind="Pod" namespace={p.namespace} name={p.name}>{`${p.namespace}/${p.name}`}</ObjectLink>, width: 'minmax(160px, 1fr)' },
  { key: 'claims', header: 'Uses', cell: (p) => p.claims.join(', '), width: 'minmax(120px, 1fr)' },
];

/** The preview (or, after Drain, what was done): moves, stays, pods to stop. */
export function DrainPlanView({ plan }: { plan: DrainPlan }) {
  return (
    <Stack gap="sm" data-testid="drain-plan">
      <Stack gap={4} data-testid="drain-moves">
        <Text fw={600} size="sm">
          Moves to a replica ({plan.moves.length})
        </Text>
        {plan.moves.length === 0 ? (
          <Text size="sm" c="dimmed">
            No volume on this node has a replica to move to.
          </Text>
        ) : (
          <DataTable label="Volumes that move" columns={MOVE_COLUMNS} rows={plan.moves} rowKey={(m) => m.pvName} rowProps={(m) => ({ 'data-testid': 'drain-move', 'data-pv': m.pvName })} />
        )}
      </Stack>
      {plan.stays.length > 0 && (
        <Stack gap={4} data-testid="drain-stays">
          <Text fw={600} size="sm">
            Stays on this node ({plan.stays.length})
          </Text>
          <DataTable label="Volumes that stay" columns={STAY_COLUMNS} rows={plan.stays} rowKey={(s) => s.pvName} rowProps={(s) => ({ 'data-testid': 'drain-stay', 'data-pv': s.pvName })} />
        </Stack>
      )}
      {plan.podsToStop.length > 0 && (
        <Stack gap={4} data-testid="drain-pods">
          <Text fw={600} size="sm">
            Pods to stop first ({plan.podsToStop.length})
          </Text>
          <Text size="sm" c="dimmed">
            A volume moves once the pods using it on this node are gone: its final transfer runs then, so no write is lost.
          </Text>
          <DataTable label="Pods to stop first" columns={POD_COLUMNS} rows={plan.podsToStop} rowKey={(p) => `${p.namespace}/${p.name}`} rowProps={() => ({ 'data-testid': 'drain-pod' })} />
        </Stack>
      )}
    </Stack>
  );
}

function DrainDialog({ node, opened, onClose }: { node: string; opened: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const preview = useQuery({ ...trpc.replication.drainPreview.queryOptions({ node }), enabled: opened, retry: false, staleTime: 0, refetchOnWindowFocus: false });
  const drain = useMutation(
    trpc.replication.drain.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.objects.get.queryKey({ kind: 'Node', name: node }) });
        void queryClient.invalidateQueries({ queryKey: trpc.objects.list.queryKey({ kind: 'Node' }) });
      },
    }),
  );
  const close = () => {
    drain.reset();
    onClose();
  };
  const done = drain.data;
  return (
    <Modal opened={opened} onClose={close} title={<Text fw={600}>Drain {node}?</Text>} size="lg" data-testid="drain-dialog">
      <Stack gap="sm">
        {!done && (
          <Text size="sm">
            Draining cordons the node (no new pod is placed on it) and moves each replicated volume whose active copy is here to its most recent replica: a final transfer once
            its pods have stopped, then the switch. Volumes without a replica stay.
          </Text>
        )}
        {preview.isPending && opened && (
          <Group gap="xs" data-testid="drain-preview-loading">
            <Loader size="sm" />
            <Text size="sm" c="dimmed">
              Working out what would move…
            </Text>
          </Group>
        )}
        {preview.isError && (
          <Alert color="red" role="alert" data-testid="drain-error">
            {drainErrorText(errorInfo(preview.error), 'preview')}
          </Alert>
        )}
        {!done && preview.data?.cordoned && (
          <Text size="sm" c="dimmed" data-testid="drain-already-cordoned">
            The node is cordoned already; Drain asks the volumes below to move again.
          </Text>
        )}
        {done ? (
          <>
            <Alert color="teal" title="Drained" data-testid="drain-outcome">
              {drainOutcome(node, { moves: done.moves.length, stays: done.stays.length, podsToStop: done.podsToStop.length })}
            </Alert>
            <DrainPlanView plan={done} />
          </>
        ) : (
          preview.data && <DrainPlanView plan={preview.data} />
        )}
        {drain.isError && (
          <Alert color="red" role="alert" data-testid="drain-error">
            {drainErrorText(errorInfo(drain.error), 'drain')}
          </Alert>
        )}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={close}>
            {done ? 'Close' : 'Cancel'}
          </Button>
          {!done && (
            <Button color="red" onClick={() => drain.mutate({ node })} loading={drain.isPending} disabled={!preview.data} data-testid="confirm-drain">
              Drain
            </Button>
          )}
        </Group>
      </Stack>
    </Modal>
  );
}

/** The node page's Drain… and Uncordon buttons; nothing for who may not drain. */
export function NodeDrainActions({ node, cordoned }: { node: string; cordoned: boolean }) {
  const mayDrain = useMayDrain();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [opened, setOpened] = useState(false);
  const uncordon = useMutation(
    trpc.replication.uncordon.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.objects.get.queryKey({ kind: 'Node', name: node }) });
        void queryClient.invalidateQueries({ queryKey: trpc.objects.list.queryKey({ kind: 'Node' }) });
      },
    }),
  );
  if (!mayDrain) return null;
  return (
    <Stack gap={4} align="flex-end">
      <Group gap="xs">
        {cordoned && (
          <Button size="sm" variant="light" onClick={() => uncordon.mutate({ node })} loading={uncordon.isPending} data-testid="uncordon">
            Uncordon
          </Button>
        )}
        <Button size="sm" variant="light" color="orange" onClick={() => setOpened(true)} data-testid="drain-open">
          Drain…
        </Button>
      </Group>
      {uncordon.isError && (
        <Text size="sm" c="red" role="alert" data-testid="uncordon-error">
          {drainErrorText(errorInfo(uncordon.error), 'uncordon')}
        </Text>
      )}
      {opened && <DrainDialog node={node} opened={opened} onClose={() => setOpened(false)} />}
    </Stack>
  );
}
