'use client';
// The static PersistentVolume form: a source (host path, a local path on a node chosen
// from the nodes, NFS, CSI), capacity, access and volume modes, reclaim policy, class,
// node affinity and mount options, checked as the API checks them (volume-draft.ts). Its
// state is useVolumeForm; its sections are volume-form-sections.tsx.
import { Button, Group, Stack, Text, Title } from '@mantine/core';
import { errorInfo } from '../format/format';
import { FormErrors, SaveError } from '../forms/field-errors';
import { useVolumeForm } from './use-volume-form';
import { VolumeDetailsSection, VolumeSourceSection } from './volume-form-sections';

export function VolumeForm() {
  // "Create a matching volume" on a claim's page opens the form filled in for that claim.
  const f = useVolumeForm();
  const { errors, showErrors, create } = f;
  return (
    <Stack gap="sm" maw={820}>
      <Title order={1} size="h3">
        Create volume
      </Title>
      <Text size="sm" c="dimmed">
        A volume an administrator makes available for claims to bind (no provisioner involved).
      </Text>
      <Stack gap="sm" component="form" aria-label="Volume" onSubmit={(e) => e.preventDefault()}>
        <VolumeSourceSection f={f} />
        <VolumeDetailsSection f={f} />
      </Stack>
      {showErrors && <FormErrors errors={errors} />}
      {create.error && <SaveError title="The server refused the volume" message={errorInfo(create.error).message} causes={errorInfo(create.error).causes} />}
      <Group justify="flex-end">
        <Button variant="default" onClick={f.back}>
          Cancel
        </Button>
        <Button onClick={f.submit} loading={create.isPending} data-testid="save-volume">
          Create
        </Button>
      </Group>
    </Stack>
  );
}
