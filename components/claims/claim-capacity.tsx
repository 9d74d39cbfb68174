'use client';
// A claim's capacity on its page: requested (spec), provisioned (the bound volume's size),
// used (measured by the volume's plugin or node agent, see domain/volume-usage.ts) as a
// progress bar with numbers, or "unknown" with why.
import { Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { KubeObject } from '@/server/resources/types';
import { ageOf } from '../format/format';
import { formatSize } from '../format/size';
import { SizeText } from '../format/size-text';
import { useTRPC } from '../data/trpc';
import { useNow } from '../format/use-now';

export function ClaimCapacity({ claim }: { claim: KubeObject }) {
  const trpc = useTRPC();
  const now = useNow(5000);
  const ns = claim.metadata.namespace ?? '';
  const name = claim.metadata.name ?? '';
  const doctor = useQuery({
    ...trpc.claims.doctor.queryOptions({ namespace: ns, name }),
    // Usage is written on the volume at most every minute; the claim's own changes refetch through the live stream.
    refetchInterval: 30_000,
    // A claim being deleted keeps what was last shown: it is soon gone, and asking would find nothing.
    enabled: !claim.metadata.deletionTimestamp,
  });
  const c = doctor.data?.capacity;
  if (!c) return null;
  const percent = c.percent ?? 0;
  const color = percent >= 90 ? 'red' : percent >= 75 ? 'orange' : 'blue';
  return (
    <Paper withBorder p="md" data-testid="claim-capacity" aria-label="Capacity" component="section">
      <Text fw={600} size="sm" mb="xs">
        Capacity
      </Text>
      <Stack gap={6}>
        <Group gap="xl">
          <Text size="sm" data-testid="capacity-requested">
            <Text span c="dimmed" inherit>
              Requested{' '}
            </Text>
            {c.requested ? <SizeText value={c.requestedBytes ?? c.requested} exact={c.requested} /> : '—'}
          </Text>
          <Text size="sm" data-testid="capacity-provisioned">
            <Text span c="dimmed" inherit>
              Provisioned{' '}
            </Text>
            {c.provisioned ? <SizeText value={c.provisionedBytes ?? c.provisioned} exact={c.provisioned} /> : 'not yet'}
          </Text>
          <Text size="sm" data-testid="capacity-used" data-known={c.used ? 'true' : 'false'}>
            <Text span c="dimmed" inherit>
              Used{' '}
            </Text>
            {c.used ? (
              <>
                {c.partial ? 'at least ' : ''}
                <SizeText value={c.usedBytes ?? c.used} exact={c.used} />
                {c.percent !== undefined ? ` (${c.percent}%)` : ''}
              </>
            ) : (
              'unknown'
            )}
          </Text>
        </Group>
        {c.used ? (
          <>
            <Progress value={percent} color={color} size="lg" aria-label={`Used ${formatSize(c.usedBytes ?? c.used)} of ${formatSize(c.provisionedBytes ?? c.provisioned ?? c.requestedBytes ?? c.requested)}`} data-testid="capacity-bar" />
            {c.usedAt && (
              <Text size="xs" c="dimmed" title={c.usedAt}>
                Measured {ageOf(c.usedAt, Math.max(now, Date.parse(c.usedAt)))} ago{c.partial ? '; the walk of the directory ran out of time, so this is a lower bound' : ''}.
              </Text>
            )}
          </>
        ) : (
          <Text size="xs" c="dimmed" data-testid="capacity-unknown">
            Used is unknown: {c.unknownBecause}.
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
