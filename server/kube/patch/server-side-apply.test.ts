import { describe, expect, test } from 'vitest';
import type { KubeObject } from '../../resources/types';
import { conflictMessage, fieldsOf, printPath, recordUpdate, serverSideApply, toSet, updateManager } from './server-side-apply';
import { patchMetaFor } from './patch-meta';

const NOW = '2026-11-24T00:00:00Z';
const LATER = '2026-11-24T01:00:00Z';
const resource = { plural: 'persistentvolumes', group: '' };

function pv(labels: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1', labels }, spec: { capacity: { storage: '1Gi' }, ...extra } };
}

const apply = (live: KubeObject | undefined, applied: KubeObject, manager: string, force = false, now = NOW) =>
  serverSideApply({ live, applied, manager, force, now, resource });

const owners = (o: KubeObject) => Object.fromEntries((o.metadata.managedFields as any[]).map((e) => [`${e.manager}/${e.operation}`, [...toSet(e.fieldsV1)].map(printPath).sort()]));

describe('fieldsOf (FieldsV1 as upstream encodes it)', () => {
  test.each([
    { what: 'map leaves', obj: { spec: { capacity: { storage: '1Gi' } } }, kind: 'PersistentVolume', want: { 'f:spec': { 'f:capacity': { 'f:storage': {} } } } },
    { what: 'an atomic list is one leaf', obj: { spec: { accessModes: ['ReadWriteOnce'] } }, kind: 'PersistentVolume', want: { 'f:spec': { 'f:accessModes': {} } } },
    {
      what: 'a set list: one v: per member',
      obj: { metadata: { finalizers: ['a', 'b'] } },
      kind: 'PersistentVolume',
      want: { 'f:metadata': { 'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} } } },
    },
    {
      what: 'a keyed list: k: per item with its own "."',
      obj: { spec: { containers: [{ name: 'c', image: 'x' }] } },
      kind: 'Pod',
      want: { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:name': {}, 'f:image': {} } } } },
    },
  ])('$what', ({ obj, kind, want }) => {
    expect(fieldsOf(obj, patchMetaFor(kind))).toEqual(want);
  });

  test.each([
    { path: ['f:metadata', 'f:labels', 'f:app'], want: '.metadata.labels.app' },
    { path: ['f:spec', 'f:containers', 'k:{"name":"c"}', 'f:image'], want: '.spec.containers[name="c"].image' },
    { path: ['f:metadata', 'f:finalizers', 'v:"x"'], want: '.metadata.finalizers[="x"]' },
  ])('printPath $want', ({ path, want }) => {
    expect(printPath(path.join('\u0000'))).toBe(want);
  });
});

describe('serverSideApply', () => {
  test('creating: the applied object, owned by its manager', () => {
    const out = apply(undefined, pv({ app: 'a' }), 'mgr');
    expect(out.metadata.labels).toEqual({ app: 'a' });
    expect(out.metadata.managedFields).toEqual([
      { manager: 'mgr', operation: 'Apply', apiVersion: 'v1', time: NOW, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:capacity': { 'f:storage': {} } } } },
    ]);
  });

  test('applying the same again changes nothing, not even the time', () => {
    const first = apply(undefined, pv({ app: 'a' }), 'mgr');
    const again = apply(first, pv({ app: 'a' }), 'mgr', false, LATER);
    expect(again).toEqual(first);
  });

  test("another manager changing a field it does not own: 409 naming the owner and the field", () => {
    const live = apply(undefined, pv({ app: 'a' }), 'first');
    expect(() => apply(live, pv({ app: 'b' }), 'second')).toThrow('Apply failed with 1 conflict: conflict with "first" using v1: .metadata.labels.app');
    try {
      apply(live, pv({ app: 'b' }), 'second');
    } catch (e: any) {
      expect(e.code).toBe('Conflict');
      expect(e.details.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "first" using v1', field: '.metadata.labels.app' }]);
    }
  });

  test('the same value from a second manager: shared ownership, no conflict', () => {
    const live = apply(undefined, pv({ app: 'a' }), 'first');
    const out = apply(live, pv({ app: 'a' }), 'second');
    expect(owners(out)).toEqual({
      'first/Apply': ['.metadata.labels.app', '.spec.capacity.storage'],
      'second/Apply': ['.metadata.labels.app', '.spec.capacity.storage'],
    });
  });

  test('force takes the field over', () => {
    const live = apply(undefined, pv({ app: 'a', team: 't' }), 'first');
    const out = apply(live, { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1', labels: { app: 'b' } } }, 'second', true);
    expect(out.metadata.labels).toEqual({ app: 'b', team: 't' });
    expect(owners(out)).toEqual({ 'first/Apply': ['.metadata.labels.team', '.spec.capacity.storage'], 'second/Apply': ['.metadata.labels.app'] });
  });

  test('a field dropped from the applied configuration is removed', () => {
    const live = apply(undefined, pv({ app: 'a', team: 't' }), 'mgr');
    const out = apply(live, pv({ app: 'a' }), 'mgr');
    expect(out.metadata.labels).toEqual({ app: 'a' });
  });

  test('a dropped field another manager also owns stays', () => {
    const live = apply(apply(undefined, pv({ app: 'a', team: 't' }), 'first'), pv({ team: 't' }), 'second');
    const out = apply(live, pv({ app: 'a' }), 'first');
    expect(out.metadata.labels).toEqual({ app: 'a', team: 't' });
  });

  test('a map applied empty before and with fields now is not dropped: the rest of it stays', () => {
    const live = { ...pv({}), metadata: { name: 'pv1', labels: { kept: 'yes' }, finalizers: ['kubernetes.io/pv-protection'] } } as KubeObject;
    const first = apply(live, { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1', annotations: null } } as unknown as KubeObject, 'mgr');
    const out = apply(first, { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1', annotations: { a: 'b' } } }, 'mgr');
    expect(out.metadata).toMatchObject({ labels: { kept: 'yes' }, finalizers: ['kubernetes.io/pv-protection'], annotations: { a: 'b' } });
  });

  test('fields nobody applied (set by a plain update) are left alone', () => {
    const live = apply(undefined, pv({ app: 'a' }), 'mgr');
    live.metadata.labels!.other = 'kept';
    const out = apply(live, pv({ app: 'a2' }), 'mgr');
    expect(out.metadata.labels).toEqual({ app: 'a2', other: 'kept' });
  });

  test('keyed lists merge by key: two managers, one container each', () => {
    const pod = (name: string, image: string): KubeObject =>
      ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name, image }] } });
    const out = apply(apply(undefined, pod('a', 'x'), 'first'), pod('b', 'y'), 'second');
    expect(out.spec).toHaveProperty('containers', [
      { name: 'a', image: 'x' },
      { name: 'b', image: 'y' },
    ]);
    // The first manager drops its container: the item goes with its fields.
    const without = apply(out, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} }, 'first');
    expect(without.spec).toHaveProperty('containers', [{ name: 'b', image: 'y' }]);
  });

  test('set lists merge by value', () => {
    const fin = (f: string[]): KubeObject => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1', finalizers: f } });
    const out = apply(apply(undefined, fin(['a']), 'first'), fin(['b']), 'second');
    expect(out.metadata.finalizers).toEqual(['a', 'b']);
  });

  test('atomic lists are replaced whole (and conflict as one field)', () => {
    const modes = (m: string[]) => pv({}, { accessModes: m });
    const live = apply(undefined, modes(['ReadWriteOnce']), 'first');
    expect(() => apply(live, modes(['ReadWriteMany']), 'second')).toThrow(/conflict with "first" using v1: .spec.accessModes/);
    expect(apply(live, modes(['ReadWriteMany']), 'first').spec).toHaveProperty('accessModes', ['ReadWriteMany']);
  });
});

test('conflictMessage groups several fields of one manager', () => {
  expect(
    conflictMessage([
      { manager: 'm', apiVersion: 'v1', path: 'f:a' },
      { manager: 'm', apiVersion: 'v1', path: 'f:b' },
    ]),
  ).toBe('Apply failed with 2 conflicts: conflicts with "m" using v1:\n- .a\n- .b');
});

describe('recordUpdate (writes that are not applies)', () => {
  test('a create: the creator owns what it set', () => {
    const entries = recordUpdate(undefined, pv({ app: 'a' }), 'kubectl-create', NOW);
    expect(entries).toEqual([
      { manager: 'kubectl-create', operation: 'Update', apiVersion: 'v1', time: NOW, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:capacity': { 'f:storage': {} } } } },
    ]);
  });

  test('an update takes the fields it changed from their applier, who then no longer conflicts on them', () => {
    const live = apply(undefined, pv({ app: 'a', team: 't' }), 'tool');
    const next = structuredClone(live);
    next.metadata.labels!.app = 'edited';
    next.metadata.managedFields = recordUpdate(live, next, 'kubectl-edit', LATER);
    expect(owners(next)).toEqual({
      'tool/Apply': ['.metadata.labels.team', '.spec.capacity.storage'],
      'kubectl-edit/Update': ['.metadata.labels.app'],
    });
    // The applier now conflicts with the editor when it applies its old value.
    expect(() => apply(next, pv({ app: 'a', team: 't' }), 'tool')).toThrow('conflict with "kubectl-edit" using v1: .metadata.labels.app');
  });

  test('a write that changes nothing owned keeps the entries as they are', () => {
    const live = apply(undefined, pv({ app: 'a' }), 'tool');
    expect(recordUpdate(live, structuredClone(live), 'x', LATER)).toEqual(live.metadata.managedFields);
  });

  test('a removed field leaves every entry', () => {
    const live = apply(undefined, pv({ app: 'a', team: 't' }), 'tool');
    const next = structuredClone(live);
    delete next.metadata.labels!.team;
    expect(owners({ ...next, metadata: { ...next.metadata, managedFields: recordUpdate(live, next, 'x', LATER) } })).toEqual({
      'tool/Apply': ['.metadata.labels.app', '.spec.capacity.storage'],
    });
  });

  test.each([
    { fieldManager: 'mine', ua: 'kubectl/v1.32.0 (linux/amd64)', want: 'mine' },
    { fieldManager: undefined, ua: 'kubectl-client-side-apply/v1.32.0 (linux/amd64) kubernetes/abc', want: 'kubectl-client-side-apply' },
    { fieldManager: undefined, ua: undefined, want: 'unknown' },
  ])('updateManager($fieldManager, $ua) = $want', ({ fieldManager, ua, want }) => {
    expect(updateManager(fieldManager, ua)).toBe(want);
  });
});
