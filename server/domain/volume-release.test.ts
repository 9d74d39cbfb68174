import { describe, expect, it } from 'vitest';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import { isVolumeReleased } from './volume-release';

const pv = (uid?: string): PersistentVolume => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'pvc-1' },
  spec: { claimRef: { namespace: 'ns', name: 'c', ...(uid ? { uid } : {}) } },
  status: { phase: 'Released' },
});
const claim = (uid: string, volumeName?: string): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'ns', uid },
  spec: { volumeName },
});

describe('isVolumeReleased', () => {
  it.each([
    { name: 'claim gone', claim: undefined, released: true },
    { name: 'claim re-created with another uid', claim: claim('u2'), released: true },
    { name: 'claim bound to another volume', claim: claim('u1', 'pv-other'), released: true },
    { name: 'claim still bound to it', claim: claim('u1', 'pvc-1'), released: false },
    { name: 'claim not bound yet', claim: claim('u1'), released: false },
  ])('$name -> $released', ({ claim: c, released }) => {
    expect(isVolumeReleased(pv('u1'), c)).toBe(released);
  });
  it('a volume reserved by name only is not released', () => {
    expect(isVolumeReleased(pv(), undefined)).toBe(false);
  });
});
