import { describe, expect, it } from 'vitest';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import { chooseDeleter, deleterAction } from './decide';
import { annDynamicallyProvisioned } from '../../domain/well-known/annotations';
import { pvControllerFinalizer } from '../../domain/well-known/finalizers';

function pv(o: { phase?: string; policy?: string; uid?: string; finalizers?: string[]; deleting?: boolean; provisioned?: boolean } = {}): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: 'pvc-1',
      annotations: o.provisioned === false ? {} : { [annDynamicallyProvisioned]: 'stowage.io/host-path' },
      finalizers: o.finalizers ?? [pvControllerFinalizer],
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: { claimRef: { namespace: 'ns', name: 'c', uid: o.uid ?? 'u1' }, persistentVolumeReclaimPolicy: o.policy ?? 'Delete' },
    status: { phase: o.phase ?? 'Released' },
  };
}
const claim = (uid: string, volumeName?: string): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'ns', uid },
  spec: { volumeName },
});

function local(): PersistentVolume {
  const v = pv();
  v.metadata.annotations = { [annDynamicallyProvisioned]: 'local-volume-provisioner' };
  return v;
}

describe('deleterAction', () => {
  it.each([
    { name: 'Released, Delete, in-tree, claim gone', volume: pv(), inTree: true, action: 'delete' },
    { name: 'Failed (an earlier delete failed)', volume: pv({ phase: 'Failed' }), inTree: true, action: 'delete' },
    { name: 'deleted while Released (finalizer holds it)', volume: pv({ deleting: true }), inTree: true, action: 'delete' },
    { name: 'external provisioner', volume: pv(), inTree: false, action: 'none' },
    { name: 'local volume (the local-volume manager reclaims it)', volume: local(), inTree: true, action: 'none' },
    { name: 'not provisioned at all', volume: pv({ provisioned: false }), inTree: true, action: 'none' },
    { name: 'Bound', volume: pv({ phase: 'Bound' }), inTree: true, action: 'none' },
    { name: 'Retain', volume: pv({ policy: 'Retain', finalizers: [] }), inTree: true, action: 'none' },
    { name: 'Retain with our finalizer', volume: pv({ policy: 'Retain' }), inTree: true, action: 'dropFinalizer' },
    { name: 'deleting and our finalizer gone', volume: pv({ deleting: true, finalizers: [] }), inTree: true, action: 'none' },
  ])('$name -> $action', ({ volume, inTree, action }) => {
    expect(deleterAction(volume, undefined, inTree).action).toBe(action);
  });
  it('waits while the claim still uses the volume', () => {
    expect(deleterAction(pv(), claim('u1', 'pvc-1'), true)).toEqual({ action: 'none', why: 'its claim still uses it' });
  });
});

describe('chooseDeleter (upstream findDeletablePlugin; cases 4-10 and 8-3 of pv_controller_test/delete_test)', () => {
  const inTree = new Set(['stowage.io/host-path']);
  const withAnn = (ann?: string): PersistentVolume => {
    const v = pv();
    v.metadata.name = 'volume8-3';
    v.metadata.annotations = ann === undefined ? {} : { [annDynamicallyProvisioned]: ann };
    return v;
  };
  it.each([
    { ann: 'stowage.io/host-path', want: { deleter: 'inTree', plugin: 'stowage.io/host-path' } },
    { ann: 'example.com/nfs', want: { deleter: 'external', provisioner: 'example.com/nfs' } },
    { ann: 'kubernetes.io/gce-pd', want: { deleter: 'none', message: 'no deletable volume plugin matched name: kubernetes.io/gce-pd' } },
    { ann: '', want: { deleter: 'none', message: 'error getting deleter volume plugin for volume "volume8-3": no deletable volume plugin matched' } },
    { ann: undefined, want: { deleter: 'none', message: 'error getting deleter volume plugin for volume "volume8-3": no deletable volume plugin matched' } },
  ])('provisioned-by $ann -> $want.deleter', ({ ann, want }) => {
    expect(chooseDeleter(withAnn(ann), inTree)).toEqual(want);
  });
});
