'use client';
// The StorageClass editor: a form over the kind's own checks (class-draft.ts), a YAML tab
// on the same draft, and the default switch, which moves the default mark in one step of
// its own so there is only ever one. On an existing class the fields upstream forbids
// changing are explained; "Clone and replace" makes a class with the changes under a new
// name, or replaces the class in place under its own name (one server transaction), after
// a preview of every difference and of each step.
import { Stack, Tabs, Text, Title } from '@mantine/core';
import type { StorageClass } from '@/server/resources/storage-class/schema';
import { YamlEditor } from '../forms/yaml-editor';
import { FormErrors, SaveError } from '../forms/field-errors';
import { classFromDraft } from './class-draft';
import { ClassFormActions, CloneHint, IdentitySection, LockedChanges, OptionsSection, ProvisioningSection } from './class-form-sections';
import { ClonePreview } from './clone-preview';
import { SeveralDefaultsAlert } from './default-class-switch';
import { useClassForm, useClassYaml } from './use-class-form';

export function ClassForm({ base }: { base?: StorageClass }) {
  const f = useClassForm(base);
  const y = useClassYaml(f);
  const title = !base ? 'Create storage class' : f.cloning ? `${f.inPlace ? 'Replace in place' : 'Clone and replace'} ${base.metadata.name}` : `Edit storage class ${base.metadata.name}`;

  return (
    <Stack gap="sm" maw={820}>
      <Title order={1} size="h3">
        {title}
      </Title>
      <SeveralDefaultsAlert defaults={f.defaults} />
      {f.cloning && <CloneHint f={f} />}
      <Tabs value={y.tab} onChange={y.toTab} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="form">Form</Tabs.Tab>
          <Tabs.Tab value="yaml">YAML</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="form" pt="sm">
          <Stack gap="sm" component="form" onSubmit={(e) => e.preventDefault()} aria-label="Storage class">
            <IdentitySection f={f} />
            <ProvisioningSection f={f} />
            <OptionsSection f={f} />
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="yaml" pt="sm">
          <Stack gap="xs">
            <Text size="sm" c="dimmed">
              The same class as the form: changes here show in the form, and the same checks apply.
            </Text>
            <YamlEditor value={y.yamlText} onChange={y.onYaml} height="420px" />
            {y.yamlError && (
              <Text size="sm" c="red" role="alert">
                {y.yamlError}
              </Text>
            )}
          </Stack>
        </Tabs.Panel>
      </Tabs>
      <LockedChanges f={f} />
      {f.showErrors && <FormErrors errors={f.errors} />}
      {f.serverError && <SaveError title="The server refused the class" message={f.serverError.message} causes={[]} />}
      <ClassFormActions f={f} yamlError={y.yamlError} />
      {f.cloning && base && (
        <ClonePreview
          opened={f.previewing}
          onClose={() => f.setPreviewing(false)}
          original={base}
          // In place, the class keeps its labels, annotations and topologies (the server drops its uid and versions).
          clone={classFromDraft(f.draft, f.inPlace ? base : undefined)}
          moveDefault={f.makeDefault}
          inPlace={f.inPlace}
          onDone={(name) => void f.done(name)}
        />
      )}
    </Stack>
  );
}
