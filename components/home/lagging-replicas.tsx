'use client';
// The home page's replicas that need attention: each copy of a replicated volume that is
// Behind or Unreachable, worst first, with how far behind (the data-loss window), linking
// to its volume. The server sends the few volumes concerned (bounded); the seconds are
// counted here, from this clock, as the volume page counts them.
import { Anchor, List, Text, Title } from '@mantine/core';
import Link from 'next/link';
import type { LaggingReplicas as Data } from '../data/api-types';
import { useNow } from '../format/use-now';
import { replicasNeedingAttention } from '../volumes/replica-view';

export function LaggingReplicas({ data }: { data: Data }) {
  const now = useNow(5000);
  const rows = replicasNeedingAttention(data.volumes.map((v) => ({ metadata: { name: v.name, annotations: v.annotations } })), new Date(now));
  if (rows.length === 0) return null;
  return (
    <section aria-labelledby="replicas-behind">
      <Title order={2} size="h4" id="replicas-behind" mb="xs">
        Replicas behind or unreachable
      </Title>
      <Text size="xs" c="dimmed" mb={4}>
        A failover to such a copy now would lose the writes of the time shown (the data-loss window).
      </Text>
      <List size="sm" spacing={4} data-testid="replicas-behind">
        {rows.map((r) => (
          <List.Item key={`${r.volume}/${r.node}`} data-testid="replica-attention" data-volume={r.volume} data-node={r.node.slice(0, 63)}>
            <Anchor component={Link} href={`/volumes/${encodeURIComponent(r.volume)}`} fz="sm">
              {r.volume}
            </Anchor>
            {`: the copy on ${r.node.slice(0, 63)} is ${r.state === 'Behind' ? 'behind' : 'unreachable'}${r.behindSeconds !== undefined ? `${r.state === 'Behind' ? '' : ', last synced'} ${r.behindSeconds} s${r.state === 'Behind' ? '' : ' ago'}` : ''}`}
          </List.Item>
        ))}
      </List>
      {data.more && (
        <Text size="xs" c="dimmed" mt={4}>
          More volumes have lagging replicas than shown here.
        </Text>
      )}
    </section>
  );
}
