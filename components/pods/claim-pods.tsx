'use client';
// A claim's consumers on its page: the pods that use it ("Used By", as kubectl describe
// pvc shows), with their status and node.
import { Group, Paper, Stack, Text } from '@mantine/core';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { podStatusText } from '@/server/resources/pod/strategy';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import { useClaimPods } from './use-claim-pods';

export function ClaimPods({ claim }: { claim: PersistentVolumeClaim }) {
  const { pods, allowed } = useClaimPods(claim);
  if (!allowed) return null;
  return (
    <Paper withBorder p="md" data-testid="claim-pods">
      <Text fw={600} size="sm" mb="xs">
        Used by ({pods.length})
      </Text>
      {pods.length === 0 ? (
        <Text size="sm" c="dimmed">
          No pod uses this claim.
        </Text>
      ) : (
        <Stack gap={4}>
          {pods.map((p) => (
            <Group key={p.metadata.name} gap={8} wrap="nowrap" data-testid="claim-pod">
              <ObjectLink kind="Pod" namespace={p.metadata.namespace} name={p.metadata.name ?? ''} />
              <StatusBadge value={podStatusText(p)} size="xs" />
              <Text size="xs" c="dimmed">
                {p.spec?.nodeName ? `on ${p.spec.nodeName}` : 'not placed yet'}
              </Text>
            </Group>
          ))}
        </Stack>
      )}
    </Paper>
  );
}
