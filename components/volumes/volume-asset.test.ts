import { describe, expect, it } from 'vitest';
import type { PersistentVolume } from '@/server/resources/persistent-volume/schema';
import { nodePinningOf, volumeAssetOf } from './volume-asset';

const pv = (spec: PersistentVolume['spec']): PersistentVolume => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv' }, spec });

describe('volumeAssetOf', () => {
  const cases: { name: string; spec: PersistentVolume['spec']; type: string; fields: [string, string][] }[] = [
    { name: 'hostPath: its path and type', spec: { hostPath: { path: '/srv/a', type: 'Directory' } }, type: 'hostPath', fields: [['Path', '/srv/a'], ['Path type', 'Directory']] },
    { name: 'local: its path', spec: { local: { path: '/mnt/disks/d1' } }, type: 'local', fields: [['Path', '/mnt/disks/d1']] },
    { name: 'nfs: server:path', spec: { nfs: { server: 'nas', path: '/exports/x' } }, type: 'nfs', fields: [['Export', 'nas:/exports/x']] },
    { name: 'csi: driver and handle', spec: { csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' } }, type: 'csi', fields: [['Driver', 'ebs.csi.aws.com'], ['Volume handle', 'vol-1']] },
    { name: 'no source: nothing', spec: { capacity: { storage: '1Gi' } }, type: '', fields: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const a = volumeAssetOf(pv(c.spec));
      expect(a.type).toBe(c.type);
      expect(a.fields.map((f) => [f.label, f.value])).toEqual(c.fields);
    });
  }
});

describe('nodePinningOf', () => {
  it('names the hosts of kubernetes.io/hostname In, and prints the rest', () => {
    const p = nodePinningOf(
      pv({
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1', 'n2'] }, { key: 'zone', operator: 'Exists' }] },
              { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n2'] }] },
            ],
          },
        },
      }),
    );
    expect(p).toEqual({ nodes: ['n1', 'n2'], other: ['zone Exists'] });
  });
  it('is undefined without node affinity', () => expect(nodePinningOf(pv({}))).toBeUndefined());
});
