'use client';
// Expanding a claim on its page: the Expand button where the claim may grow (Bound, its
// class allows expansion, the user may update it), a dialog whose minimum is the current
// size, and the resizer's stage until the new size is reached. Live through the shell's stream.
import { Alert, Button, Group, Modal, Stack, Text, Tooltip } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { mayExpand } from '@/server/resources/persistent-volume-claim/resize';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import { errorInfo } from '../format/format';
import { formatSize } from '../format/size';
import { humanMessage } from '../format/quota-refusal';
import { SizeText } from '../format/size-text';
import { quantityOfValue, valueOfQuantity, type SizeValue } from '../format/size-value';
import { SizeField } from '../forms/size-field';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { expandBlocker, expansionStage, newSizeProblem } from './expansion-stage';
import { isKind } from '@/server/resources/of-kind';
import { QuotaRoom, useQuotaRoom } from './quota-room';

export function ClaimExpansion({ claim }: { claim: PersistentVolumeClaim }) {
  const trpc = useTRPC();
  const perms = usePermissions();
  const ns = claim.metadata.namespace ?? '';
  const className: string = claim.spec?.storageClassName ?? '';
  const sc = useQuery({
    ...trpc.objects.get.queryOptions({ kind: 'StorageClass', name: className || '-' }),
    enabled: Boolean(className) && claim.status?.phase === 'Bound',
  });
  const stage = expansionStage(claim);
  const mayUpdate = perms.can('update', 'PersistentVolumeClaim', ns);
  const allowed = mayExpand(claim, sc.data) && mayUpdate;
  const scData = sc.data && isKind(sc.data, 'StorageClass') ? sc.data : undefined;
  // Known once the class is read (or when there is none): Expand is shown disabled, with why.
  const blocker = !allowed && (scData || !className || sc.isError) ? expandBlocker(claim, scData, mayUpdate, className) : undefined;
  if (!stage && !allowed && !blocker) return null;
  return (
    <Alert
      color={stage?.color ?? 'gray'}
      variant="light"
      title={stage ? `Expansion: ${stage.label}` : 'Size'}
      data-testid="claim-expansion"
      data-stage={stage?.label ?? 'none'}
    >
      <Group justify="space-between" align="center">
        <Text size="sm">
          {stage
            ? stage.detail
            : blocker
              ? `${formatSize(claim.status?.capacity?.storage ?? claim.spec?.resources?.requests?.storage)}. ${blocker}`
              : `${formatSize(claim.status?.capacity?.storage ?? claim.spec?.resources?.requests?.storage)} — class ${className} allows expansion.`}
        </Text>
        {allowed && !stage && <ExpandButton claim={claim} />}
        {blocker && !stage && (
          <Tooltip label={blocker} multiline w={260}>
            <Button size="xs" variant="light" disabled data-disabled aria-disabled="true" data-testid="expand-claim-disabled" data-reason={blocker}>
              Expand
            </Button>
          </Tooltip>
        )}
      </Group>
    </Alert>
  );
}

function ExpandButton({ claim }: { claim: PersistentVolumeClaim }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // A stored quantity is a string: writes rewrite each one in canonical form (canonicalizeResourceList).
  const current = claim.spec?.resources?.requests?.storage as string | undefined;
  const [opened, setOpened] = useState(false);
  const [size, setSize] = useState<SizeValue>(() => valueOfQuantity(current) ?? { size: '', unit: 'Gi' });
  const quantity = quantityOfValue(size);
  const problem = newSizeProblem(quantity, current);
  const perms = usePermissions();
  const ns = claim.metadata.namespace ?? '';
  // The room the namespace's quotas leave for this claim at its new size (the claim itself not counted twice).
  const grown = { ...claim, spec: { ...claim.spec, resources: { ...(claim.spec?.resources ?? {}), requests: { ...(claim.spec?.resources?.requests ?? {}), storage: problem ? current : quantity } } } };
  const room = useQuotaRoom(grown, opened && perms.can('list', 'ResourceQuota', ns));
  const ref = { kind: claim.kind, namespace: claim.metadata.namespace, name: claim.metadata.name ?? '' };
  const update = useMutation(
    trpc.objects.update.mutationOptions({
      onSuccess: (saved) => {
        setOpened(false);
        queryClient.setQueryData(trpc.objects.get.queryKey(ref), saved);
      },
    }),
  );
  const overQuota = Boolean(room?.refusal);
  const submit = () => {
    if (problem || overQuota) return;
    const next = structuredClone(claim);
    // A stored claim has a spec: validation requires spec.resources.requests.storage.
    const spec = next.spec!;
    spec.resources = { ...(spec.resources ?? {}), requests: { ...(spec.resources?.requests ?? {}), storage: quantity } };
    update.mutate({ kind: claim.kind, namespace: claim.metadata.namespace, name: claim.metadata.name ?? '', manifest: JSON.stringify(next) });
  };
  return (
    <>
      <Button size="xs" variant="light" onClick={() => setOpened(true)} data-testid="expand-claim">
        Expand
      </Button>
      <Modal opened={opened} onClose={() => setOpened(false)} title={<Text fw={600}>Expand claim</Text>} size="sm">
        <Stack gap="sm">
          <Text size="sm">
            Now <SizeText value={current} />. A claim only grows; the volume (and its filesystem) is grown by its resizer.
          </Text>
          <SizeField label="New size" value={size} onChange={setSize} error={quantity !== current ? problem : undefined} testId="expand-size" onEnter={submit} />
          <QuotaRoom data={room} />
          {update.error && (
            <Text size="sm" c="red" role="alert">
              {humanMessage(errorInfo(update.error).message)}
            </Text>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={() => setOpened(false)}>
              Cancel
            </Button>
            <Button onClick={submit} disabled={Boolean(problem) || overQuota} loading={update.isPending} data-testid="confirm-expand">
              Expand
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
