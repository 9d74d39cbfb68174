'use client';
// The StorageClass editor: a form over the kind's own checks (class-draft.ts), a YAML tab
// on the same draft, and the default switch, which moves the default mark in one step of
// its own so there is only ever one. On an existing class the fields upstream forbids
// changing are explained; "Clone and replace" makes a class with the changes under a new
// name, or replaces the class in place under its own name (one server transaction), after
// a preview of every difference and of each step.
import { Alert, Button, Group, List, Paper, Select, Stack, Switch, Tabs, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useMemo, useState } from 'react';
import { parse, stringify } from 'yaml';
import type { FieldError } from '@/server/domain/errors';
import type { KubeObject } from '@/server/resources/types';
import { errorInfo } from '../format/format';
import { isDefaultClass } from '../objects/kinds';
import { useTRPC } from '../data/trpc';
import { YamlEditor } from '../forms/yaml-editor';
import { classFromDraft, draftErrors, draftFromClass, emptyDraft, errorFor, immutableChanges, PROVISIONERS, provisionerChoice, type ClassDraft } from './class-draft';
import { ClassParameterFields } from './class-parameter-fields';
import { ClonePreview } from './clone-preview';
import { SeveralDefaultsAlert } from './default-class-switch';
import { FormErrors, SaveError } from '../forms/field-errors';

const OTHER = '__other__';
const IMMUTABLE_HINT = 'Fixed once the class exists (the API forbids changing it): use Clone and replace to change it.';

export function ClassForm({ base }: { base?: KubeObject }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<ClassDraft>(() => (base ? draftFromClass(base) : emptyDraft()));
  const [cloning, setCloning] = useState(false);
  const [inPlace, setInPlace] = useState(false);
  const [yamlBase, setYamlBase] = useState<KubeObject | undefined>(undefined);
  const [yamlText, setYamlText] = useState('');
  const [yamlError, setYamlError] = useState<string | null>(null);
  const [tab, setTab] = useState<string | null>('form');
  const [makeDefault, setMakeDefault] = useState(base ? isDefaultClass(base) : false);
  const [showErrors, setShowErrors] = useState(false);
  const [previewing, setPreviewing] = useState(false);
  const [serverError, setServerError] = useState<{ message: string; causes: FieldError[] } | null>(null);

  const classes = useQuery(trpc.lists.page.queryOptions({ kind: 'StorageClass', limit: 500 }));
  const defaults = (classes.data?.items ?? []).filter(isDefaultClass).map((c) => c.metadata.name ?? '');

  const editing = !!base && !cloning;
  const formBase = editing ? base : yamlBase;
  const obj = useMemo(() => classFromDraft(draft, formBase), [draft, formBase]);
  const errors = useMemo(() => [...draftErrors(draft, editing ? base : undefined), ...(serverError?.causes ?? [])], [draft, editing, base, serverError]);
  const shown = showErrors ? errors : (serverError?.causes ?? []);
  const locked = base && editing ? immutableChanges(base, draft) : [];

  const done = async (name: string) => {
    await queryClient.invalidateQueries();
    router.push(`/storage-classes/${encodeURIComponent(name)}`);
  };
  const fail = (e: unknown) => {
    const info = errorInfo(e);
    setServerError({ message: info.message, causes: info.causes.map((c) => ({ field: c.field, reason: (c.reason ?? 'FieldValueInvalid') as FieldError['reason'], message: c.message })) });
  };
  const setDefault = useMutation(trpc.lists.setDefaultClass.mutationOptions());
  const create = useMutation(trpc.objects.create.mutationOptions());
  const update = useMutation(trpc.objects.update.mutationOptions());
  const pending = create.isPending || update.isPending || setDefault.isPending;

  const save = async () => {
    setShowErrors(true);
    setServerError(null);
    if (errors.length > 0) return;
    const name = obj.metadata.name!;
    try {
      if (editing) {
        await update.mutateAsync({ manifest: stringify(obj), kind: 'StorageClass', name });
        if (makeDefault !== isDefaultClass(base!)) await setDefault.mutateAsync({ name, on: makeDefault });
      } else {
        await create.mutateAsync({ manifest: stringify(obj) });
        if (makeDefault) await setDefault.mutateAsync({ name, on: true });
      }
      await done(name);
    } catch (e) {
      fail(e);
    }
  };

  const toYamlTab = (next: string | null) => {
    if (next === 'yaml') {
      setYamlText(stringify(obj));
      setYamlError(null);
    }
    setTab(next);
  };
  const onYaml = (text: string) => {
    setYamlText(text);
    try {
      const parsed = parse(text) as KubeObject;
      if (!parsed || typeof parsed !== 'object' || parsed.kind !== 'StorageClass' || !parsed.metadata || typeof parsed.metadata !== 'object') {
        setYamlError('The YAML must be one StorageClass (kind: StorageClass, with metadata)');
        return;
      }
      setYamlError(null);
      const next = draftFromClass(parsed);
      setDraft(editing ? { ...next, name: draft.name } : next);
      if (!editing) setYamlBase(parsed);
    } catch (e) {
      setYamlError(`Not valid YAML: ${(e as Error).message.split('\n')[0]}`);
    }
  };

  const startClone = () => {
    setCloning(true);
    setShowErrors(false);
    setServerError(null);
    setDraft((d) => ({ ...d, name: `${base!.metadata.name}-2` }));
  };

  const choice = provisionerChoice(draft.provisioner);
  const provisionerSelect = choice ? draft.provisioner : OTHER;
  const immutable = editing;
  const title = !base ? 'Create storage class' : cloning ? `${inPlace ? 'Replace in place' : 'Clone and replace'} ${base.metadata.name}` : `Edit storage class ${base.metadata.name}`;

  return (
    <Stack gap="sm" maw={820}>
      <Title order={1} size="h3">
        {title}
      </Title>
      <SeveralDefaultsAlert defaults={defaults} />
      {cloning && (
        <Alert color="blue" title="Clone and replace" data-testid="clone-hint">
          A class&apos;s provisioner, parameters, reclaim policy and binding mode cannot change in place. Change them here: a new class is created under the new
          name; you choose whether the default moves to it and whether {base!.metadata.name} is deleted. Volumes and claims that name {base!.metadata.name}{' '}
          keep that name.
          <Switch
            mt="xs"
            label={`Replace in place: keep the name ${base!.metadata.name}`}
            description="Deletes the class and creates the changed one under the same name, in one transaction."
            checked={inPlace}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              setInPlace(on);
              setDraft((d) => ({ ...d, name: on ? base!.metadata.name! : `${base!.metadata.name}-2` }));
            }}
            data-testid="replace-in-place"
          />
        </Alert>
      )}
      <Tabs value={tab} onChange={toYamlTab} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="form">Form</Tabs.Tab>
          <Tabs.Tab value="yaml">YAML</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="form" pt="sm">
          <Stack gap="sm" component="form" onSubmit={(e) => e.preventDefault()} aria-label="Storage class">
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
                  error={errorFor(shown, 'metadata.name')}
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
                  checked={makeDefault}
                  onChange={(e) => setMakeDefault(e.currentTarget.checked)}
                  data-testid="form-default-switch"
                />
              </Stack>
            </Paper>
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
                    <Button size="xs" variant="light" onClick={startClone} data-testid="start-clone">
                      Clone and replace…
                    </Button>
                  </Group>
                )}
                <Select
                  label="Provisioner"
                  withAsterisk
                  data={[...PROVISIONERS.map((p) => ({ value: p.value, label: p.label })), { value: OTHER, label: 'External provisioner (type its name)' }]}
                  value={provisionerSelect}
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
                <Group grow align="flex-start">
                  <Select
                    label="Reclaim policy"
                    description="What happens to a provisioned volume when its claim goes"
                    data={['Delete', 'Retain']}
                    value={draft.reclaimPolicy}
                    onChange={(v) => v && setDraft({ ...draft, reclaimPolicy: v })}
                    allowDeselect={false}
                    disabled={immutable}
                    error={errorFor(shown, 'reclaimPolicy')}
                  />
                  <Select
                    label="Binding mode"
                    description="WaitForFirstConsumer binds on the node of the first pod"
                    data={['Immediate', 'WaitForFirstConsumer']}
                    value={draft.volumeBindingMode}
                    onChange={(v) => v && setDraft({ ...draft, volumeBindingMode: v })}
                    allowDeselect={false}
                    disabled={immutable}
                    error={errorFor(shown, 'volumeBindingMode')}
                  />
                </Group>
              </Stack>
            </Paper>
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
                  error={errorFor(shown, 'mountOptions')}
                />
              </Stack>
            </Paper>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="yaml" pt="sm">
          <Stack gap="xs">
            <Text size="sm" c="dimmed">
              The same class as the form: changes here show in the form, and the same checks apply.
            </Text>
            <YamlEditor value={yamlText} onChange={onYaml} height="420px" />
            {yamlError && (
              <Text size="sm" c="red" role="alert">
                {yamlError}
              </Text>
            )}
          </Stack>
        </Tabs.Panel>
      </Tabs>
      {locked.length > 0 && (
        <Alert color="orange" title="These fields cannot change in place" data-testid="immutable-changes">
          <List size="sm">
            {locked.map((c) => (
              <List.Item key={c.field}>
                {c.field}: {c.before || '(none)'} → {c.after || '(none)'}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      {showErrors && <FormErrors errors={errors} />}
      {serverError && <SaveError title="The server refused the class" message={serverError.message} causes={[]} />}
      <Group justify="flex-end">
        <Button variant="default" onClick={() => router.back()}>
          Cancel
        </Button>
        {cloning ? (
          <Button
            onClick={() => {
              setShowErrors(true);
              if (errors.length === 0) setPreviewing(true);
            }}
            data-testid="preview-clone"
          >
            {inPlace ? 'Preview replacement…' : 'Preview clone…'}
          </Button>
        ) : (
          <Button onClick={() => void save()} loading={pending} disabled={!!yamlError} data-testid="save-class">
            {editing ? 'Save' : 'Create'}
          </Button>
        )}
      </Group>
      {cloning && base && (
        <ClonePreview
          opened={previewing}
          onClose={() => setPreviewing(false)}
          original={base}
          // In place, the class keeps its labels, annotations and topologies (the server drops its uid and versions).
          clone={classFromDraft(draft, inPlace ? base : undefined)}
          moveDefault={makeDefault}
          inPlace={inPlace}
          onDone={(name) => void done(name)}
        />
      )}
    </Stack>
  );
}
