'use client';
// The claim form's "start from": a snapshot of the namespace (restore) or a claim of the same
// class (clone). Picking one sets the size to the snapshot's restore size or the claim's size;
// a smaller size, or a clone in another class, is refused with a clear message (as upstream
// refuses such a claim).
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import type { VolumeSnapshot } from '@/server/resources/volume-snapshot/schema';
import { isKind } from '@/server/resources/of-kind';
import { useTRPC } from '../data/trpc';
import { bytesOfSize } from '../format/size';
import type { SizeValue } from '../format/size-value';
import { claimBytes, sizeForBytes, snapshotState, sourceSizeProblem, type ClaimSource } from './snapshot-view';

interface DraftPart {
  namespace: string;
  storageClassName: string;
  dataSource?: ClaimSource;
}

/**
 * `setSize` and `pickClass` are called once per source picked: the size of the source, and
 * the class of the claim it comes from (a clone must keep it; a restore usually wants it).
 */
export function useClaimSource(draft: DraftPart, requestedBytes: bigint | undefined, setSize: (s: SizeValue) => void, pickClass: (name: string) => void) {
  const trpc = useTRPC();
  const ns = draft.namespace;
  // Read only once "start from" is asked for: a plain claim costs the form no extra lists.
  const wanted = Boolean(ns && draft.dataSource);
  const snaps = useQuery({ ...trpc.objects.list.queryOptions({ kind: 'VolumeSnapshot', namespace: ns }), enabled: wanted });
  const claims = useQuery({ ...trpc.objects.list.queryOptions({ kind: 'PersistentVolumeClaim', namespace: ns }), enabled: wanted });
  const snapshots = (snaps.data?.items ?? []).filter((o): o is VolumeSnapshot => isKind(o, 'VolumeSnapshot'));
  const allClaims = (claims.data?.items ?? []).filter((o): o is PersistentVolumeClaim => isKind(o, 'PersistentVolumeClaim'));
  const src = draft.dataSource;
  const snapshot = src?.kind === 'VolumeSnapshot' ? snapshots.find((s) => s.metadata.name === src.name) : undefined;
  const cloned = src?.kind === 'PersistentVolumeClaim' ? allClaims.find((c) => c.metadata.name === src.name) : undefined;
  const fromClaimName = snapshot ? snapshot.spec?.source?.persistentVolumeClaimName : cloned?.metadata.name;
  const fromClass = allClaims.find((c) => c.metadata.name === fromClaimName)?.spec?.storageClassName;
  const sourceBytes = snapshot ? bytesOfSize(snapshot.status?.restoreSize === undefined ? undefined : String(snapshot.status.restoreSize)) : cloned ? claimBytes(cloned) : undefined;

  // The size follows the source once per source picked (the user may then make it larger).
  const applied = useRef<string | undefined>(undefined);
  const key = src && sourceBytes !== undefined ? `${src.kind}/${src.name}/${sourceBytes}` : undefined;
  useEffect(() => {
    if (!key || applied.current === key || sourceBytes === undefined) return;
    applied.current = key;
    setSize(sizeForBytes(sourceBytes));
  }, [key, sourceBytes, setSize]);
  const classApplied = useRef<string | undefined>(undefined);
  const classKey = src && fromClass !== undefined ? `${src.kind}/${src.name}` : undefined;
  useEffect(() => {
    if (!classKey || classApplied.current === classKey || fromClass === undefined) return;
    classApplied.current = classKey;
    if (fromClass) pickClass(fromClass);
  }, [classKey, fromClass, pickClass]);

  const missing = src && (src.kind === 'VolumeSnapshot' ? snaps.data && !snapshot : claims.data && !cloned) ? `There is no ${src.kind === 'VolumeSnapshot' ? 'snapshot' : 'claim'} ${src.name} in ${ns}` : undefined;
  const notReady = snapshot && snapshotState(snapshot) !== 'Ready' ? `Snapshot ${src!.name} is not ready to use yet: the claim stays Pending until it is` : undefined;
  const cloneClass = cloned?.spec?.storageClassName ?? '';
  const classProblem = cloned && cloneClass !== draft.storageClassName ? `A clone must have the class of claim ${src!.name} (${cloneClass || 'no class'})` : undefined;
  return {
    snapshotOptions: snapshots.map((s) => ({ value: s.metadata.name ?? '', label: `${s.metadata.name} (${snapshotState(s)}${s.spec?.source?.persistentVolumeClaimName ? `, of ${s.spec.source.persistentVolumeClaimName}` : ''})` })),
    claimOptions: allClaims
      .filter((c) => (c.spec?.storageClassName ?? '') === draft.storageClassName && c.status?.phase === 'Bound')
      .map((c) => ({ value: c.metadata.name ?? '', label: c.metadata.name ?? '' })),
    sourceBytes,
    /** Why the claim cannot be created as it is. */
    problem: missing ?? classProblem ?? sourceSizeProblem(requestedBytes, src, sourceBytes),
    /** A note that does not stop the create. */
    note: notReady,
  };
}

export type ClaimSourceState = ReturnType<typeof useClaimSource>;
