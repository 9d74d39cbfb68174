'use client';
// A pod's page: why it is not placed yet (its PodScheduled condition), and the claims its
// volumes use, each with its status, and where the containers mount them.
import { Alert, Group, Paper, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { podClaims } from '@/server/domain/pod-claims';
import type { Pod } from '@/server/resources/pod/schema';
import { isKind } from '@/server/resources/of-kind';
import { ObjectLink } from '../objects/object-link';
import { usePermissions } from '../session/session';
import { StatusBadge } from '../objects/status-badge';
import { useTRPC } from '../data/trpc';

export function PodScheduling({ pod }: { pod: Pod }) {
  const conds = Array.isArray(pod.status?.conditions) ? pod.status.conditions : [];
  const sched = conds.find((c) => c?.type === 'PodScheduled');
  if (pod.spec?.nodeName) return null;
  if (sched?.status === 'False') {
    return (
      <Alert color="orange" title={`Not placed: ${sched.reason ?? 'Unschedulable'}`} data-testid="pod-unschedulable">
        {sched.message}
      </Alert>
    );
  }
  return (
    <Alert color="blue" title="Waiting for placement" data-testid="pod-waiting">
      Stowage places the pod on a Ready node that its volumes can reach; claims of a WaitForFirstConsumer class are bound or
      provisioned for that node first.
    </Alert>
  );
}

function mountsOf(pod: Pod, volume: string): string[] {
  const out: string[] = [];
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    for (const m of c?.volumeMounts ?? []) if (m?.name === volume) out.push(`${c.name}:${m.mountPath}${m.readOnly ? ' (ro)' : ''}`);
    for (const d of c?.volumeDevices ?? []) if (d?.name === volume) out.push(`${c.name}:${d.devicePath} (block)`);
  }
  return out;
}

export function PodVolumes({ pod }: { pod: Pod }) {
  const trpc = useTRPC();
  const perms = usePermissions();
  const ns = pod.metadata.namespace ?? '';
  const claims = podClaims(pod);
  const list = useQuery({
    ...trpc.objects.list.queryOptions({ kind: 'PersistentVolumeClaim', namespace: ns }),
    enabled: claims.length > 0 && perms.can('list', 'PersistentVolumeClaim', ns),
  });
  const byName = new Map((list.data?.items ?? []).filter((c) => isKind(c, 'PersistentVolumeClaim')).map((c) => [c.metadata.name, c]));
  return (
    <Paper withBorder p="md" data-testid="pod-volumes">
      <Text fw={600} size="sm" mb="xs">
        Claims ({claims.length})
      </Text>
      {claims.length === 0 ? (
        <Text size="sm" c="dimmed">
          This pod uses no claims.
        </Text>
      ) : (
        <Stack gap={4}>
          {claims.map((c) => {
            const claim = byName.get(c.claimName);
            const phase = claim ? (claim.metadata.deletionTimestamp ? 'Terminating' : (claim.status?.phase ?? '')) : list.data ? 'Missing' : '';
            return (
              <Group key={c.volume} gap={8} wrap="nowrap" data-testid="pod-claim">
                <ObjectLink kind="PersistentVolumeClaim" namespace={ns} name={c.claimName} />
                {phase && <StatusBadge value={phase} size="xs" />}
                <Text size="xs" c="dimmed">
                  volume {c.volume}
                  {c.readOnly ? ', read-only' : ''}
                  {mountsOf(pod, c.volume).length ? ` — ${mountsOf(pod, c.volume).join(', ')}` : ''}
                </Text>
              </Group>
            );
          })}
        </Stack>
      )}
    </Paper>
  );
}
