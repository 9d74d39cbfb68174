import { describe, expect, test } from 'vitest';
import { diffObjects, type Change } from './history-diff';

const pvc = (phase: string, extra: Record<string, unknown> = {}) => ({
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', resourceVersion: '7', ...extra },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  status: { phase },
});

const cases: { name: string; before: unknown; after: unknown; changes: Change[] }[] = [
  { name: 'equal objects have no change', before: pvc('Bound'), after: pvc('Bound'), changes: [] },
  {
    name: 'a phase change is one path with old and new value',
    before: pvc('Pending'),
    after: pvc('Bound'),
    changes: [{ path: 'status.phase', before: 'Pending', after: 'Bound' }],
  },
  {
    name: 'resourceVersion alone is not a change',
    before: pvc('Bound'),
    after: pvc('Bound', { resourceVersion: '8' }),
    changes: [],
  },
  {
    name: 'an added annotation with dots and a slash is quoted',
    before: pvc('Pending'),
    after: pvc('Pending', { annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } }),
    changes: [{ path: 'metadata.annotations', before: undefined, after: { 'pv.kubernetes.io/bind-completed': 'yes' } }],
  },
  {
    name: 'a changed annotation value is its own path',
    before: { metadata: { annotations: { 'a.b/c': '1', keep: 'x' } } },
    after: { metadata: { annotations: { 'a.b/c': '2', keep: 'x' } } },
    changes: [{ path: 'metadata.annotations["a.b/c"]', before: '1', after: '2' }],
  },
  {
    name: 'a removed field has undefined after',
    before: { spec: { volumeName: 'pv-1', storageClassName: 'fast' } },
    after: { spec: { storageClassName: 'fast' } },
    changes: [{ path: 'spec.volumeName', before: 'pv-1', after: undefined }],
  },
  {
    name: 'arrays of the same length differ by index',
    before: { spec: { accessModes: ['ReadWriteOnce', 'ReadOnlyMany'] } },
    after: { spec: { accessModes: ['ReadWriteOnce', 'ReadWriteMany'] } },
    changes: [{ path: 'spec.accessModes[1]', before: 'ReadOnlyMany', after: 'ReadWriteMany' }],
  },
  {
    name: 'arrays of different lengths are one change',
    before: { metadata: { finalizers: ['kubernetes.io/pvc-protection'] } },
    after: { metadata: { finalizers: [] } },
    changes: [{ path: 'metadata.finalizers', before: ['kubernetes.io/pvc-protection'], after: [] }],
  },
  {
    name: 'a creation is the whole object at the root',
    before: undefined,
    after: { kind: 'PersistentVolume' },
    changes: [{ path: '', before: undefined, after: { kind: 'PersistentVolume' } }],
  },
  {
    name: 'a type change from object to string is one change',
    before: { spec: { claimRef: { name: 'a' } } },
    after: { spec: { claimRef: 'a' } },
    changes: [{ path: 'spec.claimRef', before: { name: 'a' }, after: 'a' }],
  },
  {
    name: 'paths are sorted by key',
    before: { spec: { b: 1, a: 1 } },
    after: { spec: { b: 2, a: 2 } },
    changes: [
      { path: 'spec.a', before: 1, after: 2 },
      { path: 'spec.b', before: 1, after: 2 },
    ],
  },
];

describe('diffObjects', () => {
  test.each(cases)('$name', ({ before, after, changes }) => {
    expect(diffObjects(before, after)).toEqual(changes);
  });
});
