// What the dashboard says about snapshots and schedules, as plain values. Pure.
import { labelSelectorToSelector, matchesSelector } from '@/server/domain/label-selector';
import { labelSnapshotSchedule } from '@/server/domain/snapshot-schedule';
import { annSnapshotCopyProgress } from '@/server/domain/well-known/annotations';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import type { SnapshotSchedule } from '@/server/resources/snapshot-schedule/schema';
import type { VolumeSnapshot } from '@/server/resources/volume-snapshot/schema';
import { bytesOfSize, formatSize } from '../format/size';
import type { SizeValue } from '../format/size-value';

export type SnapshotState = 'Ready' | 'Pending' | 'Failed' | 'Terminating';

export interface SnapshotRow {
  name: string;
  namespace: string;
  state: SnapshotState;
  /** status.restoreSize as sent (a quantity), once known. */
  restoreSize?: string;
  /** When the snapshot was taken (status.creationTime), else when it was asked for. */
  takenAt?: string;
  /** The claim it is of, or the content it was bound to. */
  source: string;
  /** The schedule that took it, if one did. */
  schedule?: string;
  error?: string;
  /** While a copy is being made: the share copied, 0..1. */
  progress?: number;
}

/** A copy's progress from its annotation ("<copied>/<total>"), 0..1; undefined when absent or not a fraction. */
export function copyProgress(text: string | undefined): number | undefined {
  const m = text === undefined ? null : /^(\d+)\/(\d+)$/.exec(text);
  if (!m) return undefined;
  const [done, total] = [Number(m[1]), Number(m[2])];
  if (total === 0) return done === 0 ? 1 : undefined;
  return Math.min(1, done / total);
}

export function snapshotState(vs: VolumeSnapshot): SnapshotState {
  if (vs.metadata.deletionTimestamp) return 'Terminating';
  if (vs.status?.readyToUse) return 'Ready';
  if (vs.status?.error?.message) return 'Failed';
  return 'Pending';
}

export function snapshotRow(vs: VolumeSnapshot): SnapshotRow {
  const src = vs.spec?.source;
  const size = vs.status?.restoreSize;
  return {
    name: vs.metadata.name ?? '',
    namespace: vs.metadata.namespace ?? '',
    state: snapshotState(vs),
    ...(size !== undefined ? { restoreSize: String(size) } : {}),
    takenAt: vs.status?.creationTime ?? vs.metadata.creationTimestamp,
    source: src?.persistentVolumeClaimName ?? src?.volumeSnapshotContentName ?? '',
    ...(vs.metadata.labels?.[labelSnapshotSchedule] ? { schedule: vs.metadata.labels[labelSnapshotSchedule] } : {}),
    ...(vs.status?.error?.message ? { error: vs.status.error.message } : {}),
    ...(progressOf(vs) !== undefined ? { progress: progressOf(vs) } : {}),
  };
}

function progressOf(vs: VolumeSnapshot): number | undefined {
  return snapshotState(vs) === 'Pending' ? copyProgress(vs.metadata.annotations?.[annSnapshotCopyProgress]) : undefined;
}

/** A claim's snapshots, newest first. */
export function snapshotsOfClaim(all: VolumeSnapshot[], claim: string): SnapshotRow[] {
  return all
    .filter((s) => s.spec?.source?.persistentVolumeClaimName === claim)
    .map(snapshotRow)
    .sort((a, b) => (b.takenAt ?? '').localeCompare(a.takenAt ?? '') || a.name.localeCompare(b.name));
}

/** The schedules that snapshot this claim: by its name, or by a selector matching its labels. */
export function schedulesOfClaim(all: SnapshotSchedule[], claim: PersistentVolumeClaim): SnapshotSchedule[] {
  return all.filter((s) => {
    const t = s.spec?.target;
    if (t?.claimName !== undefined) return t.claimName === claim.metadata.name;
    if (t?.selector === undefined) return false;
    try {
      return matchesSelector(labelSelectorToSelector(t.selector), claim.metadata.labels);
    } catch {
      return false;
    }
  });
}

/** Where a restore or a clone starts from, for the claim form. */
export interface ClaimSource {
  kind: 'VolumeSnapshot' | 'PersistentVolumeClaim';
  name: string;
}

/** The smallest size a claim restored or cloned from `bytes` may ask for, with the reason. */
export function sourceSizeProblem(requested: bigint | undefined, source: ClaimSource | undefined, sourceBytes: bigint | undefined): string | undefined {
  if (!source || sourceBytes === undefined || requested === undefined || requested >= sourceBytes) return undefined;
  const what = source.kind === 'VolumeSnapshot' ? `the snapshot's restore size` : `the size of claim ${source.name}`;
  return `At least ${formatSize(sourceBytes)}: a claim made from ${source.kind === 'VolumeSnapshot' ? `snapshot ${source.name}` : `claim ${source.name}`} may not be smaller than ${what}`;
}

/** Bytes of a claim as a clone source: its provisioned capacity, else its request. */
export function claimBytes(c: PersistentVolumeClaim): bigint | undefined {
  return bytesOfSize(c.status?.capacity?.storage ?? c.spec?.resources?.requests?.storage);
}

/** The form's size for a source: whole GiB when it is, else whole MiB rounded up. */
export function sizeForBytes(b: bigint): SizeValue {
  const gi = 1n << 30n;
  const mi = 1n << 20n;
  if (b % gi === 0n) return { size: String(b / gi), unit: 'Gi' };
  return { size: String((b + mi - 1n) / mi), unit: 'Mi' };
}

/** spec.dataSource of a claim made from `source`. */
export function dataSourceOf(source: ClaimSource): { apiGroup?: string; kind: string; name: string } {
  return source.kind === 'VolumeSnapshot' ? { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: source.name } : { kind: 'PersistentVolumeClaim', name: source.name };
}

/** A free name for a new schedule of this claim: "<claim>-<every>", numbered when taken; at most 63 characters. */
export function scheduleName(claim: string, every: string, taken: string[]): string {
  const base = `${claim}-${every}`.toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 56).replace(/-+$/, '');
  if (!taken.includes(base)) return base;
  for (let i = 2; ; i++) if (!taken.includes(`${base}-${i}`)) return `${base}-${i}`;
}

/** The source the claim form starts from, from its address (?snapshot=NAME or ?clone=NAME). */
export function sourceFromParams(params: { get(name: string): string | null }): ClaimSource | undefined {
  const snapshot = params.get('snapshot');
  if (snapshot) return { kind: 'VolumeSnapshot', name: snapshot };
  const clone = params.get('clone');
  return clone ? { kind: 'PersistentVolumeClaim', name: clone } : undefined;
}
