'use client';
// The admin's quota form: a namespace, a name and hard limits (a resource and an amount
// per row; storage resources, per class too, are offered). Creates the quota, or replaces
// the hard limits of an existing one (the rest of it is kept; a stale edit is a conflict).
import { Alert, Autocomplete, Button, CloseButton, Group, NumberInput, Paper, Progress, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useMemo, useState } from 'react';
import { stringify } from 'yaml';
import type { ResourceQuota } from '@/server/resources/resource-quota/schema';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';
import { isSizeResource } from '../format/size';
import { SizeField } from '../forms/size-field';
import { draftFromQuota, EMPTY_QUOTA, limitAmount, NEW_LIMIT, quotaDraftErrors, quotaFromDraft, storageResources, type LimitDraft, type QuotaDraft } from './quota-draft';
import { quotaLimits } from './quota-usage';

export function QuotaForm({ base, namespace }: { base?: ResourceQuota; namespace?: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [d, setD] = useState<QuotaDraft>(() => (base ? draftFromQuota(base) : { ...EMPTY_QUOTA, namespace: namespace ?? '' }));
  const [showErrors, setShowErrors] = useState(false);
  const namespaces = useQuery(trpc.lists.page.queryOptions({ kind: 'Namespace', limit: 500 }));
  const classes = useQuery(trpc.lists.page.queryOptions({ kind: 'StorageClass', limit: 500 }));
  const resources = storageResources((classes.data?.items ?? []).map((c) => c.metadata.name ?? ''));
  const errors = useMemo(() => quotaDraftErrors(d), [d]);
  const errorFor = (field: string) => (showErrors ? errors.find((e) => e.field === field)?.message : undefined);
  const done = {
    onSuccess: async (q: { metadata: { namespace?: string; name?: string } }) => {
      await queryClient.invalidateQueries();
      router.push(`/quotas/${encodeURIComponent(q.metadata.namespace ?? '')}/${encodeURIComponent(q.metadata.name ?? '')}`);
    },
  };
  const create = useMutation(trpc.objects.create.mutationOptions(done));
  const update = useMutation(trpc.objects.update.mutationOptions(done));
  const save = base ? update : create;
  const submit = () => {
    setShowErrors(true);
    if (errors.length > 0) return;
    const manifest = stringify(quotaFromDraft(d, base));
    if (base) update.mutate({ manifest, kind: 'ResourceQuota', namespace: d.namespace, name: d.name });
    else create.mutate({ manifest, namespace: d.namespace });
  };
  const setLimit = (i: number, over: Partial<QuotaDraft['limits'][number]>) => setD((p) => ({ ...p, limits: p.limits.map((l, j) => (j === i ? { ...l, ...over } : l)) }));

  return (
    <Stack gap="sm" maw={820}>
      <Title order={1} size="h3">
        {base ? `Edit quota ${base.metadata.name}` : 'Create quota'}
      </Title>
      <Text size="sm" c="dimmed">
        Claims in the namespace are refused once they would pass a limit. Storage limits are sizes (pick the unit, or paste a quantity such as 50Gi); counts are plain numbers.
      </Text>
      <Paper withBorder p="sm" component="form" aria-label="Quota" onSubmit={(e) => (e.preventDefault(), submit())}>
        <Stack gap="xs">
          <Group grow align="flex-start">
            <Select label="Namespace" withAsterisk searchable disabled={Boolean(base)} data={(namespaces.data?.items ?? []).map((n) => n.metadata.name ?? '')} value={d.namespace || null} onChange={(v) => setD((p) => ({ ...p, namespace: v ?? '' }))} error={errorFor('namespace')} />
            <TextInput label="Name" withAsterisk disabled={Boolean(base)} value={d.name} onChange={(e) => {
                // Read now: the updater may run after React has released the event (currentTarget null).
                const name = e.currentTarget.value;
                setD((p) => ({ ...p, name }));
              }} error={errorFor('name')} />
          </Group>
          <Text size="sm" fw={500}>
            Hard limits
          </Text>
          {d.limits.map((l, i) => (
            <LimitRow
              key={i}
              index={i}
              limit={l}
              resources={resources.filter((r) => r === l.resource || !d.limits.some((x) => x.resource === r))}
              used={usedOf(base, l.resource.trim())}
              errorFor={errorFor}
              onChange={(over) => setLimit(i, over)}
              onRemove={() => setD((p) => ({ ...p, limits: p.limits.filter((_, j) => j !== i) }))}
            />
          ))}
          {errorFor('limits') && (
            <Text size="sm" c="red">
              {errorFor('limits')}
            </Text>
          )}
          <Group justify="space-between">
            <Button variant="default" size="xs" onClick={() => setD((p) => ({ ...p, limits: [...p.limits, { ...NEW_LIMIT, resource: resources.find((r) => !p.limits.some((x) => x.resource === r)) ?? '' }] }))}>
              Add limit
            </Button>
            <Button type="submit" loading={save.isPending}>
              {base ? 'Save quota' : 'Create quota'}
            </Button>
          </Group>
          {save.error && (
            <Alert color="red" data-testid="save-error">
              {errorInfo(save.error).message}
            </Alert>
          )}
        </Stack>
      </Paper>
    </Stack>
  );
}

/** What the namespace uses of a resource now, as its quota counted it; undefined for a new quota. */
function usedOf(base: ResourceQuota | undefined, resource: string): string | undefined {
  if (!base?.status) return undefined;
  const used = base.status.used?.[resource];
  return used === undefined || used === null ? '0' : String(used);
}

/** One hard limit: its resource, its amount (a size or a count), and what the namespace uses of it now. */
function LimitRow({
  index: i,
  limit: l,
  resources,
  used,
  errorFor,
  onChange,
  onRemove,
}: {
  index: number;
  limit: LimitDraft;
  resources: string[];
  used: string | undefined;
  errorFor: (field: string) => string | undefined;
  onChange: (over: Partial<LimitDraft>) => void;
  onRemove: () => void;
}) {
  const resource = l.resource.trim();
  const amount = limitAmount(l);
  // The use against the limit as it would be saved (the bar follows the new amount).
  const [shown] = resource ? quotaLimits({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: {}, spec: { hard: { [resource]: amount || '0' } }, status: { used: { [resource]: used ?? '0' } } }) : [];
  return (
    <Stack gap={4} data-testid="quota-limit-row" data-resource={resource}>
      <Group align="flex-start" wrap="wrap" gap="xs">
        <Autocomplete aria-label={`Resource ${i + 1}`} placeholder="requests.storage" data={resources} value={l.resource} onChange={(v) => onChange({ resource: v })} error={errorFor(`limits.${i}.resource`)} style={{ flex: '3 1 260px' }} />
        {isSizeResource(resource) ? (
          <SizeField label={`Amount ${i + 1}`} hideLabel unitLabel={`Unit ${i + 1}`} value={l.size} onChange={(size) => onChange({ size })} error={errorFor(`limits.${i}.amount`)} w={190} />
        ) : (
          <NumberInput aria-label={`Amount ${i + 1}`} placeholder="10" allowDecimal={false} allowNegative={false} min={0} w={190} value={l.count} onChange={(v) => onChange({ count: String(v) })} error={errorFor(`limits.${i}.amount`)} />
        )}
        <CloseButton aria-label={`Remove limit ${i + 1}`} mt={6} onClick={onRemove} />
      </Group>
      {used !== undefined && shown && (
        <Group gap="xs" wrap="nowrap" fz="xs" data-testid="quota-limit-use">
          <Progress value={shown.percent ?? 0} color={shown.full ? 'red' : (shown.percent ?? 0) >= 80 ? 'orange' : 'teal'} size="sm" w={120} aria-label={`${resource}: ${shown.usedText} used of ${amount ? shown.hardText : 'no limit yet'}`} />
          <Text span inherit c={shown.full ? 'red.8' : 'dimmed'} title={`${used} used`}>
            {shown.usedText} used now{amount ? ` of ${shown.hardText}` : ''}
            {shown.full && amount ? ': at or over this limit, new claims are refused' : ''}
          </Text>
        </Group>
      )}
    </Stack>
  );
}
