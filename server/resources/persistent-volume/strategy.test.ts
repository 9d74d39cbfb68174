import { describe, expect, test } from 'vitest';
import { created, patched } from '../testing';
import { csiPV, hostnameAffinity, hostPathPV, localPV, nfsPV } from './fixtures';
import type { PersistentVolume } from './schema';
import { persistentVolumeStrategy as strategy } from './strategy';

const defaulted = (pv: PersistentVolume) => {
  const obj = structuredClone(pv);
  strategy.applyDefaults(obj);
  return obj;
};

describe('PersistentVolume defaults', () => {
  test.each([
    { rule: 'reclaim policy defaults to Retain', pv: localPV, path: ['spec', 'persistentVolumeReclaimPolicy'], want: 'Retain' },
    { rule: 'an explicit reclaim policy is kept', pv: csiPV, path: ['spec', 'persistentVolumeReclaimPolicy'], want: 'Delete' },
    { rule: 'volume mode defaults to Filesystem', pv: localPV, path: ['spec', 'volumeMode'], want: 'Filesystem' },
    { rule: 'an explicit volume mode is kept', pv: csiPV, path: ['spec', 'volumeMode'], want: 'Block' },
    { rule: 'status phase defaults to Pending', pv: localPV, path: ['status', 'phase'], want: 'Pending' },
    { rule: 'hostPath type defaults to unset', pv: patched(hostPathPV, { spec: { hostPath: { type: undefined } } }), path: ['spec', 'hostPath', 'type'], want: '' },
    { rule: '1024Mi is stored as 1Gi', pv: patched(localPV, { spec: { capacity: { storage: '1024Mi' } } }), path: ['spec', 'capacity', 'storage'], want: '1Gi' },
    { rule: 'a plain number is stored as a decimal string', pv: patched(localPV, { spec: { capacity: { storage: 1073741824 } } }), path: ['spec', 'capacity', 'storage'], want: '1073741824' },
    { rule: 'decimal quantities stay decimal', pv: patched(localPV, { spec: { capacity: { storage: '1500M' } } }), path: ['spec', 'capacity', 'storage'], want: '1500M' },
    { rule: 'an unparsable quantity is left for validation', pv: patched(localPV, { spec: { capacity: { storage: 'lots' } } }), path: ['spec', 'capacity', 'storage'], want: 'lots' },
  ])('$rule', ({ pv, path, want }) => {
    const got = path.reduce<any>((o, k) => o?.[k], defaulted(pv));
    expect(got).toBe(want);
  });

  test('null fields are dropped, as Go decoding does', () => {
    // A null the type has no room for, as a client may send it.
    const pv = defaulted({ ...structuredClone(localPV), status: null } as unknown as PersistentVolume);
    expect(pv.status).toEqual({ phase: 'Pending' });
  });
});

describe('PersistentVolume create and update preparation', () => {
  test('create resets status to Pending with a transition time', () => {
    const pv = patched(localPV, { status: { phase: 'Bound', message: 'x' } });
    strategy.prepareForCreate(pv);
    expect(pv.status).toEqual({ phase: 'Pending', lastPhaseTransitionTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
  });

  test('an update keeps the stored status and system metadata', () => {
    const prev = created(strategy, localPV, { uid: 'u-1', creationTimestamp: '2024-01-01T00:00:00Z' });
    prev.status = { phase: 'Bound' };
    const next = patched(prev, { metadata: { uid: undefined, creationTimestamp: '2030-01-01T00:00:00Z' }, status: { phase: 'Available' } });
    strategy.prepareForUpdate(next, prev);
    expect(next.status).toEqual({ phase: 'Bound' });
    expect(next.metadata.uid).toBe('u-1');
    expect(next.metadata.creationTimestamp).toBe('2024-01-01T00:00:00Z');
  });

  test('a status update keeps the stored spec and stamps a phase change', () => {
    const prev = created(strategy, localPV);
    prev.status = { phase: 'Pending', lastPhaseTransitionTime: '2024-01-01T00:00:00Z' };
    const next = patched(prev, { spec: { capacity: { storage: '1Ti' } }, status: { phase: 'Available' } });
    strategy.prepareForStatusUpdate(next, prev);
    expect(next.spec?.capacity?.storage).toBe('10Gi');
    expect(next.status?.phase).toBe('Available');
    // Not `?.`: a missing status must fail here, not pass.
    expect(next.status!.lastPhaseTransitionTime).not.toBe('2024-01-01T00:00:00Z');
  });

  test('a status update without a phase change keeps the transition time', () => {
    const prev = created(strategy, localPV);
    prev.status = { phase: 'Available', lastPhaseTransitionTime: '2024-01-01T00:00:00Z' };
    const next = patched(prev, { status: { lastPhaseTransitionTime: undefined, message: 'checked' } });
    strategy.prepareForStatusUpdate(next, prev);
    expect(next.status).toEqual({ phase: 'Available', lastPhaseTransitionTime: '2024-01-01T00:00:00Z', message: 'checked' });
  });
});

describe('PersistentVolume indexed columns', () => {
  test('a local volume bound to a claim', () => {
    const pv = created(strategy, patched(localPV, { spec: { claimRef: { namespace: 'team-a', name: 'data', uid: 'c-1' } } }));
    pv.status = { phase: 'Bound' };
    expect(strategy.columns(pv)).toEqual({
      phase: 'Bound',
      storageClass: 'local-storage',
      capacityBytes: '10737418240',
      accessModes: 1,
      volumeMode: 'Filesystem',
      claimNamespace: 'team-a',
      claimName: 'data',
      claimUid: 'c-1',
      nodeName: 'node-1',
      volumeName: null,
      provisioning: false,
      usedBytes: null,
    });
  });

  test.each([
    { rule: 'no class is the empty class', pv: nfsPV, column: 'storageClass', want: '' },
    { rule: 'the beta class annotation wins', pv: patched(localPV, { metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': 'gold' } } }), column: 'storageClass', want: 'gold' },
    { rule: 'access modes become bits', pv: nfsPV, column: 'accessModes', want: 2 | 4 },
    { rule: 'ReadWriteOncePod is bit 8', pv: csiPV, column: 'accessModes', want: 8 },
    { rule: 'huge capacities are exact', pv: patched(localPV, { spec: { capacity: { storage: '100E' } } }), column: 'capacityBytes', want: '100000000000000000000' },
    { rule: 'no node for a volume without affinity', pv: nfsPV, column: 'nodeName', want: null },
    { rule: 'no single node when terms name different hosts', pv: patched(localPV, { spec: { nodeAffinity: hostnameAffinity('a', 'b') } }), column: 'nodeName', want: null },
    { rule: 'the alpha class annotation marks provisioning', pv: patched(nfsPV, { metadata: { annotations: { 'volume.alpha.kubernetes.io/storage-class': 'x' } } }), column: 'provisioning', want: true },
    { rule: 'an unbound volume has no claim', pv: nfsPV, column: 'claimName', want: null },
    { rule: 'used bytes from a measurement', pv: patched(nfsPV, { metadata: { annotations: { 'stowage.io/used-bytes': '4096', 'stowage.io/used-bytes-time': '2026-11-25T00:00:00Z' } } }), column: 'usedBytes', want: '4096' },
    { rule: 'garbled used bytes are no measurement', pv: patched(nfsPV, { metadata: { annotations: { 'stowage.io/used-bytes': '12e3', 'stowage.io/used-bytes-time': '2026-11-25T00:00:00Z' } } }), column: 'usedBytes', want: null },
  ])('$rule', ({ pv, column, want }) => {
    expect((strategy.columns(created(strategy, pv)) as Record<string, unknown>)[column]).toEqual(want);
  });
});

describe('PersistentVolume table', () => {
  const now = new Date('2024-01-06T00:00:00Z');

  test('columns are the ones kubectl prints', () => {
    expect(strategy.table.columns.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0],
      ['Capacity', 0],
      ['Access Modes', 0],
      ['Reclaim Policy', 0],
      ['Status', 0],
      ['Claim', 0],
      ['StorageClass', 0],
      ['Reason', 0],
      ['Age', 0],
      ['VolumeMode', 1],
    ]);
    expect(strategy.table.columns[0].format).toBe('name');
  });

  test.each([
    { rule: 'an available nfs volume', pv: nfsPV, status: { phase: 'Available' }, want: ['nfs-pv', '100Gi', 'ROX,RWX', 'Recycle', 'Available', '', '', '', '5d', 'Filesystem'] },
    {
      rule: 'a bound local volume',
      pv: patched(localPV, { spec: { claimRef: { namespace: 'ns', name: 'data' } } }),
      status: { phase: 'Bound' },
      want: ['local-pv-1', '10Gi', 'RWO', 'Retain', 'Bound', 'ns/data', 'local-storage', '', '5d', 'Filesystem'],
    },
    { rule: 'a failed volume shows its reason', pv: csiPV, status: { phase: 'Failed', reason: 'DeleteFailed' }, want: ['pvc-0a1b2c', '5Gi', 'RWOP', 'Delete', 'Failed', '', '', 'DeleteFailed', '5d', 'Block'] },
  ])('$rule', ({ pv, status, want }) => {
    const obj = created(strategy, pv);
    obj.status = status;
    expect(strategy.table.row(obj, now)).toEqual(want);
  });

  test('a volume being deleted shows Terminating', () => {
    const pv = created(strategy, localPV, { deletionTimestamp: '2024-01-05T00:00:00Z' });
    expect(strategy.table.row(pv, now)[4]).toBe('Terminating');
  });
});

describe('PersistentVolume resource names', () => {
  test('kubectl names', () => {
    expect([strategy.plural, strategy.singular, strategy.shortNames, strategy.namespaced]).toEqual(['persistentvolumes', 'persistentvolume', ['pv'], false]);
  });

  test('field selectors as upstream: only the legacy name', () => {
    expect(Object.keys(strategy.fieldSelectors)).toEqual(['name']);
    expect(strategy.fieldSelectors.name(localPV)).toBe('local-pv-1');
  });
});
