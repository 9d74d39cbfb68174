'use client';
// A claim handed to provisioning (annotation volume.kubernetes.io/storage-provisioner):
// who is making its volume, the latest word from them (ProvisioningSucceeded,
// ProvisioningFailed, ExternalProvisioning events), and the volume once it exists
// (named pvc-<claim uid>, seed 000). Live through the shell's stream.
import { Group, Paper, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { ageOf } from '../format/format';
import { ObjectLink } from '../objects/object-link';
import { eventTime, latestProvisioningEvent, provisionerOf } from './provisioning-state';
import { usePermissions } from '../session/session';
import { StatusBadge } from '../objects/status-badge';
import { useTRPC } from '../data/trpc';
import { useNow } from '../format/use-now';
import { isKind } from '@/server/resources/of-kind';
import { reasons } from '@/server/domain/well-known/event-reasons';

export function ClaimProvisioning({ claim }: { claim: PersistentVolumeClaim }) {
  const provisioner = provisionerOf(claim);
  if (!provisioner) return null;
  return <Provisioning claim={claim} provisioner={provisioner} />;
}

function Provisioning({ claim, provisioner }: { claim: PersistentVolumeClaim; provisioner: string }) {
  const trpc = useTRPC();
  const perms = usePermissions();
  const now = useNow(5000);
  const m = claim.metadata;
  const expected = m.uid ? `pvc-${m.uid}` : '';
  const bound = claim.status?.phase === 'Bound';
  const events = useQuery(trpc.objects.events.queryOptions({ kind: claim.kind, namespace: m.namespace, name: m.name ?? '' }));
  const mayGetVolumes = perms.can('get', 'PersistentVolume');
  // Before the binder finishes, look for the volume the provisioner made: only once it says
  // it made one (asking earlier answers 404 for a volume that does not exist yet).
  const succeeded = (events.data ?? []).some((e) => isKind(e, 'Event') && e.reason === reasons.provisioningSucceeded);
  const volume = useQuery({
    ...trpc.objects.get.queryOptions({ kind: 'PersistentVolume', name: expected }),
    enabled: Boolean(expected) && mayGetVolumes && !bound && succeeded,
  });
  const volumeName = bound && claim.spec?.volumeName === expected ? expected : volume.data ? expected : undefined;
  const latest = latestProvisioningEvent(events.data?.filter((e) => isKind(e, 'Event')), Boolean(volumeName));

  return (
    <Paper withBorder p="md" data-testid="claim-provisioning" data-provisioner={provisioner}>
      <Group justify="space-between" mb={6}>
        <Text fw={600} size="sm">
          {volumeName ? 'Provisioned by ' : 'Provisioning by '}
          <Text span inherit ff="monospace" data-testid="provisioner-name">
            {provisioner}
          </Text>
        </Text>
        {latest && (
          <Group gap={6}>
            <StatusBadge value={latest.type ?? 'Normal'} size="xs" />
            <Text size="xs" c="dimmed">
              {latest.reason}, {ageOf(eventTime(latest), now)} ago
            </Text>
          </Group>
        )}
      </Group>
      <Text size="sm" data-testid="provisioning-message" c={latest?.type === 'Warning' && !volumeName ? 'red.8' : undefined}>
        {bound && !volumeName
          ? 'The claim was bound to an existing volume; nothing was provisioned for it.'
          : (latest?.message ?? (volumeName ? 'The volume was created.' : 'Waiting for the provisioner to create a volume for this claim.'))}
      </Text>
      {volumeName && (
        <Text size="sm" mt={6} data-testid="provisioned-volume">
          Volume:{' '}
          <ObjectLink kind="PersistentVolume" name={volumeName} allowed={mayGetVolumes}>
            <Text span inherit ff="monospace">
              {volumeName}
            </Text>
          </ObjectLink>
          {!bound && ' (created; the binder is binding it to this claim)'}
        </Text>
      )}
    </Paper>
  );
}
