'use client';
// The "Replicas" card of a replicated volume's page and of its claim's page: the active
// copy's node and epoch, then each replica with a state badge, how far behind it is (the
// data-loss window, explained), a bar while it rebuilds, and its error. Live like the rest
// of the page: the volume page's object and the claim page's doctor query are refetched by
// the shell's live stream. Shown only for a replicated volume.
import { Badge, Group, Paper, Progress, Stack, Text, Tooltip } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { readReplication, type ReplicationView } from '@/server/domain/replication';
import type { KubeObject } from '@/server/resources/types';
import { useTRPC } from '../data/trpc';
import { useNow } from '../format/use-now';
import { DATA_LOSS_HELP, replicaCardRows, type ReplicaTone } from './replica-view';

const BADGE_COLOR: Record<ReplicaTone, string> = { ok: 'teal', busy: 'indigo', warn: 'orange', none: 'gray' };

/** A volume's page. */
export function VolumeReplicas({ pv }: { pv: KubeObject }) {
  const view = readReplication(pv.metadata.annotations);
  return view ? <ReplicasCard view={view} /> : null;
}

/** A claim's page: its bound volume's copies, as the claim doctor brings them (developers may not read the volume). */
export function ClaimReplicas({ claim }: { claim: KubeObject }) {
  const trpc = useTRPC();
  const doctor = useQuery({
    ...trpc.claims.doctor.queryOptions({ namespace: claim.metadata.namespace ?? '', name: claim.metadata.name ?? '' }),
    // The same query as the capacity card's (one request): the volume's changes refetch it through the live stream.
    refetchInterval: 30_000,
    enabled: !claim.metadata.deletionTimestamp,
  });
  const view = doctor.data?.replication;
  return view ? <ReplicasCard view={view} /> : null;
}

export function ReplicasCard({ view }: { view: ReplicationView }) {
  const now = useNow(5000);
  const rows = replicaCardRows(view, new Date(now));
  return (
    <Paper withBorder p="md" data-testid="replicas-card" aria-label="Replicas" component="section">
      <Text fw={600} size="sm" mb="xs">
        Replicas
      </Text>
      <Stack gap="xs">
        <Text size="sm" data-testid="replicas-active" data-node={view.activeNode.slice(0, 63)}>
          <Text span c="dimmed" inherit>
            Active on{' '}
          </Text>
          <Text span inherit ff="monospace" fw={600}>
            {view.activeNode.slice(0, 63)}
          </Text>
          <Text span c="dimmed" inherit>
            {' '}· epoch {view.epoch}
          </Text>
        </Text>
        {rows.length === 0 && (
          <Text size="sm" c="orange.9" data-testid="replicas-none">
            No replica: this volume has only its active copy until one is rebuilt.
          </Text>
        )}
        {rows.map((r) => (
          <Stack key={r.node} gap={4} data-testid="replica-row" data-node={r.node} data-state={r.state}>
            <Group gap="sm" wrap="wrap">
              <Text size="sm" ff="monospace" fw={500}>
                {r.node}
              </Text>
              <Badge size="sm" variant="light" color={BADGE_COLOR[r.tone]} tt="none" data-testid="replica-state">
                {r.badge}
              </Badge>
              {r.behindSeconds !== undefined && (
                <Tooltip label={DATA_LOSS_HELP.replace('N', String(r.behindSeconds))} multiline maw={320} withinPortal>
                  <Text size="sm" c={r.tone === 'warn' ? 'orange.9' : 'dimmed'} data-testid="replica-behind" style={{ textDecoration: 'underline dotted', cursor: 'help' }} tabIndex={0}>
                    behind {r.behindSeconds} s
                  </Text>
                </Tooltip>
              )}
            </Group>
            {r.state === 'Rebuilding' && (
              <Group gap="xs" wrap="nowrap" maw={360}>
                <Progress value={r.percent ?? 0} size="sm" color="indigo.8" style={{ flex: 1 }} animated={r.percent === undefined} aria-label={`Rebuild of the copy on ${r.node}${r.percent !== undefined ? `: ${r.percent} %` : ''}`} data-testid="replica-progress" />
                <Text size="xs" c="dimmed">
                  {r.percent !== undefined ? `${r.percent} %` : 'starting'}
                </Text>
              </Group>
            )}
            {r.error && (
              <Text size="xs" c="red.8" data-testid="replica-error" style={{ overflowWrap: 'anywhere' }}>
                {r.error}
              </Text>
            )}
          </Stack>
        ))}
        {rows.some((r) => r.behindSeconds !== undefined) && (
          <Text size="xs" c="dimmed">
            &ldquo;Behind&rdquo; is the data-loss window: if the active node died now, a failover to that copy would lose about that many seconds of writes.
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
