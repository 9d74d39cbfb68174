'use client';
// A claim's binding, at the top of its page: while Pending, "why is my claim Pending?" in
// plain sentences (the binder's summary, the nearest volumes and what each lacks); once
// Bound, the volume it got; when Lost, that its volume is gone. Live: the claim object
// changes when the binder decides again, and the shell's live stream refetches it.
import { Alert, Badge, Group, List, Stack, Text } from '@mantine/core';
import { abbreviateAccessModes } from '@/server/domain/access-modes';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { ageOf } from '../format/format';
import { SizeText } from '../format/size-text';
import { ObjectLink } from '../objects/object-link';
import { pendingReasonOf, withProvisioning, type PendingCandidate } from './pending-reason';
import { latestProvisioningEvent, provisionerOf } from './provisioning-state';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../data/trpc';
import { isKind } from '@/server/resources/of-kind';
import { usePermissions } from '../session/session';
import { useNow } from '../format/use-now';

export function ClaimBinding({ claim }: { claim: PersistentVolumeClaim }) {
  if (claim.metadata.deletionTimestamp) return null;
  const phase = claim.status?.phase ?? 'Pending';
  if (phase === 'Bound') return <BoundVolume claim={claim} />;
  if (phase === 'Lost') return <LostVolume claim={claim} />;
  return <PendingExplanation claim={claim} />;
}

function VolumeLink({ name }: { name: string }) {
  const perms = usePermissions();
  return (
    <ObjectLink kind="PersistentVolume" name={name} allowed={perms.can('get', 'PersistentVolume')}>
      <Text span inherit ff="monospace" fw={600}>
        {name}
      </Text>
    </ObjectLink>
  );
}

function BoundVolume({ claim }: { claim: PersistentVolumeClaim }) {
  const name: string = claim.spec?.volumeName ?? '';
  const capacity = claim.status?.capacity?.storage;
  const modes = abbreviateAccessModes(claim.status?.accessModes ?? []);
  return (
    <Alert color="blue" variant="light" title="Bound" data-testid="bound-volume" data-volume={name}>
      <Text size="sm">
        This claim is bound to volume <VolumeLink name={name} />
        {capacity ? (
          <>
            , <SizeText value={capacity} />
          </>
        ) : (
          ''
        )}
        {modes ? ` (${modes})` : ''}.
      </Text>
    </Alert>
  );
}

function LostVolume({ claim }: { claim: PersistentVolumeClaim }) {
  const name: string = claim.spec?.volumeName ?? '';
  return (
    <Alert color="red" variant="light" title="Lost" data-testid="lost-volume">
      <Text size="sm">
        The volume this claim was bound to{name ? ' (' : ''}
        {name && <VolumeLink name={name} />}
        {name ? ')' : ''} no longer exists. Its data may be gone; an administrator must restore the volume or the claim must be recreated.
      </Text>
    </Alert>
  );
}

function Candidate({ c }: { c: PendingCandidate }) {
  return (
    <Stack gap={2} data-testid="pending-candidate" data-name={c.name}>
      <Text size="sm">
        Volume <VolumeLink name={c.name} />
        {c.reasons.length === 0 ? ' was considered.' : ' does not fit:'}
      </Text>
      {c.reasons.length > 0 && (
        <List size="sm" spacing={2} withPadding data-testid="candidate-reasons">
          {c.reasons.map((r) => (
            <List.Item key={r}>{r}</List.Item>
          ))}
        </List>
      )}
    </Stack>
  );
}

function PendingExplanation({ claim }: { claim: PersistentVolumeClaim }) {
  const now = useNow(1000);
  const trpc = useTRPC();
  const provisioner = provisionerOf(claim);
  // The same query as the provisioning panel's (one request): a failing provisioner is the headline.
  const events = useQuery({
    ...trpc.objects.events.queryOptions({ kind: claim.kind, namespace: claim.metadata.namespace, name: claim.metadata.name ?? '' }),
    enabled: Boolean(provisioner),
  });
  const latest = provisioner ? latestProvisioningEvent(events.data?.filter((e) => isKind(e, 'Event'))) : undefined;
  const why = withProvisioning(pendingReasonOf(claim), latest, provisioner);
  return (
    <Alert
      color={why.source === 'none' ? 'gray' : why.reason === 'ProvisioningFailed' ? 'red' : 'yellow'}
      variant="light"
      title="Why is this claim Pending?"
      data-testid="pending-explanation"
      data-source={why.source}
      aria-live="polite"
    >
      <Stack gap="xs">
        <Text size="sm" fw={500} data-testid="pending-summary">
          {why.summary}
        </Text>
        {why.candidates.length > 0 && (
          <Stack gap={6}>
            <Text size="sm" c="dimmed">
              {why.candidates.length === 1 ? 'The nearest volume:' : `The ${why.candidates.length} nearest volumes:`}
            </Text>
            {why.candidates.map((c) => (
              <Candidate key={c.name} c={c} />
            ))}
          </Stack>
        )}
        {why.source !== 'none' && (
          <Group gap="xs">
            {why.evaluatedAt && (
              <Text size="xs" c="dimmed" data-testid="evaluated-at" title={why.evaluatedAt}>
                Evaluated {ageOf(why.evaluatedAt, Math.max(now, Date.parse(why.evaluatedAt)))} ago by the binder; this updates live.
              </Text>
            )}
            {why.reason && (
              <Badge size="xs" variant="outline" color="gray" tt="none" data-testid="pending-reason">
                {why.reason}
              </Badge>
            )}
          </Group>
        )}
      </Stack>
    </Alert>
  );
}
