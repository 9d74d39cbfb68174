// upstream's snapshot controller cases (external-snapshotter pkg/common-controller
// snapshot_update_test.go, snapshot_delete_test.go, snapshot_finalizer_test.go,
// snapshotclass_test.go), named by their upstream numbers, against the pure decisions.
import { describe, expect, test } from 'vitest';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { VolumeSnapshotClass } from '../../resources/volume-snapshot-class/schema';
import type { VolumeSnapshotContent } from '../../resources/volume-snapshot-content/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';
import {
  chooseDefaultSnapshotClass,
  claimsRestoringFrom,
  contentToCreate,
  decideContent,
  decideSnapshot,
  decideSnapshotClass,
  ensureClaimSourceFinalizer,
  releaseClaimSourceFinalizer,
  type SnapshotAction,
} from './decide';
import { NOW, SOURCE, BOUND, PVC_SOURCE, BEING_DELETED, BOTH, snap, content, type SnapOpts } from './fixtures';

function facts(vs: VolumeSnapshot, contents: VolumeSnapshotContent[] = [], restoringClaims: string[] = []) {
  return { snapshot: vs, content: (n: string) => contents.find((c) => c.metadata.name === n), restoringClaims, now: NOW };
}

const err = (reason: string, message: string, status: Record<string, unknown>): SnapshotAction => ({
  action: 'error',
  event: { type: 'Warning', reason, message },
  status: { ...status, error: { time: NOW, message } },
});

describe('decideSnapshot: binding, status and errors (snapshot_update_test.go TestSync)', () => {
  test.each<{ name: string; vs: VolumeSnapshot; contents?: VolumeSnapshotContent[]; want: SnapshotAction }>([
    {
      name: '2-1 - (dynamic) snapshot is bound to a non-existing content',
      vs: snap('snap2-1', 'snapuid2-1', { claim: 'claim2-1', bound: 'content2-1', ready: true }),
      want: err('SnapshotContentMissing', 'VolumeSnapshotContent is missing', { boundVolumeSnapshotContentName: 'content2-1', readyToUse: false }),
    },
    {
      name: '2-2 - (static) snapshot points to a content but content does not point to snapshot (VolumeSnapshotRef does not match)',
      vs: snap('snap2-2', 'snapuid2-2', { content: 'content2-2', bound: 'content2-2', ready: false }),
      contents: [content('content2-2', { snapshot: 'snap2-2', uid: 'snapuid2-2-x', snapshotHandle: 'sid2-2' })],
      want: err('SnapshotContentMisbound', 'VolumeSnapshotContent [content2-2] is bound to a different snapshot', { boundVolumeSnapshotContentName: 'content2-2', readyToUse: false }),
    },
    {
      name: '2-4 - (static) noop: bound both ways and ready',
      vs: snap('snap2-4', 'snapuid2-4', { content: 'content2-4', bound: 'content2-4', ready: true }),
      contents: [content('content2-4', { snapshot: 'snap2-4', uid: 'snapuid2-4', snapshotHandle: 'sid2-4', cls: 'c' })],
      want: { action: 'none', why: 'ready and bound both ways' },
    },
    {
      name: '2-5 - (dynamic) snapshot and content bound, status ready false -> true',
      vs: snap('snap2-5', 'snapuid2-5', { claim: 'claim2-5', bound: 'snapcontent-snapuid2-5', ready: false }),
      contents: [content('snapcontent-snapuid2-5', { snapshot: 'snap2-5', uid: 'snapuid2-5', volumeHandle: 'pv-2-5', status: { readyToUse: true } })],
      want: {
        action: 'updateStatus',
        status: { boundVolumeSnapshotContentName: 'snapcontent-snapuid2-5', readyToUse: true },
        events: [{ type: 'Normal', reason: 'SnapshotReady', message: 'Snapshot default/snap2-5 is ready to use.' }],
      },
    },
    {
      name: "2-6 - (static) snapshot bound to content correctly: the content's ref uid '' -> the snapshot's uid",
      vs: snap('snap2-6', 'snapuid2-6', { content: 'content2-6', cls: 'gold' }),
      contents: [content('content2-6', { snapshot: 'snap2-6', snapshotHandle: 'sid2-6', policy: 'Retain' })],
      want: { action: 'bindContent', contentName: 'content2-6', uid: 'snapuid2-6', className: 'gold' },
    },
    {
      name: '2-6 (next look) - (static) the content points back: status from the content, created and ready',
      vs: snap('snap2-6', 'snapuid2-6', { content: 'content2-6', cls: 'gold' }),
      contents: [content('content2-6', { snapshot: 'snap2-6', uid: 'snapuid2-6', snapshotHandle: 'sid2-6', policy: 'Retain', cls: 'gold', status: { readyToUse: true, restoreSize: 1, creationTime: 1_700_000_000_000_000_000 } })],
      want: {
        action: 'updateStatus',
        status: { boundVolumeSnapshotContentName: 'content2-6', readyToUse: true, restoreSize: '1', creationTime: '2023-11-14T22:13:20Z' },
        events: [
          { type: 'Normal', reason: 'SnapshotCreated', message: 'Snapshot default/snap2-6 was successfully created by the CSI driver.' },
          { type: 'Normal', reason: 'SnapshotReady', message: 'Snapshot default/snap2-6 is ready to use.' },
        ],
      },
    },
    {
      name: '2-10 - (static) do not bind: the content names another snapshot',
      vs: snap('snap2-10', 'snapuid2-10', { content: 'content2-10' }),
      contents: [content('content2-10', { snapshot: 'snap2-10-x', snapshotHandle: 'sid2-10' })],
      want: err('SnapshotContentMisbound', 'VolumeSnapshotContent [content2-10] is bound to a different snapshot', { readyToUse: false }),
    },
    {
      name: '2-13 - (dynamic) snapshot expects a dynamically provisioned content but found one which is pre-provisioned',
      vs: snap('snap2-13', 'snapuid2-13', { claim: 'claim2-13' }),
      contents: [content('snapcontent-snapuid2-13', { snapshot: 'snap2-13', uid: 'snapuid2-13', snapshotHandle: 'sid2-13' })],
      want: err('SnapshotContentMismatch', 'VolumeSnapshotContent snapcontent-snapuid2-13 is pre-provisioned while expecting a dynamically provisioned one', { readyToUse: false }),
    },
    {
      name: '(static) snapshot expects a pre-provisioned content but found a dynamically provisioned one',
      vs: snap('snap-m', 'uid-m', { content: 'content-m' }),
      contents: [content('content-m', { snapshot: 'snap-m', uid: 'uid-m', volumeHandle: 'pv-m' })],
      want: err('SnapshotContentMismatch', 'VolumeSnapshotContent is dynamically provisioned while expecting a pre-provisioned one', { readyToUse: false }),
    },
    {
      name: '(static) the requested content does not exist',
      vs: snap('snap-x', 'uid-x', { content: 'content-x' }),
      want: err('SnapshotContentMissing', 'VolumeSnapshotContent is missing', { readyToUse: false }),
    },
    {
      name: '3-1 - (dynamic) ready snapshot lost reference to VolumeSnapshotContent',
      vs: snap('snap3-1', 'snapuid3-1', { claim: 'claim3-1', bound: 'snapcontent-snapuid3-1', ready: true }),
      want: err('SnapshotContentMissing', 'VolumeSnapshotContent is missing', { boundVolumeSnapshotContentName: 'snapcontent-snapuid3-1', readyToUse: false }),
    },
    {
      name: '3-4 - (static) ready snapshot misbound to VolumeSnapshotContent',
      vs: snap('snap3-4', 'snapuid3-4', { content: 'content3-4', bound: 'content3-4-other', ready: true }),
      contents: [
        content('content3-4', { snapshot: 'snap3-4', uid: 'snapuid3-4', snapshotHandle: 'sid3-4' }),
        content('content3-4-other', { snapshot: 'snap3-4-x', uid: 'snapuid3-4-x', snapshotHandle: 'sid3-4-x' }),
      ],
      want: err('SnapshotMisbound', 'VolumeSnapshotContent is not bound to the VolumeSnapshot correctly', { boundVolumeSnapshotContentName: 'content3-4-other', readyToUse: false }),
    },
    {
      name: '3-5 - (dynamic) ready snapshot (everything is well, do nothing)',
      vs: snap('snap3-5', 'snapuid3-5', { claim: 'claim3-5', bound: 'snapcontent-snapuid3-5', ready: true }),
      contents: [content('snapcontent-snapuid3-5', { snapshot: 'snap3-5', uid: 'snapuid3-5', volumeHandle: 'pv-3-5' })],
      want: { action: 'none', why: 'ready and bound both ways' },
    },
    {
      name: '4-1 - (dynamic) content bound to snapshot, snapshot status missing and rebuilt',
      vs: snap('snap4-1', 'snapuid4-1', { claim: 'claim4-1' }),
      contents: [content('snapcontent-snapuid4-1', { snapshot: 'snap4-1', uid: 'snapuid4-1', volumeHandle: 'pv-4-1', status: { readyToUse: false, restoreSize: 1073741824 } })],
      want: { action: 'updateStatus', status: { boundVolumeSnapshotContentName: 'snapcontent-snapuid4-1', readyToUse: false, restoreSize: '1Gi' }, events: [] },
    },
    {
      name: '(dynamic) a restoreSize of 0 is replaced by the content\'s size once known; 1000 bytes are 1k (BinarySI below 1024 prints as DecimalSI)',
      vs: snap('snap-z', 'uid-z', { claim: 'c', status: { boundVolumeSnapshotContentName: 'snapcontent-uid-z', readyToUse: false, restoreSize: '0' } }),
      contents: [content('snapcontent-uid-z', { snapshot: 'snap-z', uid: 'uid-z', volumeHandle: 'pv', status: { readyToUse: false, restoreSize: 1000 } })],
      want: { action: 'updateStatus', status: { boundVolumeSnapshotContentName: 'snapcontent-uid-z', readyToUse: false, restoreSize: '1k' }, events: [] },
    },
    {
      name: '6-1 - update snapshot error status from the content',
      vs: snap('snap6-1', 'snapuid6-1', { claim: 'claim6-1', bound: 'snapcontent-snapuid6-1', ready: false }),
      contents: [content('snapcontent-snapuid6-1', { snapshot: 'snap6-1', uid: 'snapuid6-1', volumeHandle: 'pv-6-1', status: { readyToUse: false, error: { message: 'Mock content error', time: NOW } } })],
      want: { action: 'updateStatus', status: { boundVolumeSnapshotContentName: 'snapcontent-snapuid6-1', readyToUse: false, error: { message: 'Mock content error', time: NOW } }, events: [] },
    },
    {
      name: '6-2 - clear out snapshot error status once the content is ready',
      vs: snap('snap6-2', 'snapuid6-2', { claim: 'claim6-2', status: { boundVolumeSnapshotContentName: 'snapcontent-snapuid6-2', readyToUse: false, error: { message: 'old', time: NOW } } }),
      contents: [content('snapcontent-snapuid6-2', { snapshot: 'snap6-2', uid: 'snapuid6-2', volumeHandle: 'pv-6-2', status: { readyToUse: true } })],
      want: {
        action: 'updateStatus',
        status: { boundVolumeSnapshotContentName: 'snapcontent-snapuid6-2', readyToUse: true },
        events: [{ type: 'Normal', reason: 'SnapshotReady', message: 'Snapshot default/snap6-2 is ready to use.' }],
      },
    },
    {
      name: '8-1 - (dynamic) no content yet: a content is to be made (the snapshot is taken)',
      vs: snap('snap8-1', 'snapuid8-1', { claim: 'claim8-1', cls: 'gold' }),
      want: { action: 'createContent' },
    },
    {
      name: 'the same error is not recorded twice (no write, no event)',
      vs: snap('snap-e', 'uid-e', { content: 'content-e', status: { readyToUse: false, error: { message: 'VolumeSnapshotContent is missing', time: NOW } } }),
      want: { action: 'none', why: 'error already recorded: VolumeSnapshotContent is missing' },
    },
  ])('$name', ({ vs, contents, want }) => {
    expect(decideSnapshot(facts(vs, contents))).toEqual(want);
  });

  test('a source with both fields or none: SnapshotValidationError', () => {
    const both = snap('s', 'u', { claim: 'c', content: 'x' });
    expect(decideSnapshot(facts(both))).toEqual(
      err('SnapshotValidationError', 'Exactly one of PersistentVolumeClaimName and VolumeSnapshotContentName should be specified', { readyToUse: false }),
    );
    expect(decideSnapshot(facts(snap('s', 'u', {})))).toMatchObject({ action: 'error', event: { reason: 'SnapshotValidationError' } });
  });

  test('a bound pre-provisioned content with another uid: SnapshotBindFailed with upstream\'s wording', () => {
    // The ref names the snapshot but was bound to an older one of the same name.
    const vs = snap('snap-b', 'uid-new', { content: 'content-b' });
    const c = content('content-b', { snapshot: 'snap-b', snapshotHandle: 'h', uid: 'uid-old' });
    // getPreprovisionedContentFromStore refuses it first, as upstream (misbound).
    expect(decideSnapshot(facts(vs, [c]))).toMatchObject({ action: 'error', event: { reason: 'SnapshotContentMisbound', message: 'VolumeSnapshotContent [content-b] is bound to a different snapshot' } });
  });
});

describe('decideSnapshot: finalizers (snapshot_finalizer_test.go, checkandAddSnapshotFinalizers)', () => {
  test.each<{ name: string; vs: VolumeSnapshot; contents?: VolumeSnapshotContent[]; want: SnapshotAction }>([
    {
      name: '2-1 - successful add Snapshot finalizer: a new snapshot gets as-source protection',
      vs: snap('snap', 'uid', { content: 'c', finalizers: [] }),
      want: { action: 'addFinalizers', finalizers: [SOURCE] },
    },
    {
      name: 'a bound snapshot whose content has deletionPolicy Delete gets bound protection',
      vs: snap('snap', 'uid', { content: 'c', bound: 'c', ready: true, finalizers: [SOURCE] }),
      contents: [content('c', { snapshot: 'snap', uid: 'uid', snapshotHandle: 'h', policy: 'Delete' })],
      want: { action: 'addFinalizers', finalizers: [BOUND] },
    },
    {
      name: 'a bound snapshot whose content has deletionPolicy Retain gets no bound protection',
      vs: snap('snap', 'uid', { content: 'c', bound: 'c', ready: true, finalizers: [SOURCE] }),
      contents: [content('c', { snapshot: 'snap', uid: 'uid', snapshotHandle: 'h', policy: 'Retain', cls: 'x' })],
      want: { action: 'none', why: 'ready and bound both ways' },
    },
    {
      name: 'a snapshot not yet bound gets no bound protection',
      vs: snap('snap', 'uid', { content: 'c', finalizers: [SOURCE] }),
      contents: [content('c', { snapshot: 'snap', snapshotHandle: 'h' })],
      want: { action: 'bindContent', contentName: 'c', uid: 'uid' },
    },
  ])('$name', ({ vs, contents, want }) => {
    expect(decideSnapshot(facts(vs, contents))).toEqual(want);
  });
});

describe('decideSnapshot: deletion with deletionPolicy (snapshot_delete_test.go)', () => {
  const deleting = (name: string, uid: string, o: SnapOpts) => snap(name, uid, { ...o, deleting: true });
  test.each<{ name: string; vs: VolumeSnapshot; contents?: VolumeSnapshotContent[]; restoring?: string[]; want: SnapshotAction }>([
    {
      name: '3-1a - (dynamic) snapshot deletion waits while a PVC is still restoring from the snapshot',
      vs: deleting('snap3-1a', 'snapuid3-1a', { claim: 'claim', bound: 'snapcontent-snapuid3-1a', ready: true }),
      contents: [content('snapcontent-snapuid3-1a', { snapshot: 'snap3-1a', uid: 'snapuid3-1a', volumeHandle: 'pv' })],
      restoring: ['restored'],
      want: {
        action: 'pending',
        event: { type: 'Warning', reason: 'SnapshotDeletePending', message: 'Snapshot is being used to restore a PVC' },
        why: 'snapshot default/snap3-1a is in use (being used to restore a PVC), will retry deletion',
      },
    },
    {
      name: '3-1 - (dynamic) content will be deleted if snapshot deletion timestamp is set (bound finalizer kept until it is gone)',
      vs: deleting('snap3-1', 'snapuid3-1', { claim: 'claim', bound: 'snapcontent-snapuid3-1', ready: true }),
      contents: [content('snapcontent-snapuid3-1', { snapshot: 'snap3-1', uid: 'snapuid3-1', volumeHandle: 'pv' })],
      want: { action: 'finishDeletion', annotateContent: 'snapcontent-snapuid3-1', deleteContent: 'snapcontent-snapuid3-1', removeFinalizers: [SOURCE] },
    },
    {
      name: '3-3 - (dynamic) content will not be deleted if retainPolicy is set, snapshot should have its finalizer removed',
      vs: deleting('snap3-3', 'snapuid3-3', { claim: 'claim', bound: 'snapcontent-snapuid3-3', ready: true }),
      contents: [content('snapcontent-snapuid3-3', { snapshot: 'snap3-3', uid: 'snapuid3-3', volumeHandle: 'pv', policy: 'Retain' })],
      want: { action: 'finishDeletion', annotateContent: 'snapcontent-snapuid3-3', removeFinalizers: BOTH },
    },
    {
      name: '3-4 - (dynamic) snapshot should have its finalizer removed if no content has been found',
      vs: deleting('snap3-4', 'snapuid3-4', { claim: 'claim', bound: 'snapcontent-snapuid3-4', ready: true }),
      want: { action: 'finishDeletion', removeFinalizers: BOTH },
    },
    {
      name: '3-5 - (dynamic) snapshot should have its finalizer removed if a content is found but points to a different snapshot - uid mismatch',
      vs: deleting('snap3-5', 'snapuid3-5', { claim: 'claim', bound: 'snapcontent-snapuid3-5', ready: true }),
      contents: [content('snapcontent-snapuid3-5', { snapshot: 'snap3-5', uid: 'snapuid3-5-x', volumeHandle: 'pv' })],
      want: { action: 'finishDeletion', removeFinalizers: BOTH },
    },
    {
      name: '3-6 - (dynamic) snapshot should have its finalizer removed if a content is found but points to a different snapshot - name mismatch',
      vs: deleting('snap3-6', 'snapuid3-6', { claim: 'claim', bound: 'snapcontent-snapuid3-6', ready: true }),
      contents: [content('snapcontent-snapuid3-6', { snapshot: 'snap3-6-x', uid: 'snapuid3-6', volumeHandle: 'pv' })],
      want: { action: 'finishDeletion', removeFinalizers: BOTH },
    },
    {
      name: '3-7 - (static) content will be deleted if snapshot deletion timestamp is set',
      vs: deleting('snap3-7', 'snapuid3-7', { content: 'content3-7', bound: 'content3-7', ready: true }),
      contents: [content('content3-7', { snapshot: 'snap3-7', uid: 'snapuid3-7', snapshotHandle: 'sid', annotations: { [BEING_DELETED]: 'yes' } })],
      want: { action: 'finishDeletion', deleteContent: 'content3-7', removeFinalizers: [SOURCE] },
    },
    {
      name: '3-9 - (static) content will not be deleted if retainPolicy is set, snapshot should have its finalizer removed',
      vs: deleting('snap3-9', 'snapuid3-9', { content: 'content3-9', bound: 'content3-9', ready: true }),
      contents: [content('content3-9', { snapshot: 'snap3-9', uid: 'snapuid3-9', snapshotHandle: 'sid', policy: 'Retain' })],
      want: { action: 'finishDeletion', annotateContent: 'content3-9', removeFinalizers: BOTH },
    },
    {
      name: '3-10 - (static) snapshot should have its finalizer removed if no content has been found',
      vs: deleting('snap3-10', 'snapuid3-10', { content: 'content3-10', bound: 'content3-10', ready: true }),
      want: { action: 'finishDeletion', removeFinalizers: BOTH },
    },
    {
      name: '(static) a Retain content with a restore in flight still holds the deletion',
      vs: deleting('snap-r', 'uid-r', { content: 'c', bound: 'c', ready: true }),
      contents: [content('c', { snapshot: 'snap-r', uid: 'uid-r', snapshotHandle: 'sid', policy: 'Retain' })],
      restoring: ['restored'],
      want: {
        action: 'pending',
        event: { type: 'Warning', reason: 'SnapshotDeletePending', message: 'Snapshot is being used to restore a PVC' },
        why: 'snapshot default/snap-r is in use (being used to restore a PVC), will retry deletion',
      },
    },
    {
      name: 'a deleted snapshot without snapshot finalizers is no deletion candidate',
      vs: deleting('snap-n', 'uid-n', { content: 'c', finalizers: ['example.com/other'] }),
      want: { action: 'none', why: 'deleted, and holds no snapshot finalizer' },
    },
  ])('$name', ({ vs, contents, restoring, want }) => {
    expect(decideSnapshot(facts(vs, contents, restoring))).toEqual(want);
  });
});

describe('decideContent (syncContent, snapshot_update_test.go 5-x and snapshot_delete_test.go 1-x)', () => {
  const bound = snap('snap', 'uid', { content: 'c', bound: 'c', ready: true });
  test.each<{ name: string; c: VolumeSnapshotContent; vs?: VolumeSnapshot; want: ReturnType<typeof decideContent> }>([
    {
      name: 'a content with both handles: ContentValidationError',
      c: content('c', { snapshot: 'snap', uid: 'uid', snapshotHandle: 'h', volumeHandle: 'v' }),
      want: { action: 'invalid', event: { type: 'Warning', reason: 'ContentValidationError', message: 'Exactly one of VolumeHandle and SnapshotHandle should be specified' } },
    },
    {
      name: '1-1 - noop: a pre-provisioned content without ref uid waits for its snapshot to bind it',
      c: content('c', { snapshot: 'snap', snapshotHandle: 'h', finalizers: [] }),
      want: { action: 'none', why: 'reserved for a snapshot that has not bound it yet' },
    },
    { name: '5-1 - content missing finalizer is updated to have finalizer', c: content('c', { snapshot: 'snap', uid: 'uid', snapshotHandle: 'h', finalizers: [] }), vs: bound, want: { action: 'addFinalizer' } },
    {
      name: '5-6 - (static) snapshot deletion candidate: the content is marked being deleted',
      c: content('c', { snapshot: 'snap', uid: 'uid', snapshotHandle: 'h' }),
      vs: { ...bound, metadata: { ...bound.metadata, deletionTimestamp: NOW } },
      want: { action: 'markBeingDeleted' },
    },
    {
      name: 'a content whose snapshot is gone is kept (never deleted: it may be a copied manifest)',
      c: content('c', { snapshot: 'snap', uid: 'uid', snapshotHandle: 'h' }),
      want: { action: 'none', why: 'its snapshot is gone: the content is kept' },
    },
    {
      name: 'a snapshot of the same name but another uid counts as gone',
      c: content('c', { snapshot: 'snap', uid: 'uid-old', snapshotHandle: 'h' }),
      vs: { ...bound, metadata: { ...bound.metadata, deletionTimestamp: NOW } },
      want: { action: 'none', why: 'its snapshot is gone: the content is kept' },
    },
    {
      name: 'the snapshot lags the content (ready): look at the snapshot now',
      c: content('c', { snapshot: 'snap', uid: 'uid', snapshotHandle: 'h', status: { readyToUse: true } }),
      vs: snap('snap', 'uid', { content: 'c', bound: 'c', ready: false }),
      want: { action: 'syncSnapshot' },
    },
  ])('$name', ({ c, vs, want }) => {
    expect(decideContent(c, vs)).toEqual(want);
  });
});

describe('default class (snapshotclass_test.go, SetDefaultSnapshotClass)', () => {
  const cls = (name: string, driver: string, isDefault: boolean): VolumeSnapshotClass => ({
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshotClass',
    metadata: { name, ...(isDefault ? { annotations: { 'snapshot.storage.kubernetes.io/is-default-class': 'true' } } : {}) },
    driver,
    deletionPolicy: 'Delete',
  });
  test.each([
    { name: 'exactly one default of the driver', classes: [cls('a', 'd1', true), cls('b', 'd1', false), cls('c', 'd2', true)], want: { ok: true, className: 'a' } },
    { name: 'no default of the driver', classes: [cls('a', 'd1', false), cls('c', 'd2', true)], want: { ok: false, message: 'cannot find default snapshot class' } },
    { name: 'two defaults of the driver', classes: [cls('a', 'd1', true), cls('b', 'd1', true)], want: { ok: false, message: '2 default snapshot classes were found' } },
  ])('$name', ({ classes, want }) => {
    expect(chooseDefaultSnapshotClass(classes, 'd1')).toEqual(want);
  });

  test('1-1 - default snapshot class name should be set', () => {
    expect(decideSnapshotClass({ snapshot: snap('s', 'u', { claim: 'c' }), classes: [cls('a', 'd1', true)], sourceDriver: { driver: 'd1' } })).toEqual({ action: 'setClass', className: 'a' });
  });
  test('1-2 - snapshot class name already set', () => {
    expect(decideSnapshotClass({ snapshot: snap('s', 'u', { claim: 'c', cls: 'a' }), classes: [cls('a', 'd1', false)] })).toEqual({ action: 'none' });
  });
  test('1-3 - snapshot class name not found: GetSnapshotClassFailed', () => {
    const message = 'Failed to get snapshot class with error volumesnapshotclass.snapshot.storage.k8s.io "gone" not found';
    expect(decideSnapshotClass({ snapshot: snap('s', 'u', { claim: 'c', cls: 'gone' }), classes: [] })).toEqual({ action: 'error', message, event: { type: 'Warning', reason: 'GetSnapshotClassFailed', message }, proceed: false });
  });
  test('1-5 - the default class cannot be chosen: SetDefaultSnapshotClassFailed', () => {
    const message = 'Failed to set default snapshot class with error 2 default snapshot classes were found';
    expect(decideSnapshotClass({ snapshot: snap('s', 'u', { claim: 'c' }), classes: [cls('a', 'd1', true), cls('b', 'd1', true)], sourceDriver: { driver: 'd1' } })).toEqual({
      action: 'error',
      message,
      event: { type: 'Warning', reason: 'SetDefaultSnapshotClassFailed', message },
      proceed: false,
    });
  });
  test('a pre-provisioned snapshot needs no class', () => {
    expect(decideSnapshotClass({ snapshot: snap('s', 'u', { content: 'c' }), classes: [] })).toEqual({ action: 'none' });
  });
  test('a snapshot being deleted proceeds without its class', () => {
    expect(decideSnapshotClass({ snapshot: snap('s', 'u', { claim: 'c', cls: 'gone', deleting: true }), classes: [] })).toMatchObject({ action: 'error', proceed: true });
  });
});

describe('the claim being snapshotted and restored (snapshot_finalizer_test.go 1-x)', () => {
  const claim = (finalizers: string[], o: { deleting?: boolean; phase?: string; dataSource?: string } = {}): PersistentVolumeClaim => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'claim1', namespace: 'default', finalizers, ...(o.deleting ? { deletionTimestamp: NOW } : {}) },
    spec: { ...(o.dataSource ? { dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: o.dataSource } } : {}) },
    status: { phase: o.phase ?? 'Bound' },
  });
  test('1-1 - successful add PVC finalizer', () => expect(ensureClaimSourceFinalizer(claim([]))).toEqual({ action: 'add' }));
  test('1-2 - won\'t add PVC finalizer; already added', () => expect(ensureClaimSourceFinalizer(claim([PVC_SOURCE]))).toEqual({ action: 'none' }));
  test('a claim being deleted gets no finalizer', () =>
    expect(ensureClaimSourceFinalizer(claim([], { deleting: true }))).toEqual({ action: 'error', message: 'cannot add finalizer on claim because it is being deleted' }));
  test('1-3 - successful remove PVC finalizer: its only snapshot is ready', () =>
    expect(releaseClaimSourceFinalizer(claim([PVC_SOURCE]), [snap('s', 'u', { claim: 'claim1', ready: true })])).toEqual({ action: 'remove' }));
  test('1-4 - won\'t remove PVC finalizer; already removed', () => expect(releaseClaimSourceFinalizer(claim([]), [])).toEqual({ action: 'none' }));
  test('1-5 - won\'t remove PVC finalizer; PVC in-use', () =>
    expect(releaseClaimSourceFinalizer(claim([PVC_SOURCE]), [snap('s', 'u', { claim: 'claim1', ready: false })])).toEqual({ action: 'none' }));
  test('the snapshot being deleted is skipped when it releases the claim', () =>
    expect(releaseClaimSourceFinalizer(claim([PVC_SOURCE]), [snap('s', 'u', { claim: 'claim1', ready: false })], 's')).toEqual({ action: 'remove' }));
  test('claims restoring from a snapshot: Pending, dataSource the snapshot (isVolumeBeingCreatedFromSnapshot)', () => {
    const vs = snap('snap1', 'u', { claim: 'c' });
    const claims = [
      { ...claim([], { phase: 'Pending', dataSource: 'snap1' }), metadata: { name: 'restoring', namespace: 'default' } },
      { ...claim([], { phase: 'Bound', dataSource: 'snap1' }), metadata: { name: 'restored', namespace: 'default' } },
      { ...claim([], { phase: 'Pending', dataSource: 'other' }), metadata: { name: 'from-other', namespace: 'default' } },
      { ...claim([], { phase: 'Pending', dataSource: 'snap1' }), metadata: { name: 'elsewhere', namespace: 'team-b' } },
    ];
    expect(claimsRestoringFrom(vs, claims)).toEqual(['restoring']);
  });
});

describe('taking a snapshot of a claim (snapshot_create_test.go, createSnapshotContent)', () => {
  const DRIVER = 'stowage.io/btrfs';
  const classes: VolumeSnapshotClass[] = [
    { apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshotClass', metadata: { name: 'valid' }, driver: DRIVER, deletionPolicy: 'Delete' },
    { apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshotClass', metadata: { name: 'other-driver' }, driver: 'stowage.io/loop', deletionPolicy: 'Retain' },
  ];
  const claim = (o: { phase?: string; volume?: string; deleting?: boolean } = {}): PersistentVolumeClaim => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'claim1', namespace: 'default', uid: 'pvc-uid1', ...(o.deleting ? { deletionTimestamp: NOW } : {}) },
    spec: { volumeName: o.volume ?? 'volume1' },
    status: { phase: (o.phase ?? 'Bound') },
  });
  const volume = (o: { driver?: string | null; mode?: 'Block' } = {}): PersistentVolume => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'volume1', ...(o.driver === null ? {} : { annotations: { 'pv.kubernetes.io/provisioned-by': o.driver ?? DRIVER } }) },
    spec: { capacity: { storage: '1Gi' }, local: { path: '/pool/volume1' }, ...(o.mode ? { volumeMode: o.mode } : {}) },
  });
  const vs = (cls?: string) => ({ ...snap('snap1', 'snapuid1', { claim: 'claim1', cls }), metadata: { name: 'snap1', namespace: 'default', uid: 'snapuid1', resourceVersion: '7' } });
  const inTree = (d: string) => (d.startsWith('stowage.io/') ? d !== 'stowage.io/static' : undefined);
  const fail = (m: string) => ({ ok: false, reason: 'SnapshotContentCreationFailed', message: `Failed to create snapshot content with error ${m}` });

  test.each<{ name: string; snapshot: VolumeSnapshot; claim?: PersistentVolumeClaim; volume?: PersistentVolume; want: unknown }>([
    { name: '7-1 - fail to create snapshot with non-existing snapshot class', snapshot: vs('non-existing'), claim: claim(), volume: volume(), want: fail('failed to get input parameters to create snapshot snap1: "volumesnapshotclass.snapshot.storage.k8s.io \\"non-existing\\" not found"') },
    { name: '7-2 - fail to create snapshot without a snapshot class', snapshot: vs(), claim: claim(), volume: volume(), want: fail('failed to get input parameters to create snapshot snap1: "failed to take snapshot snap1 without a snapshot class"') },
    { name: '7-4 - fail create snapshot with no-existing claim', snapshot: vs('valid'), want: fail('snapshot controller failed to update snap1 on API server: cannot get claim from snapshot') },
    { name: '7-4 - a missing claim is reported before a missing class (ensurePVCFinalizer comes first)', snapshot: vs('non-existing'), want: fail('snapshot controller failed to update snap1 on API server: cannot get claim from snapshot') },
    { name: 'fail to create snapshot with a PVC that is not Bound (getVolumeFromVolumeSnapshot)', snapshot: vs('valid'), claim: claim({ phase: 'Pending' }), want: fail('failed to get input parameters to create snapshot snap1: "the PVC claim1 is not yet bound to a PV, will not attempt to take a snapshot"') },
    { name: '7-5 - fail to create snapshot without the PV', snapshot: vs('valid'), claim: claim(), want: fail('failed to get input parameters to create snapshot snap1: "failed to retrieve PV volume1 from the API server: \\"persistentvolume \\\\\\"volume1\\\\\\" not found\\""') },
    { name: '7-6 - fail to create snapshot of a non-CSI volume (a local static volume)', snapshot: vs('valid'), claim: claim(), volume: volume({ driver: null }), want: fail('cannot find CSI PersistentVolumeSource for volume volume1') },
    { name: 'a volume of an in-tree plugin that cannot snapshot is refused the same way', snapshot: vs('valid'), claim: claim(), volume: volume({ driver: 'stowage.io/static' }), want: fail('cannot find CSI PersistentVolumeSource for volume volume1') },
    { name: "a class whose driver is not the volume's", snapshot: vs('other-driver'), claim: claim(), volume: volume(), want: fail('the VolumeSnapshotClass other-driver is for driver stowage.io/loop, but volume volume1 of PVC claim1 is of driver stowage.io/btrfs') },
    { name: 'a claim being deleted gets no new snapshot', snapshot: vs('valid'), claim: claim({ deleting: true }), volume: volume(), want: fail('snapshot controller failed to update claim1 on API server: cannot add finalizer on claim because it is being deleted') },
  ])('$name', ({ snapshot, claim: c, volume: v, want }) => {
    expect(contentToCreate({ snapshot, classes, claim: c, volume: v, canSnapshot: inTree })).toEqual(want);
  });

  test('7-7 - successful create: snapcontent-<uid>, bound to the snapshot, the class\'s driver and policy, the volume as its handle and mode', () => {
    expect(contentToCreate({ snapshot: vs('valid'), classes, claim: claim(), volume: volume({ mode: 'Block' }), canSnapshot: inTree })).toEqual({
      ok: true,
      content: {
        apiVersion: 'snapshot.storage.k8s.io/v1',
        kind: 'VolumeSnapshotContent',
        metadata: { name: 'snapcontent-snapuid1' },
        spec: {
          volumeSnapshotRef: { kind: 'VolumeSnapshot', apiVersion: 'snapshot.storage.k8s.io/v1', name: 'snap1', namespace: 'default', uid: 'snapuid1', resourceVersion: '7' },
          source: { volumeHandle: 'volume1' },
          volumeSnapshotClassName: 'valid',
          deletionPolicy: 'Delete',
          driver: DRIVER,
          sourceVolumeMode: 'Block',
        },
      },
    });
  });

  test('a class naming a snapshotter Secret: the deletion-secret annotations on the content (createSnapshotContent)', () => {
    const secretClass: VolumeSnapshotClass = {
      ...classes[0],
      metadata: { name: 'secret' },
      parameters: { 'csi.storage.k8s.io/snapshotter-secret-name': '${volumesnapshot.name}-creds', 'csi.storage.k8s.io/snapshotter-secret-namespace': 'creds' },
    };
    const got = contentToCreate({ snapshot: vs('secret'), classes: [...classes, secretClass], claim: claim(), volume: volume(), canSnapshot: inTree });
    expect(got.ok && got.content.metadata.annotations).toEqual({
      'snapshot.storage.kubernetes.io/deletion-secret-name': 'snap1-creds',
      'snapshot.storage.kubernetes.io/deletion-secret-namespace': 'creds',
    });
  });

  test('a class whose snapshotter Secret does not resolve: the input error, nothing made', () => {
    const bad: VolumeSnapshotClass = { ...classes[0], metadata: { name: 'bad' }, parameters: { 'csi.storage.k8s.io/snapshotter-secret-name': 'x' } };
    expect(contentToCreate({ snapshot: vs('bad'), classes: [...classes, bad], claim: claim(), volume: volume(), canSnapshot: inTree })).toEqual(
      fail('failed to get input parameters to create snapshot snap1: "failed to get name and namespace template from params: either name and namespace for Snapshotter secrets specified, Both must be specified"'),
    );
  });


  test('a snapshot without a PVC source: SnapshotPVCSourceMissing', () => {
    expect(contentToCreate({ snapshot: snap('s', 'u', { content: 'c' }), classes, canSnapshot: inTree })).toMatchObject({ ok: false, reason: 'SnapshotPVCSourceMissing' });
  });
});
