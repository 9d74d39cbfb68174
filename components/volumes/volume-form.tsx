'use client';
// The static PersistentVolume form: a source (host path, a local path on a node chosen
// from the nodes, NFS, CSI), capacity, access and volume modes, reclaim policy, class,
// node affinity and mount options, checked as the API checks them (volume-draft.ts).
import { Autocomplete, Button, Checkbox, Group, MultiSelect, Paper, SegmentedControl, Select, Stack, Switch, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter, useSearchParams } from 'next/navigation';
import { useMemo, useState } from 'react';
import { stringify } from 'yaml';
import { errorInfo } from '../format/format';
import { useTRPC } from '../data/trpc';
import { ACCESS_MODES, draftFromParams, HOST_PATH_TYPES, SOURCE_LABELS, SOURCES, volumeDraftErrors, volumeErrorFor, volumeFromDraft, type VolumeDraft } from './volume-draft';
import { FormErrors, SaveError } from '../forms/field-errors';
import { SizeField } from '../forms/size-field';

export function VolumeForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const params = useSearchParams();
  // "Create a matching volume" on a claim's page opens the form filled in for that claim.
  const [d, setD] = useState<VolumeDraft>(() => draftFromParams((k) => params.get(k)));
  const [showErrors, setShowErrors] = useState(false);
  const nodes = useQuery(trpc.lists.page.queryOptions({ kind: 'Node', limit: 500 }));
  const classes = useQuery(trpc.lists.page.queryOptions({ kind: 'StorageClass', limit: 500 }));
  const nodeNames = (nodes.data?.items ?? []).map((n) => n.metadata.name ?? '');
  const classNames = (classes.data?.items ?? []).map((c) => c.metadata.name ?? '');
  const errors = useMemo(() => volumeDraftErrors(d), [d]);
  const shown = showErrors ? errors : [];
  const create = useMutation(
    trpc.objects.create.mutationOptions({
      onSuccess: async (pv) => {
        await queryClient.invalidateQueries();
        router.push(`/volumes/${encodeURIComponent(pv.metadata.name ?? '')}`);
      },
    }),
  );
  const set = (over: Partial<VolumeDraft>) => setD((prev) => ({ ...prev, ...over }));
  const submit = () => {
    setShowErrors(true);
    if (errors.length === 0) create.mutate({ manifest: stringify(volumeFromDraft(d)) });
  };
  const serverCauses = create.error ? errorInfo(create.error).causes : [];

  return (
    <Stack gap="sm" maw={820}>
      <Title order={1} size="h3">
        Create volume
      </Title>
      <Text size="sm" c="dimmed">
        A volume an administrator makes available for claims to bind (no provisioner involved).
      </Text>
      <Stack gap="sm" component="form" aria-label="Volume" onSubmit={(e) => e.preventDefault()}>
        <Paper withBorder p="sm">
          <Stack gap="xs">
            <TextInput label="Name" withAsterisk value={d.name} onChange={(e) => set({ name: e.currentTarget.value })} error={volumeErrorFor(shown, 'metadata.name')} />
            <Text size="sm" fw={500} id="source-label">
              Source
            </Text>
            <SegmentedControl
              aria-labelledby="source-label"
              data={SOURCES.map((s) => ({ value: s, label: SOURCE_LABELS[s] }))}
              value={d.source}
              onChange={(v) => set({ source: v })}
            />
            {d.source === 'nfs' && (
              <TextInput label="NFS server" withAsterisk placeholder="nfs.example.com" value={d.nfsServer} onChange={(e) => set({ nfsServer: e.currentTarget.value })} error={volumeErrorFor(shown, 'spec.nfs.server')} />
            )}
            {d.source === 'csi' ? (
              <Group grow align="flex-start">
                <TextInput label="CSI driver" withAsterisk placeholder="csi.example.com" value={d.csiDriver} onChange={(e) => set({ csiDriver: e.currentTarget.value })} error={volumeErrorFor(shown, 'spec.csi.driver')} />
                <TextInput label="Volume handle" withAsterisk value={d.csiVolumeHandle} onChange={(e) => set({ csiVolumeHandle: e.currentTarget.value })} error={volumeErrorFor(shown, 'spec.csi.volumeHandle')} />
              </Group>
            ) : (
              <TextInput
                label={d.source === 'nfs' ? 'Export path' : d.source === 'local' ? 'Path on the node' : 'Path on the host'}
                withAsterisk
                placeholder={d.source === 'nfs' ? '/exports/data' : '/srv/volumes/a'}
                value={d.path}
                onChange={(e) => set({ path: e.currentTarget.value })}
                error={volumeErrorFor(shown, `spec.${d.source}.path`, `spec.${d.source}`)}
              />
            )}
            {d.source === 'hostPath' && (
              <Select label="Host path type" data={HOST_PATH_TYPES.map((t) => ({ value: t, label: t || '(no check)' }))} value={d.hostPathType} onChange={(v) => set({ hostPathType: v ?? '' })} allowDeselect={false} />
            )}
            {(d.source === 'local' || d.source === 'csi') && <TextInput label="Filesystem type" placeholder="ext4" value={d.fsType} onChange={(e) => set({ fsType: e.currentTarget.value })} />}
            {(d.source === 'nfs' || d.source === 'csi') && <Switch label="Read-only" checked={d.readOnly} onChange={(e) => set({ readOnly: e.currentTarget.checked })} />}
            {d.source === 'local' ? (
              <Select
                label="Node"
                description="The node whose disk this is: claims bind it only for pods there"
                withAsterisk
                searchable
                data={nodeNames}
                value={d.nodes[0] ?? null}
                onChange={(v) => set({ nodes: v ? [v] : [] })}
                error={volumeErrorFor(shown, 'spec.nodeAffinity')}
                nothingFoundMessage="No such node"
              />
            ) : (
              <MultiSelect
                label="Only on nodes"
                description="Optional node affinity: pods using the volume run only on these nodes"
                searchable
                data={nodeNames}
                value={d.nodes}
                onChange={(v) => set({ nodes: v })}
                error={volumeErrorFor(shown, 'spec.nodeAffinity')}
              />
            )}
          </Stack>
        </Paper>
        <Paper withBorder p="sm">
          <Stack gap="xs">
            <Group grow align="flex-start">
              <SizeField label="Capacity" required value={d.capacity} onChange={(capacity) => set({ capacity })} error={volumeErrorFor(shown, 'spec.capacity')} w="100%" />
              <Autocomplete label="Storage class" description="Claims of this class may bind it; empty: claims without a class" data={classNames} value={d.storageClassName} onChange={(v) => set({ storageClassName: v })} error={volumeErrorFor(shown, 'spec.storageClassName')} />
            </Group>
            <Checkbox.Group label="Access modes" withAsterisk value={d.accessModes} onChange={(v) => set({ accessModes: v })} error={volumeErrorFor(shown, 'spec.accessModes')}>
              <Group gap="md" mt={4}>
                {ACCESS_MODES.map((m) => (
                  <Checkbox key={m} value={m} label={m} />
                ))}
              </Group>
            </Checkbox.Group>
            <Group grow align="flex-start">
              <Select label="Volume mode" data={['Filesystem', 'Block']} value={d.volumeMode} onChange={(v) => v && set({ volumeMode: v })} allowDeselect={false} />
              <Select
                label="Reclaim policy"
                description="Retain keeps the data when the claim goes"
                data={['Retain', 'Delete', 'Recycle']}
                value={d.reclaimPolicy}
                onChange={(v) => v && set({ reclaimPolicy: v })}
                allowDeselect={false}
                error={volumeErrorFor(shown, 'spec.persistentVolumeReclaimPolicy')}
              />
            </Group>
            <Textarea
              label="Labels"
              description="One key=value per line; a claim's selector picks volumes by them"
              autosize
              minRows={1}
              value={d.labels}
              onChange={(e) => set({ labels: e.currentTarget.value })}
              error={volumeErrorFor(shown, 'metadata.labels')}
              data-testid="volume-labels"
            />
            <TextInput
              label="Reserved for claim"
              description="namespace/name: only this claim may bind it (spec.claimRef); empty for any claim"
              value={d.reservedFor}
              onChange={(e) => set({ reservedFor: e.currentTarget.value })}
              error={volumeErrorFor(shown, 'spec.claimRef')}
              data-testid="volume-reserved-for"
            />
            <Textarea label="Mount options" description="One per line" autosize minRows={2} value={d.mountOptions} onChange={(e) => set({ mountOptions: e.currentTarget.value })} error={volumeErrorFor(shown, 'spec.mountOptions')} />
          </Stack>
        </Paper>
      </Stack>
      {showErrors && <FormErrors errors={errors} />}
      {create.error && <SaveError title="The server refused the volume" message={errorInfo(create.error).message} causes={serverCauses} />}
      <Group justify="flex-end">
        <Button variant="default" onClick={() => router.back()}>
          Cancel
        </Button>
        <Button onClick={submit} loading={create.isPending} data-testid="save-volume">
          Create
        </Button>
      </Group>
    </Stack>
  );
}
