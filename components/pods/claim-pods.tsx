'use client';
// A claim's consumers on its page, and a bound volume's on its page: the pods that use the
// claim ("Used By", as kubectl describe pvc shows), with their status and node.
import { Group, Paper, Stack, Text } from '@mantine/core';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import type { PersistentVolume } from '@/server/resources/persistent-volume/schema';
import { podStatusText } from '@/server/resources/pod/strategy';
import { ObjectLink } from '../objects/object-link';
import { StatusBadge } from '../objects/status-badge';
import { usePodsOfClaim, type ClaimPodsState } from './use-claim-pods';

export function ClaimPods({ claim }: { claim: PersistentVolumeClaim }) {
  return <PodsList state={usePodsOfClaim(claim.metadata.namespace ?? '', claim.metadata.name ?? '')} none="No pod uses this claim." />;
}

/** A volume's consumers: the pods of the claim it is bound to. */
export function VolumePods({ pv }: { pv: PersistentVolume }) {
  const ref = pv.status?.phase === 'Bound' ? pv.spec?.claimRef : undefined;
  const state = usePodsOfClaim(ref?.namespace ?? '', ref?.name ?? '', Boolean(ref));
  if (!ref) return null;
  return <PodsList state={state} none={`No pod uses its claim ${ref.namespace}/${ref.name}.`} />;
}

function PodsList({ state, none }: { state: ClaimPodsState; none: string }) {
  const { pods, allowed, loading } = state;
  if (!allowed) return null;
  return (
    <Paper withBorder p="md" data-testid="claim-pods" data-loading={String(loading)}>
      <Text fw={600} size="sm" mb="xs">
        {loading ? 'Used by' : `Used by (${pods.length})`}
      </Text>
      {loading ? (
        <Text size="sm" c="dimmed">
          Looking for the pods that use it…
        </Text>
      ) : pods.length === 0 ? (
        <Text size="sm" c="dimmed">
          {none}
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
