// A claim's data source as upstream's external-provisioner checks it (controller_test.go
// TestProvisionFromSnapshot, TestProvisionFromPVC): each row names the upstream case.
import { describe, expect, test } from 'vitest';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../../resources/storage-class/schema';
import type { VolumeSnapshotContent } from '../../resources/volume-snapshot-content/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';
import { decideDataSource, type DataSourceFacts } from './data-source';
import { pendingClones } from './clone-protection';

const DRIVER = 'stowage.io/host-path';
const sc: StorageClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: DRIVER };

function claim(o: { size?: string; mode?: 'Block' | 'Filesystem'; snapshot?: string; clone?: string; apiGroup?: string; cls?: string } = {}): PersistentVolumeClaim {
  const ds = o.snapshot !== undefined ? { apiGroup: o.apiGroup ?? 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: o.snapshot } : o.clone !== undefined ? { kind: 'PersistentVolumeClaim', name: o.clone } : undefined;
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'new', namespace: 'apps', uid: 'new-uid' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: o.size ?? '1Gi' } }, storageClassName: o.cls ?? 'fast', ...(o.mode ? { volumeMode: o.mode } : {}), ...(ds ? { dataSource: ds, dataSourceRef: ds } : {}) },
  };
}

function snapshot(o: { ready?: boolean; bound?: boolean; deleting?: boolean; size?: string } = {}): VolumeSnapshot {
  return {
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshot',
    metadata: { name: 'snap', namespace: 'apps', uid: 'snap-uid', ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { source: { persistentVolumeClaimName: 'data' } },
    status: { ...(o.bound === false ? {} : { boundVolumeSnapshotContentName: 'snapcontent-snap-uid' }), readyToUse: o.ready ?? true, restoreSize: o.size ?? '1Gi' },
  };
}

function content(o: { uid?: string; driver?: string; handle?: string | null; mode?: 'Block' | 'Filesystem'; allowModeChange?: boolean } = {}): VolumeSnapshotContent {
  return {
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshotContent',
    metadata: { name: 'snapcontent-snap-uid', ...(o.allowModeChange ? { annotations: { 'snapshot.storage.kubernetes.io/allow-volume-mode-change': 'true' } } : {}) },
    spec: {
      deletionPolicy: 'Delete',
      driver: o.driver ?? DRIVER,
      source: { volumeHandle: 'pvc-src' },
      volumeSnapshotRef: { name: 'snap', namespace: 'apps', uid: o.uid ?? 'snap-uid' },
      ...(o.mode ? { sourceVolumeMode: o.mode } : {}),
    },
    status: { readyToUse: true, ...(o.handle === null ? {} : { snapshotHandle: o.handle ?? '/base/.snapshots/snapcontent-snap-uid' }) },
  };
}

function source(o: { phase?: 'Bound' | 'Pending'; cls?: string; size?: string; deleting?: boolean; volume?: boolean } = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data', namespace: 'apps', uid: 'src-uid', ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: o.size ?? '1Gi' } }, storageClassName: o.cls ?? 'fast', ...(o.volume === false ? {} : { volumeName: 'pvc-src' }) },
    status: { phase: o.phase ?? 'Bound' },
  };
}

function volume(o: { driver?: string; mode?: 'Block' | 'Filesystem'; claimUid?: string; phase?: 'Bound' | 'Released' } = {}): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pvc-src', annotations: { 'pv.kubernetes.io/provisioned-by': o.driver ?? DRIVER } },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/base/x' }, claimRef: { name: 'data', namespace: 'apps', uid: o.claimUid ?? 'src-uid' }, ...(o.mode ? { volumeMode: o.mode } : {}) },
    status: { phase: o.phase ?? 'Bound' },
  };
}

const prefix = (kind: string, name: string) => `error getting handle for DataSource Type ${kind} by Name ${name}: `;
const S = prefix('VolumeSnapshot', 'snap');
const P = prefix('PersistentVolumeClaim', 'data');

describe('restore from a VolumeSnapshot (getSnapshotSource)', () => {
  test.each<{ name: string; f: Omit<DataSourceFacts, 'storageClass'>; want: string | { contentName: string; handle: string } }>([
    { name: 'provision with a ready snapshot: the content and its handle', f: { claim: claim({ snapshot: 'snap' }), snapshot: snapshot(), content: content() }, want: { contentName: 'snapcontent-snap-uid', handle: '/base/.snapshots/snapcontent-snap-uid' } },
    { name: 'a larger request than the restore size is fine', f: { claim: claim({ snapshot: 'snap', size: '2Gi' }), snapshot: snapshot(), content: content() }, want: { contentName: 'snapcontent-snap-uid', handle: '/base/.snapshots/snapcontent-snap-uid' } },
    { name: 'the snapshot does not exist', f: { claim: claim({ snapshot: 'snap' }) }, want: `${S}error getting snapshot snap from api server: volumesnapshots.snapshot.storage.k8s.io "snap" not found` },
    { name: 'the snapshot is being deleted', f: { claim: claim({ snapshot: 'snap' }), snapshot: snapshot({ deleting: true }), content: content() }, want: `${S}snapshot snap is currently being deleted` },
    { name: 'the snapshot is not bound', f: { claim: claim({ snapshot: 'snap' }), snapshot: snapshot({ bound: false }) }, want: `${S}snapshot snap not bound` },
    { name: 'the bound content is missing (errorGettingSnapshotContent)', f: { claim: claim({ snapshot: 'snap' }), snapshot: snapshot() }, want: `${S}error getting snapshotcontent snapcontent-snap-uid for snapshot snap` },
    { name: 'the content is bound to a different snapshot (uid) (snapshotContentNotBoundToSnapshot)', f: { claim: claim({ snapshot: 'snap' }), snapshot: snapshot(), content: content({ uid: 'other' }) }, want: `${S}snapshotcontent snapcontent-snap-uid for snapshot snap is bound to a different snapshot` },
    { name: "the content's driver is not the class's provisioner (snapshotDifferentDriver)", f: { claim: claim({ snapshot: 'snap' }), snapshot: snapshot(), content: content({ driver: 'stowage.io/loop' }) }, want: `${S}snapshotcontent snapcontent-snap-uid for snapshot snap is not handled by CSI driver of StorageClass fast` },
    { name: 'the snapshot is not ready', f: { claim: claim({ snapshot: 'snap' }), snapshot: snapshot({ ready: false }), content: content() }, want: `${S}snapshot snap is not Ready` },
    { name: 'the content has no snapshot handle', f: { claim: claim({ snapshot: 'snap' }), snapshot: snapshot(), content: content({ handle: null }) }, want: `${S}snapshot handle snap is not available` },
    { name: 'fail provision with a request smaller than the restore size', f: { claim: claim({ snapshot: 'snap', size: '512Mi' }), snapshot: snapshot(), content: content() }, want: `${S}requested volume size 536870912 is less than the size 1073741824 for the source snapshot snap` },
    { name: 'volume mode conversion without the annotation is refused', f: { claim: claim({ snapshot: 'snap', mode: 'Block' }), snapshot: snapshot(), content: content({ mode: 'Filesystem' }) }, want: `${S}requested volume apps/new modifies the mode of the source volume but does not have permission to do so. snapshot.storage.kubernetes.io/allow-volume-mode-change annotation is not present on snapshotcontent snapcontent-snap-uid` },
    { name: 'volume mode conversion with the annotation is allowed', f: { claim: claim({ snapshot: 'snap', mode: 'Block' }), snapshot: snapshot(), content: content({ mode: 'Filesystem', allowModeChange: true }) }, want: { contentName: 'snapcontent-snap-uid', handle: '/base/.snapshots/snapcontent-snap-uid' } },
  ])('$name', ({ f, want }) => {
    const got = decideDataSource({ ...f, storageClass: sc });
    expect(got).toEqual(typeof want === 'string' ? { ok: false, message: want } : { ok: true, source: { kind: 'snapshot', ...want } });
  });

  test('a VolumeSnapshot of another apiGroup: upstream wording', () => {
    expect(decideDataSource({ claim: claim({ snapshot: 'snap', apiGroup: 'example.io' }), storageClass: sc })).toEqual({
      ok: false,
      message: 'the PVC source does not belong to the right APIGroup. Expected snapshot.storage.k8s.io, Got example.io',
    });
  });
});

describe('clone of a claim (getPVCSource)', () => {
  test.each<{ name: string; f: Omit<DataSourceFacts, 'storageClass'>; want?: string }>([
    { name: 'provision with a Bound source claim of the same class: its volume', f: { claim: claim({ clone: 'data' }), sourceClaim: source(), sourceVolume: volume() } },
    { name: 'the source claim does not exist', f: { claim: claim({ clone: 'data' }) }, want: `${P}error getting PVC data (namespace "apps") from api server: persistentvolumeclaim "data" not found` },
    { name: 'the source claim is not Bound', f: { claim: claim({ clone: 'data' }), sourceClaim: source({ phase: 'Pending' }) }, want: `${P}the PVC DataSource data must have a status of Bound.  Got {"phase":"Pending"}` },
    { name: 'the source claim is being deleted', f: { claim: claim({ clone: 'data' }), sourceClaim: source({ deleting: true }), sourceVolume: volume() }, want: `${P}the PVC DataSource data is currently being deleted` },
    { name: 'the source claim is of another class', f: { claim: claim({ clone: 'data' }), sourceClaim: source({ cls: 'slow' }), sourceVolume: volume() }, want: `${P}the source PVC and destination PVCs must be in the same storage class for cloning.  Source is in slow, but new PVC is in fast` },
    { name: 'the request is smaller than the source', f: { claim: claim({ clone: 'data', size: '1Mi' }), sourceClaim: source(), sourceVolume: volume() }, want: `${P}error, new PVC request must be greater than or equal in size to the specified PVC data source, requested 1048576 but source is 1073741824` },
    { name: 'the source claim names no volume', f: { claim: claim({ clone: 'data' }), sourceClaim: source({ volume: false }) }, want: `${P}volume name is empty in source PVC data` },
    { name: 'the source volume is of another driver', f: { claim: claim({ clone: 'data' }), sourceClaim: source(), sourceVolume: volume({ driver: 'stowage.io/loop' }) }, want: `${P}claim in dataSource not bound or invalid` },
    { name: 'the source volume is bound to a different claim', f: { claim: claim({ clone: 'data' }), sourceClaim: source(), sourceVolume: volume({ claimUid: 'x' }) }, want: `${P}claim in dataSource not bound or invalid` },
    { name: 'the source volume is not Bound', f: { claim: claim({ clone: 'data' }), sourceClaim: source(), sourceVolume: volume({ phase: 'Released' }) }, want: `${P}claim in dataSource not bound or invalid` },
    { name: 'Block source, Filesystem clone', f: { claim: claim({ clone: 'data' }), sourceClaim: source(), sourceVolume: volume({ mode: 'Block' }) }, want: `${P}the source PVC and destination PVCs must have the same volume mode for cloning.  Source is Block, but new PVC requested Filesystem` },
    { name: 'Filesystem source, Block clone', f: { claim: claim({ clone: 'data', mode: 'Block' }), sourceClaim: source(), sourceVolume: volume() }, want: `${P}the source PVC and destination PVCs must have the same volume mode for cloning.  Source is Filesystem, but new PVC requested Block` },
  ])('$name', ({ f, want }) => {
    const got = decideDataSource({ ...f, storageClass: sc });
    expect(got).toEqual(want === undefined ? { ok: true, source: { kind: 'volume', pvName: 'pvc-src' } } : { ok: false, message: want });
  });

  test('no data source: nothing to populate from', () => {
    expect(decideDataSource({ claim: claim(), storageClass: sc })).toEqual({ ok: true });
  });
});

describe('cloning protection (CloningProtectionController)', () => {
  const cloneOf = (name: string, src: string, phase: 'Pending' | 'Bound', ns = 'apps'): PersistentVolumeClaim => ({
    ...claim({ clone: src }),
    metadata: { name, namespace: ns },
    status: { phase },
  });
  test('only Pending claims of the namespace cloning this claim hold it', () => {
    const claims = [cloneOf('a', 'data', 'Pending'), cloneOf('b', 'data', 'Bound'), cloneOf('c', 'other', 'Pending'), cloneOf('d', 'data', 'Pending', 'elsewhere'), claim({ snapshot: 'data' })];
    expect(pendingClones(source(), claims)).toEqual(['a']);
  });
});
