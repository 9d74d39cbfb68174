'use client';
// The sections of the claim form: where the claim goes (namespace, name), its class, its
// modes and size, and the row with the create button.
import { Badge, Button, Checkbox, Code, Group, Loader, Paper, Radio, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import type { ClaimDraft } from './claim-draft';
import { SizeField } from '../forms/size-field';
import { NO_CLASS, type ClaimFormState } from './use-claim-form';
import { plural, sentence } from '../format/format';

const MODE_HELP: Record<string, string> = {
  ReadWriteOnce: 'read-write by one node',
  ReadOnlyMany: 'read-only by many nodes',
  ReadWriteMany: 'read-write by many nodes',
  ReadWriteOncePod: 'read-write by one pod',
};

export function PlaceFields({ f }: { f: ClaimFormState }) {
  return (
    <Group grow align="flex-start">
      <Select
        label="Namespace"
        data={f.namespaces}
        value={f.draft.namespace || null}
        onChange={(v) => f.set({ namespace: v ?? '' })}
        searchable
        required
        allowDeselect={false}
      />
      <TextInput
        label="Name"
        placeholder="data"
        value={f.draft.name}
        onChange={(e) => f.set({ name: e.currentTarget.value.trim() })}
        error={f.nameProblem}
        required
        data-autofocus
      />
    </Group>
  );
}

export function ClassPicker({ f }: { f: ClaimFormState }) {
  const { classes, draft, classPicked } = f;
  return (
    <Radio.Group
      label="Storage class"
      description="How the volume is made. The default class is picked for you."
      value={draft.storageClassName || (classPicked || !classes.data?.some((c) => c.isDefault) ? NO_CLASS : '')}
      onChange={f.pickClass}
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
                  {c.staticOnly && (
                    <Badge size="xs" variant="default" tt="none" data-testid="class-static">
                      {c.availableVolumes ? `${plural(c.availableVolumes, 'volume', 'volumes')} available` : 'no volume available'}
                    </Badge>
                  )}
                </Group>
              }
              description={
                <>
                  {c.staticOnly ? 'Makes no volumes: the claim binds only to a volume an administrator made for this class. ' : ''}
                  {c.description ? `${sentence(c.description)} ` : ''}
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
  );
}

export function AccessModes({ f }: { f: ClaimFormState }) {
  const offeredModes = f.cls?.accessModes ?? ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'];
  return (
    <Checkbox.Group
      label="Access modes"
      description={f.cls ? `What ${f.cls.provisioner} can make` : 'Any the volume offers'}
      value={f.draft.accessModes}
      onChange={(v) => f.set({ accessModes: v })}
      error={f.modesErr}
    >
      <Group gap="md" mt={6}>
        {offeredModes.map((m) => (
          <Checkbox key={m} value={m} label={`${m} (${MODE_HELP[m] ?? m})`} />
        ))}
      </Group>
    </Checkbox.Group>
  );
}

export function ModeAndSize({ f }: { f: ClaimFormState }) {
  const { draft, set } = f;
  const offeredVolumeModes = f.cls?.volumeModes ?? ['Filesystem', 'Block'];
  return (
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
      <SizeField label="Size" value={{ size: draft.size, unit: draft.unit }} onChange={(v) => set(v)} error={f.sizeErr} required />
    </Group>
  );
}

export function SubmitRow({ f }: { f: ClaimFormState }) {
  return (
    <Group>
      <Button type="submit" disabled={!f.complete || f.overQuota} loading={f.create.isPending} data-testid="create-claim">
        Create claim
      </Button>
      <Text size="xs" c="dimmed">
        {f.overQuota
          ? 'Over the quota: request less to create it.'
          : f.check.data?.outcome === 'pending'
            ? 'You can still create it: it waits until a volume appears.'
            : ''}
      </Text>
    </Group>
  );
}
