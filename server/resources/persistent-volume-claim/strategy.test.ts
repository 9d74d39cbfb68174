import { describe, expect, test } from 'vitest';
import { created, lines, patched, updateErrors } from '../testing';
import type { KubeObject } from '../types';
import { claim } from './fixtures';
import { persistentVolumeClaimStrategy as strategy } from './strategy';

describe('PersistentVolumeClaim defaults and preparation', () => {
  test.each([
    { rule: 'volume mode defaults to Filesystem', pvc: claim, path: ['spec', 'volumeMode'], want: 'Filesystem' },
    { rule: 'status phase defaults to Pending', pvc: claim, path: ['status', 'phase'], want: 'Pending' },
    { rule: 'requests are canonical', pvc: patched(claim, { spec: { resources: { requests: { storage: '2048Mi' } } } }), path: ['spec', 'resources', 'requests', 'storage'], want: '2Gi' },
    { rule: 'limits are canonical', pvc: patched(claim, { spec: { resources: { limits: { storage: '0.5Gi' } } } }), path: ['spec', 'resources', 'limits', 'storage'], want: '512Mi' },
    { rule: 'status capacity is canonical', pvc: patched(claim, { status: { capacity: { storage: '1000000k' } } }), path: ['status', 'capacity', 'storage'], want: '1G' },
  ])('$rule', ({ pvc, path, want }) => {
    const obj = structuredClone(pvc);
    strategy.applyDefaults(obj);
    expect(path.reduce<any>((o, k) => o?.[k], obj)).toBe(want);
  });

  test('create resets status to Pending', () => {
    const pvc = patched(claim, { status: { phase: 'Bound', capacity: { storage: '1Ti' } } });
    strategy.prepareForCreate(pvc);
    expect(pvc.status).toEqual({ phase: 'Pending' });
  });

  test('create mirrors dataSource into dataSourceRef', () => {
    const pvc = patched(claim, { spec: { dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } } });
    strategy.prepareForCreate(pvc);
    expect(pvc.spec?.dataSourceRef).toEqual({ kind: 'PersistentVolumeClaim', name: 'src' });
  });

  test.each([
    { rule: 'an update adding a dataSourceRef with a namespace drops it (CrossNamespaceVolumeDataSource off)', stored: undefined, want: [] },
    { rule: 'an update keeps a namespaced dataSourceRef the stored claim already had', stored: { kind: 'PersistentVolumeClaim', name: 'src', namespace: 'other' }, want: [`spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims`] },
  ])('$rule', ({ stored, want }) => {
    const prev = created(strategy, claim);
    if (stored) prev.spec!.dataSourceRef = stored;
    const errs = updateErrors(strategy, prev, patched(prev, { spec: { dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'elsewhere', namespace: 'other' } } }));
    expect(lines(errs)).toEqual(want);
  });

  test('an update keeps the stored status', () => {
    const prev = created(strategy, claim);
    prev.status = { phase: 'Bound', capacity: { storage: '5Gi' } };
    const next = patched(prev, { status: { phase: 'Lost' } });
    strategy.prepareForUpdate(next, prev);
    expect(next.status).toEqual({ phase: 'Bound', capacity: { storage: '5Gi' } });
  });

  test('a status update keeps the stored spec and metadata', () => {
    const prev = created(strategy, claim);
    const next = patched(prev, { metadata: { labels: { x: 'y' } }, spec: { volumeName: 'pv-9' }, status: { phase: 'Bound' } });
    strategy.prepareForStatusUpdate(next, prev);
    // spec comes from the stored claim, which has one (not `?.`: that would pass without a spec).
    expect(next.spec!.volumeName).toBeUndefined();
    expect(next.metadata.labels).toBeUndefined();
    expect(next.status).toEqual({ phase: 'Bound' });
  });
});

describe('PersistentVolumeClaim indexed columns', () => {
  test('a pending claim', () => {
    expect(strategy.columns(created(strategy, claim))).toEqual({
      phase: 'Pending',
      storageClass: 'fast',
      capacityBytes: '5368709120',
      accessModes: 1,
      volumeMode: 'Filesystem',
      claimNamespace: null,
      claimName: null,
      claimUid: null,
      nodeName: null,
      volumeName: null,
      provisioning: false,
      usedBytes: null,
    });
  });

  test.each([
    { rule: 'no class is null, not empty', pvc: patched(claim, { spec: { storageClassName: undefined } }), column: 'storageClass', want: null },
    { rule: 'the empty class is kept as empty', pvc: patched(claim, { spec: { storageClassName: '' } }), column: 'storageClass', want: '' },
    { rule: 'the beta class annotation wins', pvc: patched(claim, { metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': 'gold' } } }), column: 'storageClass', want: 'gold' },
    { rule: 'a bound claim names its volume', pvc: patched(claim, { spec: { volumeName: 'pv-1' } }), column: 'volumeName', want: 'pv-1' },
    { rule: 'the provisioner annotation marks provisioning', pvc: patched(claim, { metadata: { annotations: { 'volume.kubernetes.io/storage-provisioner': 'x.io/p' } } }), column: 'provisioning', want: true },
    { rule: 'the beta provisioner annotation marks provisioning', pvc: patched(claim, { metadata: { annotations: { 'volume.beta.kubernetes.io/storage-provisioner': 'x.io/p' } } }), column: 'provisioning', want: true },
    { rule: 'fractional requests round up to whole bytes', pvc: patched(claim, { spec: { resources: { requests: { storage: '1500m' } } } }), column: 'capacityBytes', want: '2' },
  ])('$rule', ({ pvc, column, want }) => {
    expect((strategy.columns(created(strategy, pvc)) as Record<string, unknown>)[column]).toEqual(want);
  });
});

describe('PersistentVolumeClaim table', () => {
  const now = new Date('2024-01-01T01:00:00Z');

  test('columns are the ones kubectl prints', () => {
    expect(strategy.table.columns.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0],
      ['Status', 0],
      ['Volume', 0],
      ['Capacity', 0],
      ['Access Modes', 0],
      ['StorageClass', 0],
      ['Age', 0],
      ['VolumeMode', 1],
    ]);
  });

  test.each<{ rule: string; pvc: KubeObject; status: object; want: unknown[] }>([
    { rule: 'a pending claim shows no capacity', pvc: claim, status: { phase: 'Pending' }, want: ['data', 'Pending', '', '', '', 'fast', '60m', 'Filesystem'] },
    {
      rule: 'a bound claim shows its volume capacity and modes',
      pvc: patched(claim, { spec: { volumeName: 'pv-1' } }),
      status: { phase: 'Bound', capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'] },
      want: ['data', 'Bound', 'pv-1', '10Gi', 'RWO,ROX', 'fast', '60m', 'Filesystem'],
    },
    { rule: 'a classless claim shows an empty class', pvc: patched(claim, { spec: { storageClassName: undefined } }), status: { phase: 'Pending' }, want: ['data', 'Pending', '', '', '', '', '60m', 'Filesystem'] },
  ])('$rule', ({ pvc, status, want }) => {
    const obj = created(strategy, pvc);
    obj.status = status;
    expect(strategy.table.row(obj, now)).toEqual(want);
  });

  test('a claim being deleted shows Terminating', () => {
    const pvc = created(strategy, claim, { deletionTimestamp: '2024-01-01T00:30:00Z' });
    expect(strategy.table.row(pvc, now)[1]).toBe('Terminating');
  });
});

describe('PersistentVolumeClaim resource names', () => {
  test('kubectl names and scope', () => {
    expect([strategy.plural, strategy.singular, strategy.shortNames, strategy.namespaced]).toEqual(['persistentvolumeclaims', 'persistentvolumeclaim', ['pvc'], true]);
  });

  test('field selectors as upstream: only the legacy name', () => {
    expect(Object.keys(strategy.fieldSelectors)).toEqual(['name']);
  });
});
