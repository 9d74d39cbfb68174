'use client';
// In the delete dialog of a storage class, a snapshot class or a backup target: what stays
// and what stops of what names it, from the server's counts (every namespace; asked only
// by who may delete it).
import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../data/trpc';
import { errorInfo } from '../format/format';
import { dependentsSentences } from './delete-dependents';
import { StaysStops } from './stays-stops';

export type DependentsKind = 'StorageClass' | 'VolumeSnapshotClass' | 'BackupTarget';

export function isDependentsKind(kind: string): kind is DependentsKind {
  return kind === 'StorageClass' || kind === 'VolumeSnapshotClass' || kind === 'BackupTarget';
}

export function DependentsNotes({ kind, name }: { kind: DependentsKind; name: string }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.objects.dependents.queryOptions({ kind, name }));
  if (q.isPending) {
    return (
      <Text size="sm" c="dimmed" data-testid="delete-checking">
        Checking what uses it…
      </Text>
    );
  }
  if (q.isError) {
    return (
      <Text size="sm" c="dimmed" data-testid="delete-dependents-unknown">
        What uses it could not be checked: {errorInfo(q.error).message}
      </Text>
    );
  }
  const text = dependentsSentences(q.data);
  if (text.stays.length === 0 && text.stops.length === 0) {
    return (
      <Text size="sm" data-testid="delete-dependents-none">
        Nothing names it.
      </Text>
    );
  }
  return <StaysStops stays={text.stays} stops={text.stops} />;
}
