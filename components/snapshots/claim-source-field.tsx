'use client';
// "Start from" in the claim form: an empty volume, a snapshot of the namespace, or a clone of
// one of its claims in the same class. Sets the claim's spec.dataSource.
import { Alert, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import type { ClaimSource } from './snapshot-view';
import type { ClaimSourceState } from './use-claim-source';

type Mode = 'empty' | 'VolumeSnapshot' | 'PersistentVolumeClaim';

export function ClaimSourceField({ source, state, onChange }: { source: ClaimSource | undefined; state: ClaimSourceState; onChange: (s: ClaimSource | undefined) => void }) {
  const mode: Mode = source?.kind ?? 'empty';
  const options = mode === 'VolumeSnapshot' ? state.snapshotOptions : state.claimOptions;
  return (
    <Stack gap={6} data-testid="claim-source">
      <Text size="sm" fw={500}>
        Start from
      </Text>
      <SegmentedControl
        w="fit-content"
        maw="100%"
        // On a phone the three choices are wider than the screen: their labels wrap.
        styles={{ label: { whiteSpace: 'normal', lineHeight: 1.2 } }}
        value={mode}
        onChange={(v) => onChange(v === 'empty' ? undefined : { kind: v, name: '' })}
        data={[
          { value: 'empty', label: 'An empty volume' },
          { value: 'VolumeSnapshot', label: 'A snapshot' },
          { value: 'PersistentVolumeClaim', label: 'A clone of a claim' },
        ]}
      />
      {source && (
        <Select
          label={source.kind === 'VolumeSnapshot' ? 'Snapshot' : 'Claim to clone (same class, Bound)'}
          placeholder={options.length ? 'Pick one' : source.kind === 'VolumeSnapshot' ? 'No snapshots in this namespace' : 'No Bound claim of this class here'}
          data={source.name && !options.some((o) => o.value === source.name) ? [...options, { value: source.name, label: source.name }] : options}
          value={source.name || null}
          onChange={(v) => onChange({ kind: source.kind, name: v ?? '' })}
          searchable
          w={420}
          maw="100%"
          error={state.problem}
          data-testid="claim-source-select"
        />
      )}
      {state.note && (
        <Alert color="yellow" p="xs">
          {state.note}
        </Alert>
      )}
    </Stack>
  );
}
