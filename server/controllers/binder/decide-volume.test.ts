import { describe, expect, it } from 'vitest';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import { annDynamicallyProvisioned } from '../../domain/well-known/annotations';
import { decideVolume, type VolumeAction } from './decide-volume';

interface VolumeShape {
  ref?: 'none' | 'name' | 'uid';
  phase?: string;
  message?: string;
  policy?: string;
  provisionedBy?: string;
  mode?: string;
}

function volume(o: VolumeShape = {}): PersistentVolume {
  const ref = o.ref ?? 'uid';
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pv-1', annotations: o.provisionedBy ? { [annDynamicallyProvisioned]: o.provisionedBy } : {} },
    spec: {
      persistentVolumeReclaimPolicy: o.policy ?? 'Retain',
      ...(o.mode ? { volumeMode: o.mode } : {}),
      ...(ref === 'none' ? {} : { claimRef: { namespace: 'ns', name: 'c', ...(ref === 'uid' ? { uid: 'u1' } : {}) } }),
    },
    status: { phase: o.phase ?? 'Bound', ...(o.message ? { message: o.message } : {}) },
  };
}

const claim = (o: { uid?: string; volumeName?: string; phase?: string; mode?: string } = {}): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'ns', uid: o.uid ?? 'u1' },
  spec: { ...(o.volumeName ? { volumeName: o.volumeName } : {}), ...(o.mode ? { volumeMode: o.mode } : {}) },
  status: { phase: o.phase ?? 'Bound' },
});

/** The action in a few words: what the row's name promises. */
function summary(a: VolumeAction): string {
  switch (a.action) {
    case 'available':
      return `available, ${a.then}`;
    case 'release':
      return `release${a.setReleased ? '' : ' (phase kept)'}${a.fail ? `, Failed ${a.fail.reason}` : ''}${a.notice ? `, event ${a.notice.reason}` : ''}`;
    case 'bound':
      return `bound${a.enqueueClaim ? ', enqueueClaim' : ''}`;
    default:
      return a.action;
  }
}

const inTree = new Set(['stowage.io/host-path']);
const noDeleter = 'error getting deleter volume plugin for volume "pv-1": no deletable volume plugin matched';

describe('decideVolume (upstream syncVolume, reclaimVolume)', () => {
  it.each([
    { name: 'no claimRef', volume: volume({ ref: 'none', phase: 'Pending' }), claim: undefined, want: 'available, wakeClaims' },
    { name: 'reserved by name for a claim', volume: volume({ ref: 'name' }), claim: undefined, want: 'available, enqueueClaim' },
    { name: 'its claim is gone, Retain', volume: volume(), claim: undefined, want: 'release' },
    { name: 'its claim was re-created (another uid), Retain', volume: volume(), claim: claim({ uid: 'u2', volumeName: 'pv-1' }), want: 'release' },
    { name: 'its claim is gone, already Released', volume: volume({ phase: 'Released' }), claim: undefined, want: 'release (phase kept)' },
    { name: 'its claim is gone, Delete by an in-tree plugin', volume: volume({ policy: 'Delete', provisionedBy: 'stowage.io/host-path' }), claim: undefined, want: 'release' },
    { name: 'its claim is gone, Delete by an external provisioner', volume: volume({ policy: 'Delete', provisionedBy: 'example.com/nfs' }), claim: undefined, want: 'release' },
    { name: 'its claim is gone, Delete and nobody can', volume: volume({ policy: 'Delete' }), claim: undefined, want: 'release, Failed VolumeFailedDelete' },
    { name: 'Failed already with why nobody can delete it', volume: volume({ policy: 'Delete', phase: 'Failed', message: noDeleter }), claim: undefined, want: 'release (phase kept)' },
    { name: 'Failed for another reason, nobody can delete it', volume: volume({ policy: 'Delete', phase: 'Failed', message: 'disk on fire' }), claim: undefined, want: 'release (phase kept), Failed VolumeFailedDelete' },
    { name: 'its claim is gone, Recycle', volume: volume({ policy: 'Recycle' }), claim: undefined, want: 'release, Failed VolumeFailedRecycle' },
    { name: 'its claim is gone, Recycle, Failed already', volume: volume({ policy: 'Recycle', phase: 'Failed' }), claim: undefined, want: 'release (phase kept)' },
    { name: 'its claim is gone, Recycle, pods still name it', volume: volume({ policy: 'Recycle' }), claim: undefined, pods: ['ns/web-0'], want: 'release, event VolumeFailedRecycle' },
    { name: 'its claim was re-created, Recycle, pods name the new one', volume: volume({ policy: 'Recycle' }), claim: claim({ uid: 'u2' }), pods: ['ns/web-0'], want: 'release, Failed VolumeFailedRecycle' },
    { name: 'its claim is gone, an unknown policy', volume: volume({ policy: 'Shred' }), claim: undefined, want: 'release, Failed VolumeUnknownReclaimPolicy' },
    { name: 'bound on its side only', volume: volume(), claim: claim({ phase: 'Pending' }), want: 'enqueueClaim' },
    { name: 'bound on its side only, other volumeMode', volume: volume({ mode: 'Block' }), claim: claim({ phase: 'Pending' }), want: 'mismatch' },
    { name: 'bound both ways', volume: volume(), claim: claim({ volumeName: 'pv-1' }), want: 'bound' },
    { name: 'bound both ways, claim not Bound yet', volume: volume({ phase: 'Available' }), claim: claim({ volumeName: 'pv-1', phase: 'Pending' }), want: 'bound, enqueueClaim' },
    { name: 'its claim is bound to another volume', volume: volume(), claim: claim({ volumeName: 'pv-2' }), want: 'unbind' },
    { name: 'its claim took another volume, provisioned for it with Delete', volume: volume({ policy: 'Delete', provisionedBy: 'stowage.io/host-path' }), claim: claim({ volumeName: 'pv-2' }), want: 'release' },
  ])('$name -> $want', ({ volume: v, claim: c, want, ...rest }) => {
    const pods = (rest as { pods?: string[] }).pods;
    expect(summary(decideVolume({ volume: v, claim: c, inTreeProvisioners: inTree, podsUsingClaimRef: pods }))).toBe(want);
  });

  it('a Recycle volume still used by pods: a Normal event naming them, no Failed phase (upstream recycleVolumeOperation)', () => {
    expect(decideVolume({ volume: volume({ policy: 'Recycle' }), inTreeProvisioners: inTree, podsUsingClaimRef: ['apps/a', 'apps/b'] })).toEqual({
      action: 'release',
      setReleased: true,
      notice: { reason: 'VolumeFailedRecycle', message: 'Volume is used by pods: apps/a,apps/b' },
    });
  });

  it('the texts: Failed with the deleter message, the volumeMode mismatch on both sides', () => {
    expect(decideVolume({ volume: volume({ policy: 'Delete' }), inTreeProvisioners: inTree })).toEqual({
      action: 'release',
      setReleased: true,
      fail: { message: noDeleter, reason: 'VolumeFailedDelete', event: noDeleter, force: true },
    });
    expect(decideVolume({ volume: volume({ mode: 'Block' }), claim: claim({ phase: 'Pending' }), inTreeProvisioners: inTree })).toEqual({
      action: 'mismatch',
      volumeEvent: 'Cannot bind PersistentVolume to requested PersistentVolumeClaim "c" due to incompatible volumeMode.',
      claimEvent: 'Cannot bind PersistentVolume "pv-1" to requested PersistentVolumeClaim due to incompatible volumeMode.',
    });
  });
});
