'use client';
// The admin's quota form: a namespace, a name and hard limits (a resource and an amount
// per row; storage resources, per class too, are offered). Creates the quota, or replaces
// the hard limits of an existing one (the rest of it is kept; a stale edit is a conflict).
import { Alert, Autocomplete, Button, CloseButton, Group, Paper, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useMemo, useState } from 'react';
import { stringify } from 'yaml';
import type { ResourceQuota } from '@/server/resources/resource-quota/schema';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';
import { draftFromQuota, EMPTY_QUOTA, quotaDraftErrors, quotaFromDraft, storageResources, type QuotaDraft } from './quota-draft';

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
        Claims in the namespace are refused once they would pass a limit. Sizes take units (50Gi, 2Ti); counts are plain numbers.
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
            <Group key={i} align="flex-start" wrap="nowrap" data-testid="quota-limit-row">
              <Autocomplete aria-label={`Resource ${i + 1}`} placeholder="requests.storage" data={resources} value={l.resource} onChange={(v) => setLimit(i, { resource: v })} error={errorFor(`limits.${i}.resource`)} style={{ flex: 3 }} />
              <TextInput aria-label={`Amount ${i + 1}`} placeholder="50Gi" value={l.amount} onChange={(e) => setLimit(i, { amount: e.currentTarget.value })} error={errorFor(`limits.${i}.amount`)} style={{ flex: 1 }} />
              <CloseButton aria-label={`Remove limit ${i + 1}`} mt={6} onClick={() => setD((p) => ({ ...p, limits: p.limits.filter((_, j) => j !== i) }))} />
            </Group>
          ))}
          {errorFor('limits') && (
            <Text size="sm" c="red">
              {errorFor('limits')}
            </Text>
          )}
          <Group justify="space-between">
            <Button variant="default" size="xs" onClick={() => setD((p) => ({ ...p, limits: [...p.limits, { resource: '', amount: '' }] }))}>
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
