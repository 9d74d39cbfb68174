'use client';
// The sections of the StorageClass editor: the class itself (name, description, default),
// provisioning (fixed once the class exists), options, and what surrounds the form (the
// clone hint, fields that cannot change, the buttons).
import { Alert, Button, Group, List, Paper, Select, Stack, Switch, Text, Textarea, TextInput } from '@mantine/core';
import { useRouter } from 'next/navigation';
import { errorFor, PROVISIONERS, provisionerChoice } from './class-draft';
import { ClassParameterFields } from './class-parameter-fields';
import type { ClassFormState } from './use-class-form';

const OTHER = '__other__';
const IMMUTABLE_HINT = 'Fixed once the class exists (the API forbids changing it): use Clone and replace to change it.';

export function CloneHint({ f }: { f: ClassFormState }) {
  const name = f.base!.metadata.name;
  return (
    <Alert color="blue" title="Clone and replace" data-testid="clone-hint">
      A class&apos;s provisioner, parameters, reclaim policy and binding mode cannot change in place. Change them here: a new class is created under the new
      name; you choose whether the default moves to it and whether {name} is deleted. Volumes and claims that name {name}{' '}
      keep that name.
      <Switch
        mt="xs"
        label={`Replace in place: keep the name ${name}`}
        description="Deletes the class and creates the changed one under the same name, in one transaction."
        checked={f.inPlace}
        onChange={(e) => f.replaceInPlace(e.currentTarget.checked)}
        data-testid="replace-in-place"
      />
    </Alert>
  );
}

export function IdentitySection({ f }: { f: ClassFormState }) {
  const { draft, setDraft, editing, inPlace, defaults, base } = f;
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <TextInput
          label="Name"
          withAsterisk
          value={draft.name}
          onChange={(e) => setDraft({ ...draft, name: e.currentTarget.value })}
          disabled={editing || inPlace}
          description={
            editing ? 'A class keeps its name; clone it to make one under another name.' : inPlace ? 'Replaced in place: the name stays.' : 'Lower case letters, digits, - and .'
          }
          error={errorFor(f.shown, 'metadata.name')}
        />
        <TextInput
          label="Description"
          description="Shown to developers when they pick a class"
          value={draft.description}
          onChange={(e) => setDraft({ ...draft, description: e.currentTarget.value })}
        />
        <Switch
          label="Default class"
          description={
            defaults.length > 0 && !defaults.includes(base?.metadata.name ?? '\u0000')
              ? `Claims that name no class get this one. ${defaults.join(', ')} stops being the default in the same step.`
              : 'Claims that name no class get this one. There is only ever one default.'
          }
          checked={f.makeDefault}
          onChange={(e) => f.setMakeDefault(e.currentTarget.checked)}
          data-testid="form-default-switch"
        />
      </Stack>
    </Paper>
  );
}

export function ProvisioningSection({ f }: { f: ClassFormState }) {
  const { draft, setDraft, shown } = f;
  const immutable = f.editing;
  const choice = provisionerChoice(draft.provisioner);
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Text fw={600} size="sm">
          Provisioning
        </Text>
        {immutable && (
          <Group justify="space-between" wrap="nowrap">
            <Text size="xs" c="dimmed">
              {IMMUTABLE_HINT}
            </Text>
            <Button size="xs" variant="light" onClick={f.startClone} data-testid="start-clone">
              Clone and replace…
            </Button>
          </Group>
        )}
        <Select
          label="Provisioner"
          withAsterisk
          data={[...PROVISIONERS.map((p) => ({ value: p.value, label: p.label })), { value: OTHER, label: 'External provisioner (type its name)' }]}
          value={choice ? draft.provisioner : OTHER}
          onChange={(v) => setDraft({ ...draft, provisioner: v === OTHER || !v ? '' : v, parameters: [] })}
          allowDeselect={false}
          disabled={immutable}
          error={choice ? errorFor(shown, 'provisioner') : undefined}
        />
        {!choice && (
          <TextInput
            label="External provisioner name"
            placeholder="example.com/nfs"
            withAsterisk
            value={draft.provisioner}
            onChange={(e) => setDraft({ ...draft, provisioner: e.currentTarget.value })}
            disabled={immutable}
            error={errorFor(shown, 'provisioner')}
          />
        )}
        {choice?.hint && (
          <Text size="xs" c="dimmed">
            {choice.hint}
          </Text>
        )}
        <ClassParameterFields draft={draft} onChange={setDraft} errors={shown} disabled={immutable} />
        <PolicySelects f={f} />
      </Stack>
    </Paper>
  );
}

function PolicySelects({ f }: { f: ClassFormState }) {
  const { draft, setDraft, shown } = f;
  return (
    <Group grow align="flex-start">
      <Select
        label="Reclaim policy"
        description="What happens to a provisioned volume when its claim goes"
        data={['Delete', 'Retain']}
        value={draft.reclaimPolicy}
        onChange={(v) => v && setDraft({ ...draft, reclaimPolicy: v })}
        allowDeselect={false}
        disabled={f.editing}
        error={errorFor(shown, 'reclaimPolicy')}
      />
      <Select
        label="Binding mode"
        description="WaitForFirstConsumer binds on the node of the first pod"
        data={['Immediate', 'WaitForFirstConsumer']}
        value={draft.volumeBindingMode}
        onChange={(v) => v && setDraft({ ...draft, volumeBindingMode: v })}
        allowDeselect={false}
        disabled={f.editing}
        error={errorFor(shown, 'volumeBindingMode')}
      />
    </Group>
  );
}

export function OptionsSection({ f }: { f: ClassFormState }) {
  const { draft, setDraft } = f;
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Switch
          label="Allow volume expansion"
          description="Claims of this class may grow after they are bound"
          checked={draft.allowVolumeExpansion}
          onChange={(e) => setDraft({ ...draft, allowVolumeExpansion: e.currentTarget.checked })}
        />
        <Textarea
          label="Mount options"
          description="One per line, e.g. noatime"
          autosize
          minRows={2}
          value={draft.mountOptions}
          onChange={(e) => setDraft({ ...draft, mountOptions: e.currentTarget.value })}
          error={errorFor(f.shown, 'mountOptions')}
        />
      </Stack>
    </Paper>
  );
}

export function LockedChanges({ f }: { f: ClassFormState }) {
  if (f.locked.length === 0) return null;
  return (
    <Alert color="orange" title="These fields cannot change in place" data-testid="immutable-changes">
      <List size="sm">
        {f.locked.map((c) => (
          <List.Item key={c.field}>
            {c.field}: {c.before || '(none)'} → {c.after || '(none)'}
          </List.Item>
        ))}
      </List>
    </Alert>
  );
}

export function ClassFormActions({ f, yamlError }: { f: ClassFormState; yamlError: string | null }) {
  const router = useRouter();
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={() => router.back()}>
        Cancel
      </Button>
      {f.cloning ? (
        <Button onClick={f.preview} data-testid="preview-clone">
          {f.inPlace ? 'Preview replacement…' : 'Preview clone…'}
        </Button>
      ) : (
        <Button onClick={() => void f.save()} loading={f.pending} disabled={!!yamlError} data-testid="save-class">
          {f.editing ? 'Save' : 'Create'}
        </Button>
      )}
    </Group>
  );
}
