'use client';
// The sections of the volume form: where the data is (source, path, node) and what the
// volume offers (capacity, class, modes, reclaim policy, labels, reservation, mount options).
import { Autocomplete, Checkbox, Group, MultiSelect, Paper, SegmentedControl, Select, Stack, Switch, Text, Textarea, TextInput } from '@mantine/core';
import { SizeField } from '../forms/size-field';
import type { VolumeFormState } from './use-volume-form';
import { ACCESS_MODES, HOST_PATH_TYPES, SOURCE_LABELS, SOURCES } from './volume-draft';

export function VolumeSourceSection({ f }: { f: VolumeFormState }) {
  const { d, set, nodeNames, errorAt } = f;
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <TextInput label="Name" withAsterisk value={d.name} onChange={(e) => set({ name: e.currentTarget.value })} error={errorAt('metadata.name')} />
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
          <TextInput label="NFS server" withAsterisk placeholder="nfs.example.com" value={d.nfsServer} onChange={(e) => set({ nfsServer: e.currentTarget.value })} error={errorAt('spec.nfs.server')} />
        )}
        {d.source === 'csi' ? (
          <Group grow align="flex-start">
            <TextInput label="CSI driver" withAsterisk placeholder="csi.example.com" value={d.csiDriver} onChange={(e) => set({ csiDriver: e.currentTarget.value })} error={errorAt('spec.csi.driver')} />
            <TextInput label="Volume handle" withAsterisk value={d.csiVolumeHandle} onChange={(e) => set({ csiVolumeHandle: e.currentTarget.value })} error={errorAt('spec.csi.volumeHandle')} />
          </Group>
        ) : (
          <TextInput
            label={d.source === 'nfs' ? 'Export path' : d.source === 'local' ? 'Path on the node' : 'Path on the host'}
            withAsterisk
            placeholder={d.source === 'nfs' ? '/exports/data' : '/srv/volumes/a'}
            value={d.path}
            onChange={(e) => set({ path: e.currentTarget.value })}
            error={errorAt(`spec.${d.source}.path`, `spec.${d.source}`)}
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
            error={errorAt('spec.nodeAffinity')}
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
            error={errorAt('spec.nodeAffinity')}
          />
        )}
      </Stack>
    </Paper>
  );
}

export function VolumeDetailsSection({ f }: { f: VolumeFormState }) {
  const { d, set, classNames, errorAt } = f;
  return (
    <Paper withBorder p="sm">
      <Stack gap="xs">
        <Group grow align="flex-start">
          <SizeField label="Capacity" required value={d.capacity} onChange={(capacity) => set({ capacity })} error={errorAt('spec.capacity')} w="100%" />
          <Autocomplete label="Storage class" description="Claims of this class may bind it; empty: claims without a class" data={classNames} value={d.storageClassName} onChange={(v) => set({ storageClassName: v })} error={errorAt('spec.storageClassName')} />
        </Group>
        <Checkbox.Group label="Access modes" withAsterisk value={d.accessModes} onChange={(v) => set({ accessModes: v })} error={errorAt('spec.accessModes')}>
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
            error={errorAt('spec.persistentVolumeReclaimPolicy')}
          />
        </Group>
        <Textarea
          label="Labels"
          description="One key=value per line; a claim's selector picks volumes by them"
          autosize
          minRows={1}
          value={d.labels}
          onChange={(e) => set({ labels: e.currentTarget.value })}
          error={errorAt('metadata.labels')}
          data-testid="volume-labels"
        />
        <TextInput
          label="Reserved for claim"
          description="namespace/name: only this claim may bind it (spec.claimRef); empty for any claim"
          value={d.reservedFor}
          onChange={(e) => set({ reservedFor: e.currentTarget.value })}
          error={errorAt('spec.claimRef')}
          data-testid="volume-reserved-for"
        />
        <Textarea label="Mount options" description="One per line" autosize minRows={2} value={d.mountOptions} onChange={(e) => set({ mountOptions: e.currentTarget.value })} error={errorAt('spec.mountOptions')} />
      </Stack>
    </Paper>
  );
}
