import { describe, expect, it } from 'vitest';
import type { PersistentVolumeClaim } from '@/server/resources/persistent-volume-claim/schema';
import type { SnapshotSchedule } from '@/server/resources/snapshot-schedule/schema';
import type { VolumeSnapshot } from '@/server/resources/volume-snapshot/schema';
import { claimBytes, copyProgress, dataSourceOf, scheduleName, schedulesOfClaim, sizeForBytes, snapshotsOfClaim, snapshotState, sourceSizeProblem } from './snapshot-view';

const GI = 1n << 30n;
const vs = (name: string, o: { claim?: string; ready?: boolean; error?: string; deleting?: boolean; created?: string; schedule?: string } = {}): VolumeSnapshot => ({
  apiVersion: 'snapshot.storage.k8s.io/v1',
  kind: 'VolumeSnapshot',
  metadata: {
    name,
    namespace: 'ns',
    creationTimestamp: o.created ?? '2026-11-26T00:00:00Z',
    ...(o.deleting ? { deletionTimestamp: '2026-11-26T01:00:00Z' } : {}),
    ...(o.schedule ? { labels: { 'snapshot.stowage.io/schedule': o.schedule } } : {}),
  },
  spec: { source: { persistentVolumeClaimName: o.claim ?? 'data' } },
  status: { readyToUse: o.ready ?? false, ...(o.error ? { error: { message: o.error } } : {}) },
});
const claim = (name: string, labels?: Record<string, string>, size = '1Gi', capacity?: string): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'ns', labels },
  spec: { resources: { requests: { storage: size } } },
  ...(capacity ? { status: { capacity: { storage: capacity } } } : {}),
});
const sched = (name: string, target: NonNullable<SnapshotSchedule['spec']>['target']): SnapshotSchedule => ({
  apiVersion: 'snapshot.stowage.io/v1',
  kind: 'SnapshotSchedule',
  metadata: { name, namespace: 'ns' },
  spec: { every: '6h', keep: 3, target },
});

describe('snapshotState', () => {
  it.each([
    { name: 'ready', s: vs('a', { ready: true }), want: 'Ready' },
    { name: 'not ready yet', s: vs('a'), want: 'Pending' },
    { name: 'with an error', s: vs('a', { error: 'cannot snapshot local volumes' }), want: 'Failed' },
    { name: 'being deleted (even if ready)', s: vs('a', { ready: true, deleting: true }), want: 'Terminating' },
  ])('$name -> $want', ({ s, want }) => expect(snapshotState(s)).toBe(want));
});

describe('snapshotsOfClaim', () => {
  it("keeps the claim's snapshots, newest first, with the schedule that took them", () => {
    const rows = snapshotsOfClaim([vs('old', { created: '2026-11-25T00:00:00Z' }), vs('new', { created: '2026-11-26T00:00:00Z', schedule: 'six' }), vs('other', { claim: 'x' })], 'data');
    expect(rows.map((r) => [r.name, r.schedule])).toEqual([
      ['new', 'six'],
      ['old', undefined],
    ]);
  });
});

describe('schedulesOfClaim', () => {
  it.each([
    { name: 'by name', s: sched('a', { claimName: 'data' }), want: true },
    { name: 'by another name', s: sched('a', { claimName: 'other' }), want: false },
    { name: 'by a matching selector', s: sched('a', { selector: { matchLabels: { backup: 'yes' } } }), want: true },
    { name: 'by a selector that does not match', s: sched('a', { selector: { matchLabels: { backup: 'no' } } }), want: false },
  ])('$name -> $want', ({ s, want }) => expect(schedulesOfClaim([s], claim('data', { backup: 'yes' })).length === 1).toBe(want));
});

describe('restore and clone sizes', () => {
  it.each([
    { name: 'no source', req: GI, source: undefined, bytes: GI, want: undefined },
    { name: 'as big as the snapshot', req: GI, source: { kind: 'VolumeSnapshot' as const, name: 's' }, bytes: GI, want: undefined },
    {
      name: 'smaller than the snapshot',
      req: GI / 2n,
      source: { kind: 'VolumeSnapshot' as const, name: 's' },
      bytes: GI,
      want: "At least 1 GiB: a claim made from snapshot s may not be smaller than the snapshot's restore size",
    },
    { name: 'smaller than the cloned claim', req: GI, source: { kind: 'PersistentVolumeClaim' as const, name: 'c' }, bytes: 2n * GI, want: 'At least 2 GiB: a claim made from claim c may not be smaller than the size of claim c' },
  ])('$name', ({ req, source, bytes, want }) => expect(sourceSizeProblem(req, source, bytes)).toBe(want));

  it.each([
    { bytes: 2n * GI, want: { size: '2', unit: 'Gi' } },
    { bytes: 1536n << 20n, want: { size: '1536', unit: 'Mi' } },
    { bytes: (1n << 20n) + 1n, want: { size: '2', unit: 'Mi' } },
  ])('the form size for $bytes bytes', ({ bytes, want }) => expect(sizeForBytes(bytes)).toEqual(want));

  it('a clone source counts its provisioned capacity first', () => {
    expect(claimBytes(claim('c', undefined, '1Gi', '2Gi'))).toBe(2n * GI);
    expect(claimBytes(claim('c', undefined, '1Gi'))).toBe(GI);
  });

  it('dataSource names the snapshot group for a snapshot, none for a claim', () => {
    expect(dataSourceOf({ kind: 'VolumeSnapshot', name: 's' })).toEqual({ apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's' });
    expect(dataSourceOf({ kind: 'PersistentVolumeClaim', name: 'c' })).toEqual({ kind: 'PersistentVolumeClaim', name: 'c' });
  });
});

describe('scheduleName', () => {
  it.each([
    { name: 'free', claim: 'data', every: '6h', taken: [], want: 'data-6h' },
    { name: 'taken: numbered', claim: 'data', every: '6h', taken: ['data-6h', 'data-6h-2'], want: 'data-6h-3' },
    { name: 'a long claim name: at most 63', claim: 'x'.repeat(100), every: '1d', taken: [], want: 'x'.repeat(56) },
  ])('$name -> $want', ({ claim, every, taken, want }) => expect(scheduleName(claim, every, taken)).toBe(want));
});

describe('copyProgress', () => {
  it.each([
    { text: '512/1024', want: 0.5 },
    { text: '1024/1024', want: 1 },
    { text: '0/0', want: 1 },
    { text: '2048/1024', want: 1 },
    { text: 'half', want: undefined },
    { text: '5/0', want: undefined },
    { text: undefined, want: undefined },
  ])('$text -> $want', ({ text, want }) => expect(copyProgress(text)).toBe(want));

  it('is shown only while the snapshot is not ready', () => {
    const pending = vs('p');
    pending.metadata.annotations = { 'snapshot.stowage.io/copy-progress': '1/4' };
    const ready = vs('r', { ready: true });
    ready.metadata.annotations = { 'snapshot.stowage.io/copy-progress': '4/4' };
    expect(snapshotsOfClaim([pending, ready], 'data').map((r) => [r.name, r.progress])).toEqual([
      ['p', 0.25],
      ['r', undefined],
    ]);
  });
});
