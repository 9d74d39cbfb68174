'use client';
// Request storage: a developer's claim form. The class picker starts on the default
// class and says what each class is; only the modes the class's provisioner can make
// are offered; the size has units and bounds; and before anything is created the
// server says what the claim would do (binds now / will be provisioned / would sit
// Pending, and why), from the binder's own search. The YAML tab shows the same claim.
// The namespace.s quotas say how much room is left, and warn before a create they would refuse.
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  List,
  Loader,
  NumberInput,
  Paper,
  Radio,
  SegmentedControl,
  Select,
  Stack,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useMemo, useState } from 'react';
import { isDNS1123Subdomain } from '@/server/domain/names';
import { errorInfo } from '../format/format';
import { SaveError } from '../forms/field-errors';
import { detailHref } from '../objects/kinds';
import { usePermissions } from '../session/session';
import { useTRPC } from '../data/trpc';
import { claimOf, fitModes, SIZE_UNITS, sizeProblem, yamlOf, type ClaimDraft, type SizeUnit } from './claim-draft';
import { QuotaRoom, useQuotaRoom } from './quota-room';

const NO_CLASS = '__none__';
const MODE_HELP: Record<string, string> = {
  ReadWriteOnce: 'read-write by one node',
  ReadOnlyMany: 'read-only by many nodes',
  ReadWriteMany: 'read-write by many nodes',
  ReadWriteOncePod: 'read-write by one pod',
};

export function ClaimForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const params = useSearchParams();
  const perms = usePermissions();
  const nsChoices = perms.namespacesFor('create', 'PersistentVolumeClaim');
  const allNs = useQuery({ ...trpc.lists.page.queryOptions({ kind: 'Namespace', limit: 500 }), enabled: nsChoices === 'all' });
  const namespaces = nsChoices === 'all' ? (allNs.data?.items ?? []).map((n) => n.metadata.name ?? '').filter(Boolean) : nsChoices;
  const classes = useQuery(trpc.claims.classes.queryOptions());

  const [draft, setDraft] = useState<ClaimDraft>({
    namespace: params.get('namespace') ?? (nsChoices === 'all' ? 'default' : (nsChoices[0] ?? '')),
    name: '',
    storageClassName: '',
    accessModes: ['ReadWriteOnce'],
    volumeMode: 'Filesystem',
    size: 1,
    unit: 'Gi',
  });
  const [classPicked, setClassPicked] = useState(false);
  const set = (p: Partial<ClaimDraft>) => setDraft((d) => ({ ...d, ...p }));

  // Start on the default class, once the classes are known.
  useEffect(() => {
    if (classPicked || !classes.data) return;
    const def = classes.data.find((c) => c.isDefault);
    if (def) setDraft((d) => ({ ...d, storageClassName: def.name, accessModes: fitModes(d.accessModes, def.accessModes) }));
  }, [classes.data, classPicked]);

  const cls = classes.data?.find((c) => c.name === draft.storageClassName);
  const offeredModes = cls?.accessModes ?? ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];
  const offeredVolumeModes = cls?.volumeModes ?? ['Filesystem', 'Block'];
  const pickClass = (name: string) => {
    setClassPicked(true);
    const c = classes.data?.find((x) => x.name === name);
    setDraft((d) => ({
      ...d,
      storageClassName: name === NO_CLASS ? '' : name,
      accessModes: c ? fitModes(d.accessModes, c.accessModes) : d.accessModes,
      volumeMode: c && !c.volumeModes.includes(d.volumeMode) ? (c.volumeModes[0] as ClaimDraft['volumeMode']) : d.volumeMode,
    }));
  };

  const nameProblem = draft.name && isDNS1123Subdomain(draft.name).length > 0 ? 'Lower-case letters, digits, "-" and "."; start and end with a letter or digit' : undefined;
  const sizeErr = sizeProblem(draft, cls?.minBytes);
  const modesErr = draft.accessModes.length === 0 ? 'Pick at least one' : undefined;
  const complete = Boolean(draft.name && draft.namespace && !nameProblem && !sizeErr && !modesErr);

  // The live check, a moment after the last change.
  const claim = useMemo(() => claimOf(draft), [draft]);
  const [debounced] = useDebouncedValue(claim, 300);
  const check = useQuery({
    ...trpc.claims.check.queryOptions({ claim: debounced as unknown as Record<string, unknown> }),
    enabled: complete,
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
  const quota = useQuotaRoom(claim as unknown as Record<string, unknown>, Boolean(draft.namespace) && !sizeErr);
  const create = useMutation(
    trpc.objects.create.mutationOptions({
      onSuccess: (o) => router.push(detailHref('PersistentVolumeClaim', o.metadata.namespace, o.metadata.name ?? '') ?? '/claims'),
    }),
  );
  const submit = () => complete && create.mutate({ manifest: JSON.stringify(claim), namespace: draft.namespace });

  return (
    <Stack gap="md" maw={860}>
      <Group justify="space-between">
        <Title order={1} size="h3">
          Request storage
        </Title>
        <Anchor component={Link} href="/claims" size="sm">
          Back to claims
        </Anchor>
      </Group>
      <Tabs defaultValue="form">
        <Tabs.List>
          <Tabs.Tab value="form">Form</Tabs.Tab>
          <Tabs.Tab value="yaml">YAML</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="form" pt="md">
          <form
            aria-label="Claim"
            onSubmit={(e) => {
              e.preventDefault();
              submit();
            }}
          >
            <Stack gap="md">
              <Group grow align="flex-start">
                <Select
                  label="Namespace"
                  data={namespaces}
                  value={draft.namespace || null}
                  onChange={(v) => set({ namespace: v ?? '' })}
                  searchable
                  required
                  allowDeselect={false}
                />
                <TextInput
                  label="Name"
                  placeholder="data"
                  value={draft.name}
                  onChange={(e) => set({ name: e.currentTarget.value.trim() })}
                  error={nameProblem}
                  required
                  data-autofocus
                />
              </Group>

              <Radio.Group
                label="Storage class"
                description="How the volume is made. The default class is picked for you."
                value={draft.storageClassName || (classPicked || !classes.data?.some((c) => c.isDefault) ? NO_CLASS : '')}
                onChange={pickClass}
              >
                <Stack gap={6} mt="xs" data-testid="class-picker">
                  {classes.isPending && <Loader size="sm" role="status" aria-label="Loading classes" />}
                  {classes.data?.map((c) => (
                    <Paper key={c.name} withBorder p="xs">
                      <Radio
                        value={c.name}
                        label={
                          <Group gap={6}>
                            <Text fw={600} size="sm">
                              {c.name}
                            </Text>
                            {c.isDefault && (
                              <Badge size="xs" variant="outline" color="indigo.8" tt="none">
                                default
                              </Badge>
                            )}
                            <Code>{c.provisioner}</Code>
                          </Group>
                        }
                        description={
                          <>
                            {c.description ? `${c.description}. ` : ''}
                            {c.volumeBindingMode === 'WaitForFirstConsumer' ? 'Made when a pod first uses it. ' : ''}
                            Reclaim policy {c.reclaimPolicy}.{c.allowVolumeExpansion ? ' Can grow later.' : ''}
                          </>
                        }
                      />
                    </Paper>
                  ))}
                  <Paper withBorder p="xs">
                    <Radio value={NO_CLASS} label="No class" description="Only binds to an existing volume an administrator made without a class." />
                  </Paper>
                </Stack>
              </Radio.Group>

              <Checkbox.Group
                label="Access modes"
                description={cls ? `What ${cls.provisioner} can make` : 'Any the volume offers'}
                value={draft.accessModes}
                onChange={(v) => set({ accessModes: v })}
                error={modesErr}
              >
                <Group gap="md" mt={6}>
                  {offeredModes.map((m) => (
                    <Checkbox key={m} value={m} label={`${m} (${MODE_HELP[m] ?? m})`} />
                  ))}
                </Group>
              </Checkbox.Group>

              <Group align="flex-start" gap="xl">
                <Stack gap={4}>
                  <Text size="sm" fw={500} id="volume-mode-label">
                    Volume mode
                  </Text>
                  <SegmentedControl
                    aria-labelledby="volume-mode-label"
                    data={offeredVolumeModes.map((v) => ({ value: v, label: v === 'Block' ? 'Block (raw device)' : 'Filesystem' }))}
                    value={draft.volumeMode}
                    onChange={(v) => set({ volumeMode: v as ClaimDraft['volumeMode'] })}
                  />
                </Stack>
                <Group gap={6} align="flex-start">
                  <NumberInput
                    label="Size"
                    w={140}
                    min={0}
                    step={1}
                    decimalScale={1}
                    value={draft.size}
                    onChange={(v) => set({ size: typeof v === 'number' ? v : Number(v) })}
                    error={sizeErr}
                    required
                  />
                  <Select label="Unit" w={90} data={[...SIZE_UNITS]} value={draft.unit} onChange={(v) => v && set({ unit: v as SizeUnit })} allowDeselect={false} />
                </Group>
              </Group>

              <CheckResult complete={complete} check={check} />
              <QuotaRoom data={quota} />

              {create.error && <SaveError title="Not created" message={errorInfo(create.error).message} causes={errorInfo(create.error).causes} />}
              <Group>
                <Button type="submit" disabled={!complete} loading={create.isPending}>
                  Create claim
                </Button>
                <Text size="xs" c="dimmed">
                  {quota?.refusal
                    ? 'The quota will refuse it as it is.'
                    : check.data?.outcome === 'pending'
                      ? 'You can still create it: it waits until a volume appears.'
                      : ''}
                </Text>
              </Group>
            </Stack>
          </form>
        </Tabs.Panel>
        <Tabs.Panel value="yaml" pt="md">
          <Stack gap="xs">
            <Text size="sm">The claim this form makes. To write one by hand, use the YAML editor.</Text>
            <Code block data-testid="claim-yaml">
              {yamlOf(draft)}
            </Code>
            <Button component={Link} href={`/new?kind=PersistentVolumeClaim&namespace=${encodeURIComponent(draft.namespace)}`} variant="default" w="fit-content">
              Open the YAML editor
            </Button>
          </Stack>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function CheckResult({ complete, check }: { complete: boolean; check: { data?: CheckData; isFetching: boolean; error: unknown } }) {
  if (!complete) {
    return (
      <Alert color="gray" title="What will happen" data-testid="claim-check" data-outcome="incomplete">
        Fill in a name and a size to see what this claim would do.
      </Alert>
    );
  }
  if (check.error) {
    return (
      <Alert color="red" title="Could not check" data-testid="claim-check" data-outcome="error">
        {errorInfo(check.error).message}
      </Alert>
    );
  }
  const d = check.data;
  if (!d) return <Loader size="sm" role="status" aria-label="Checking" />;
  const color = d.outcome === 'binds' ? 'teal' : d.outcome === 'provisions' ? 'indigo' : d.outcome === 'pending' ? 'orange' : 'red';
  const title =
    d.outcome === 'binds' ? 'Binds now to an existing volume' : d.outcome === 'provisions' ? 'Will be provisioned' : d.outcome === 'pending' ? 'Would sit Pending' : 'Not valid';
  return (
    <Alert color={color} title={title} data-testid="claim-check" data-outcome={d.outcome} aria-live="polite" aria-busy={check.isFetching}>
      <Stack gap={4}>
        <Text size="sm">
          {d.summary}
          {d.outcome === 'binds' && d.volume ? ` (volume ${d.volume})` : ''}
        </Text>
        {d.outcome === 'pending' && d.nearest.length > 0 && (
          <>
            <Text size="sm" fw={500}>
              {d.nearest[0].name ? `Nearest is ${d.nearest[0].name}, because:` : `The nearest of ${d.nearCount} volume${d.nearCount === 1 ? '' : 's'} does not fit, because:`}
            </Text>
            <List size="sm" data-testid="nearest-reasons">
              {d.nearest[0].reasons.map((r) => (
                <List.Item key={r}>{r}</List.Item>
              ))}
            </List>
          </>
        )}
        {d.outcome === 'invalid' && d.causes.length > 0 && (
          <List size="sm">
            {d.causes.map((c) => (
              <List.Item key={`${c.field}:${c.message}`}>
                <Code>{c.field}</Code> {c.message}
              </List.Item>
            ))}
          </List>
        )}
      </Stack>
    </Alert>
  );
}

type CheckData =
  | { outcome: 'binds'; summary: string; volume?: string }
  | { outcome: 'provisions'; summary: string }
  | { outcome: 'pending'; summary: string; nearest: { name: string; reasons: string[] }[]; nearCount: number }
  | { outcome: 'invalid'; summary: string; causes: { field: string; message: string }[] };
