// Snapshots and contents for the snapshot controller's and the snapshotter's table tests:
// upstream's test objects (external-snapshotter newVolumeSnapshot, newContent), terse.
import type { VolumeSnapshotContent } from '../../resources/volume-snapshot-content/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';

export const NOW = '2026-11-25T12:00:00Z';
export const SOURCE = 'snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection';
export const BOUND = 'snapshot.storage.kubernetes.io/volumesnapshot-bound-protection';
export const CONTENT = 'snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection';
export const PVC_SOURCE = 'snapshot.storage.kubernetes.io/pvc-as-source-protection';
export const BEING_DELETED = 'snapshot.storage.kubernetes.io/volumesnapshot-being-deleted';
export const BOTH = [SOURCE, BOUND];

export interface SnapOpts {
  claim?: string;
  content?: string;
  cls?: string;
  bound?: string;
  ready?: boolean;
  finalizers?: string[];
  deleting?: boolean;
  status?: VolumeSnapshot['status'];
}

export function snap(name: string, uid: string, o: SnapOpts = {}): VolumeSnapshot {
  const status = o.status ?? (o.bound !== undefined || o.ready !== undefined ? { ...(o.bound ? { boundVolumeSnapshotContentName: o.bound } : {}), ...(o.ready !== undefined ? { readyToUse: o.ready } : {}) } : undefined);
  return {
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshot',
    metadata: { name, namespace: 'default', uid, finalizers: o.finalizers ?? BOTH, ...(o.deleting ? { deletionTimestamp: NOW } : {}) },
    spec: { source: { ...(o.claim ? { persistentVolumeClaimName: o.claim } : {}), ...(o.content ? { volumeSnapshotContentName: o.content } : {}) }, ...(o.cls ? { volumeSnapshotClassName: o.cls } : {}) },
    ...(status ? { status } : {}),
  };
}

export interface ContentOpts {
  snapshot: string;
  uid?: string;
  snapshotHandle?: string;
  volumeHandle?: string;
  policy?: 'Delete' | 'Retain';
  cls?: string;
  finalizers?: string[];
  annotations?: Record<string, string>;
  status?: VolumeSnapshotContent['status'];
  deleting?: boolean;
}

export function content(name: string, o: ContentOpts): VolumeSnapshotContent {
  return {
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshotContent',
    metadata: { name, finalizers: o.finalizers ?? [CONTENT], ...(o.annotations ? { annotations: o.annotations } : {}), ...(o.deleting ? { deletionTimestamp: NOW } : {}) },
    spec: {
      deletionPolicy: o.policy ?? 'Delete',
      driver: 'stowage.io/btrfs',
      source: { ...(o.snapshotHandle ? { snapshotHandle: o.snapshotHandle } : {}), ...(o.volumeHandle ? { volumeHandle: o.volumeHandle } : {}) },
      volumeSnapshotRef: { name: o.snapshot, namespace: 'default', ...(o.uid ? { uid: o.uid } : {}) },
      ...(o.cls ? { volumeSnapshotClassName: o.cls } : {}),
    },
    ...(o.status ? { status: o.status } : {}),
  };
}
