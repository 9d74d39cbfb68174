// upstream's CSI snapshotter sidecar cases (external-snapshotter pkg/sidecar-controller,
// shouldDelete and checkandUpdateContentStatusOperation), against the pure decisions.
import { describe, expect, test } from 'vitest';
import type { VolumeSnapshotContent } from '../../resources/volume-snapshot-content/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';
import { BEING_DELETED, content, snap, type ContentOpts } from '../snapshot/fixtures';
import { checkContentStatus, contentSecretRef, decideSnapshotter, type SnapshotRecordFacts } from './decide';

describe('the snapshotter\'s Secret of a content (GetCredentialsFromAnnotation)', () => {
  test.each([
    { name: 'no annotations: no Secret', annotations: undefined, want: { ok: true } },
    { name: 'both annotations: that Secret', annotations: { 'snapshot.storage.kubernetes.io/deletion-secret-name': 's', 'snapshot.storage.kubernetes.io/deletion-secret-namespace': 'n' }, want: { ok: true, ref: { name: 's', namespace: 'n' } } },
    {
      name: 'an empty name: GetCredentialsFromAnnotation\'s error',
      annotations: { 'snapshot.storage.kubernetes.io/deletion-secret-name': '', 'snapshot.storage.kubernetes.io/deletion-secret-namespace': 'n' },
      want: { ok: false, message: 'cannot retrieve secrets for snapshot content "c1", err: secret name or namespace not specified' },
    },
  ])('the snapshotter\'s Secret of a content: $name', ({ annotations, want }) => {
    expect(contentSecretRef(content('c1', { snapshot: 'snap1', volumeHandle: 'v', ...(annotations ? { annotations } : {}) }))).toEqual(want);
  });
});

describe('the snapshotter (sidecar snapshot_controller_test.go, shouldDelete)', () => {
  const bound = snap('snap1', 'uid1', { claim: 'c', bound: 'content1', ready: true });
  const dyn = (o: Partial<ContentOpts> = {}) => content('content1', { snapshot: 'snap1', uid: 'uid1', volumeHandle: 'pvc-1', ...o });
  test.each<{ name: string; c: VolumeSnapshotContent; vs?: VolumeSnapshot; want: string }>([
    { name: 'a new dynamic content: take the snapshot of its volume', c: dyn(), vs: bound, want: 'take' },
    { name: 'a content whose snapshot failed: take it again', c: dyn({ status: { readyToUse: false, error: { message: 'x' } } }), vs: bound, want: 'take' },
    { name: 'a taken, ready content: nothing', c: dyn({ status: { readyToUse: true, snapshotHandle: '/p/s' } }), vs: bound, want: 'none' },
    { name: 'a pre-provisioned content without a status: check it with the driver (checkandUpdateContentStatus)', c: content('content1', { snapshot: 'snap1', uid: 'uid1', snapshotHandle: 'h' }), vs: bound, want: 'check' },
    { name: 'a pre-provisioned content not bound yet is checked too (the sidecar does not wait for the binding)', c: content('content1', { snapshot: 'snap1', snapshotHandle: 'h' }), want: 'check' },
    { name: 'a pre-provisioned content whose check failed: check again', c: content('content1', { snapshot: 'snap1', uid: 'uid1', snapshotHandle: 'h', status: { readyToUse: false, error: { message: 'x' } } }), vs: bound, want: 'check' },
    { name: 'a pre-provisioned content ready (contentIsReady): nothing', c: content('content1', { snapshot: 'snap1', uid: 'uid1', snapshotHandle: 'h', status: { readyToUse: true, snapshotHandle: 'h' } }), vs: bound, want: 'none' },
    { name: 'deleted, policy Delete, its snapshot being deleted (annotated): delete the snapshot', c: dyn({ deleting: true, annotations: { [BEING_DELETED]: 'yes' } }), vs: bound, want: 'delete' },
    { name: 'deleted, policy Retain, its snapshot being deleted: keep the snapshot', c: dyn({ deleting: true, policy: 'Retain', annotations: { [BEING_DELETED]: 'yes' } }), vs: bound, want: 'release' },
    { name: 'deleted while its snapshot still exists and is not being deleted: wait', c: dyn({ deleting: true }), vs: bound, want: 'none' },
    { name: 'deleted after its snapshot is gone: delete the snapshot', c: dyn({ deleting: true }), want: 'delete' },
    { name: 'an unbound pre-provisioned content deleted: delete', c: content('content1', { snapshot: 'snap1', snapshotHandle: 'h', deleting: true }), vs: bound, want: 'delete' },
    { name: 'deleted without the content finalizer: nothing', c: dyn({ deleting: true, finalizers: [] }), want: 'none' },
  ])('$name -> $want', ({ c, vs, want }) => {
    expect(decideSnapshotter(c, vs).action).toBe(want);
  });
});

describe('a pre-provisioned content\'s status from the driver (sidecar checkandUpdateContentStatusOperation)', () => {
  const c = content('imported', { snapshot: 'snap1', snapshotHandle: '/pool/.snapshots/snapcontent-1' });
  const taken = new Date('2026-11-25T11:00:00Z');
  const record = (state: string, path = '/pool/.snapshots/snapcontent-1') => ({ state, updatedAt: taken, details: { kind: 'snapshot', path, sizeBytes: '1073741824' } });
  test.each<{ name: string; records: SnapshotRecordFacts[]; want: unknown }>([
    {
      name: 'the driver has the snapshot: snapshotHandle, readyToUse, creationTime (ns), restoreSize',
      records: [record('created')],
      want: { ok: true, status: { snapshotHandle: '/pool/.snapshots/snapcontent-1', readyToUse: true, creationTime: taken.getTime() * 1e6, restoreSize: 1073741824 } },
    },
    {
      name: 'the driver is still taking it: not ready yet',
      records: [record('creating')],
      want: { ok: true, status: { snapshotHandle: '/pool/.snapshots/snapcontent-1', readyToUse: false, creationTime: taken.getTime() * 1e6, restoreSize: 1073741824 } },
    },
    {
      name: 'the driver does not know the handle: can not find snapshot for snapshotID',
      records: [record('created', '/pool/.snapshots/other'), { ...record('created'), details: { kind: 'volume', path: '/pool/.snapshots/snapcontent-1' } }],
      want: { ok: false, message: 'Failed to check and update snapshot content: can not find snapshot for snapshotID /pool/.snapshots/snapcontent-1' },
    },
  ])('$name', ({ records, want }) => {
    expect(checkContentStatus(c, '/pool/.snapshots/snapcontent-1', records)).toEqual(want);
  });
});
