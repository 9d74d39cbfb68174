// Cases from upstream pkg/api/persistentvolume/util_test.go and
// pkg/api/persistentvolumeclaim/util_test.go (TestWarnings).
import { describe, expect, it } from 'vitest';
import type { PersistentVolumeClaim } from './persistent-volume-claim/schema';
import type { PersistentVolume } from './persistent-volume/schema';
import type { KubeObject } from './types';
import { persistentVolumeClaimWarnings, persistentVolumeWarnings } from './volume-warnings';

function obj(kind: 'PersistentVolume', spec: PersistentVolume['spec'], annotations?: Record<string, string>): PersistentVolume;
function obj(kind: 'PersistentVolumeClaim', spec: PersistentVolumeClaim['spec'], annotations?: Record<string, string>): PersistentVolumeClaim;
function obj(kind: string, spec: unknown, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind,
    metadata: { name: 'x', ...(annotations ? { annotations } : {}) },
    spec,
  };
}
const beta = 'metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead';
const recycle =
  'spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.';

describe('persistentVolumeWarnings', () => {
  it.each([
    { name: 'no warning', pv: obj('PersistentVolume', { persistentVolumeReclaimPolicy: 'Retain' }), want: [] },
    { name: 'Recycle reclaim policy', pv: obj('PersistentVolume', { persistentVolumeReclaimPolicy: 'Recycle' }), want: [recycle] },
    { name: 'beta storage class annotation', pv: obj('PersistentVolume', {}, { 'volume.beta.kubernetes.io/storage-class': 'x' }), want: [beta] },
    {
      name: 'both',
      pv: obj('PersistentVolume', { persistentVolumeReclaimPolicy: 'Recycle' }, { 'volume.beta.kubernetes.io/storage-class': '' }),
      want: [beta, recycle],
    },
  ])('$name', ({ pv, want }) => {
    expect(persistentVolumeWarnings(pv)).toEqual(want);
  });
});

describe('persistentVolumeClaimWarnings', () => {
  it.each([
    { name: 'no warning', pvc: obj('PersistentVolumeClaim', {}), want: [] },
    { name: 'beta storage class annotation', pvc: obj('PersistentVolumeClaim', {}, { 'volume.beta.kubernetes.io/storage-class': 'x' }), want: [beta] },
  ])('$name', ({ pvc, want }) => {
    expect(persistentVolumeClaimWarnings(pvc)).toEqual(want);
  });
});
