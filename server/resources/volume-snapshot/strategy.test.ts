// The rules of upstream's snapshot CRDs (external-snapshotter client/config/crd), with the
// messages the apiserver gives for their OpenAPI and x-kubernetes-validations rules.
import { describe, expect, test } from 'vitest';
import { createErrors, created, lines, patched, statusUpdateErrors, updateErrors } from '../testing';
import type { KubeObject } from '../types';
import { volumeSnapshotClassStrategy } from '../volume-snapshot-class/strategy';
import { volumeSnapshotContentStrategy } from '../volume-snapshot-content/strategy';
import { volumeSnapshotStrategy } from './strategy';

const api = 'snapshot.storage.k8s.io/v1';
const fromClaim: KubeObject = { apiVersion: api, kind: 'VolumeSnapshot', metadata: { name: 'snap-1', namespace: 'team-a' }, spec: { source: { persistentVolumeClaimName: 'data' }, volumeSnapshotClassName: 'btrfs' } };
const fromContent: KubeObject = { apiVersion: api, kind: 'VolumeSnapshot', metadata: { name: 'snap-2', namespace: 'team-a' }, spec: { source: { volumeSnapshotContentName: 'content-2' } } };
const content: KubeObject = {
  apiVersion: api,
  kind: 'VolumeSnapshotContent',
  metadata: { name: 'content-2' },
  spec: { deletionPolicy: 'Retain', driver: 'stowage.io/btrfs', source: { snapshotHandle: 'h-1' }, volumeSnapshotRef: { name: 'snap-2', namespace: 'team-a' }, sourceVolumeMode: 'Filesystem' },
};
const klass: KubeObject = { apiVersion: api, kind: 'VolumeSnapshotClass', metadata: { name: 'btrfs' }, driver: 'stowage.io/btrfs', deletionPolicy: 'Delete' };

const EXACTLY_ONE_VS = 'spec.source: Invalid value: "object": exactly one of volumeSnapshotContentName and persistentVolumeClaimName must be set';
const EXACTLY_ONE_VSC = 'spec.source: Invalid value: "object": exactly one of volumeHandle and snapshotHandle must be set';

describe('VolumeSnapshot on create', () => {
  test.each<{ rule: string; obj: KubeObject; want: (string | RegExp)[] }>([
    { rule: 'a snapshot of a claim is valid', obj: fromClaim, want: [] },
    { rule: 'a snapshot of a pre-provisioned content is valid', obj: fromContent, want: [] },
    { rule: 'spec is required', obj: { ...fromClaim, spec: undefined }, want: ['spec: Required value'] },
    { rule: 'spec.source is required', obj: patched(fromClaim, { spec: { source: null } }), want: ['spec.source: Required value'] },
    { rule: 'a source with neither field is refused', obj: patched(fromClaim, { spec: { source: { persistentVolumeClaimName: null } } }), want: [EXACTLY_ONE_VS] },
    { rule: 'a source with both fields is refused', obj: patched(fromClaim, { spec: { source: { volumeSnapshotContentName: 'c' } } }), want: [EXACTLY_ONE_VS] },
    {
      rule: 'an empty class name is refused',
      obj: patched(fromClaim, { spec: { volumeSnapshotClassName: '' } }),
      want: ['spec.volumeSnapshotClassName: Invalid value: "string": volumeSnapshotClassName must not be the empty string when set'],
    },
    { rule: 'unknown fields are refused', obj: patched(fromClaim, { spec: { source: { claim: 'x' } } }), want: [/spec\.source.*claim/] },
    { rule: 'the name is a DNS subdomain', obj: patched(fromClaim, { metadata: { name: 'Snap_1' } }), want: [/^metadata\.name: Invalid value: "Snap_1"/] },
  ])('$rule', ({ obj, want }) => {
    const got = lines(createErrors(volumeSnapshotStrategy, obj));
    expect(got).toHaveLength(want.length);
    want.forEach((w, i) => (typeof w === 'string' ? expect(got[i]).toBe(w) : expect(got[i]).toMatch(w)));
  });

  test('status sent on create is dropped (it is the controllers\')', () => {
    const vs = created(volumeSnapshotStrategy, patched(fromClaim, { status: { readyToUse: true } }));
    expect(vs.status).toBeUndefined();
  });
});

describe('VolumeSnapshot on update (x-kubernetes-validations transition rules)', () => {
  const stored = created(volumeSnapshotStrategy, fromClaim);
  const storedContent = created(volumeSnapshotStrategy, fromContent);
  test.each<{ rule: string; prev: KubeObject; next: unknown; want: string[] }>([
    { rule: 'labels may change', prev: stored, next: patched(stored, { metadata: { labels: { a: 'b' } } }), want: [] },
    { rule: 'the class may change', prev: stored, next: patched(stored, { spec: { volumeSnapshotClassName: 'other' } }), want: [] },
    {
      rule: 'persistentVolumeClaimName is immutable',
      prev: stored,
      next: patched(stored, { spec: { source: { persistentVolumeClaimName: 'other' } } }),
      want: ['spec.source.persistentVolumeClaimName: Invalid value: "string": persistentVolumeClaimName is immutable'],
    },
    {
      rule: 'volumeSnapshotContentName is immutable',
      prev: storedContent,
      next: patched(storedContent, { spec: { source: { volumeSnapshotContentName: 'other' } } }),
      want: ['spec.source.volumeSnapshotContentName: Invalid value: "string": volumeSnapshotContentName is immutable'],
    },
    {
      rule: 'persistentVolumeClaimName is required once set (switching the source is refused)',
      prev: stored,
      next: patched(stored, { spec: { source: { persistentVolumeClaimName: null, volumeSnapshotContentName: 'c' } } }),
      want: ['spec.source: Invalid value: "object": persistentVolumeClaimName is required once set'],
    },
  ])('$rule', ({ prev, next, want }) => {
    expect(lines(updateErrors(volumeSnapshotStrategy, prev, next))).toEqual(want);
  });

  test('status is kept on a main-resource update and written through the status subresource', () => {
    const withStatus = { ...stored, status: { readyToUse: false } };
    expect(statusUpdateErrors(volumeSnapshotStrategy, stored, patched(stored, { status: { readyToUse: true, restoreSize: '1Gi', boundVolumeSnapshotContentName: 'c' } }))).toEqual([]);
    const next = structuredClone(patched(withStatus, { status: { readyToUse: true } }));
    volumeSnapshotStrategy.prepareForUpdate(next, withStatus);
    expect(next.status).toEqual({ readyToUse: false });
  });

  test('restoreSize must be a quantity', () => {
    const got = lines(statusUpdateErrors(volumeSnapshotStrategy, stored, patched(stored, { status: { restoreSize: 'lots' } })));
    expect(got).toHaveLength(1);
    expect(got[0]).toMatch(/^status\.restoreSize: Invalid value: "lots": status\.restoreSize in body should match '\^/);
  });
});

describe('VolumeSnapshotContent', () => {
  test.each<{ rule: string; obj: KubeObject; want: string[] }>([
    { rule: 'a pre-provisioned content is valid', obj: content, want: [] },
    { rule: 'a dynamic content (volumeHandle) is valid', obj: patched(content, { spec: { source: { snapshotHandle: null, volumeHandle: 'v-1' } } }), want: [] },
    { rule: 'spec is required', obj: { ...content, spec: undefined }, want: ['spec: Required value'] },
    {
      rule: 'deletionPolicy, driver, source and volumeSnapshotRef are required',
      obj: { ...content, spec: {} },
      want: ['spec.deletionPolicy: Required value', 'spec.driver: Required value', 'spec.source: Required value', 'spec.volumeSnapshotRef: Required value'],
    },
    { rule: 'deletionPolicy is Delete or Retain', obj: patched(content, { spec: { deletionPolicy: 'Recycle' } }), want: ['spec.deletionPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"'] },
    { rule: 'both handles are refused', obj: patched(content, { spec: { source: { volumeHandle: 'v' } } }), want: [EXACTLY_ONE_VSC] },
    { rule: 'no handle is refused', obj: patched(content, { spec: { source: { snapshotHandle: null } } }), want: [EXACTLY_ONE_VSC] },
    {
      rule: 'the ref names both name and namespace',
      obj: patched(content, { spec: { volumeSnapshotRef: { namespace: null } } }),
      want: ['spec.volumeSnapshotRef: Invalid value: "object": both spec.volumeSnapshotRef.name and spec.volumeSnapshotRef.namespace must be set'],
    },
  ])('$rule', ({ obj, want }) => {
    expect(lines(createErrors(volumeSnapshotContentStrategy, obj))).toEqual(want);
  });

  const stored = created(volumeSnapshotContentStrategy, content);
  test.each<{ rule: string; next: unknown; want: string[] }>([
    { rule: 'the deletion policy may change', next: patched(stored, { spec: { deletionPolicy: 'Delete' } }), want: [] },
    { rule: 'snapshotHandle is immutable', next: patched(stored, { spec: { source: { snapshotHandle: 'h-2' } } }), want: ['spec.source.snapshotHandle: Invalid value: "string": snapshotHandle is immutable'] },
    {
      rule: 'snapshotHandle is required once set',
      next: patched(stored, { spec: { source: { snapshotHandle: null, volumeHandle: 'v' } } }),
      want: ['spec.source: Invalid value: "object": snapshotHandle is required once set'],
    },
    { rule: 'sourceVolumeMode is immutable', next: patched(stored, { spec: { sourceVolumeMode: 'Block' } }), want: ['spec.sourceVolumeMode: Invalid value: "string": sourceVolumeMode is immutable'] },
    { rule: 'sourceVolumeMode is required once set', next: patched(stored, { spec: { sourceVolumeMode: null } }), want: ['spec: Invalid value: "object": sourceVolumeMode is required once set'] },
  ])('update: $rule', ({ next, want }) => {
    expect(lines(updateErrors(volumeSnapshotContentStrategy, stored, next))).toEqual(want);
  });

  test('creationTime is Unix nanoseconds: an int64 beyond a double\'s exact integers is accepted, a fraction is not', () => {
    expect(lines(statusUpdateErrors(volumeSnapshotContentStrategy, stored, patched(stored, { status: { creationTime: 1_764_072_000_000_000_000 } })))).toEqual([]);
    expect(lines(statusUpdateErrors(volumeSnapshotContentStrategy, stored, patched(stored, { status: { creationTime: 1.5 } })))).toEqual([
      'status.creationTime: Invalid value: 1.5: status.creationTime in body must be of type integer: "number"',
    ]);
  });

  test('restoreSize is at least 0', () => {
    expect(lines(statusUpdateErrors(volumeSnapshotContentStrategy, stored, patched(stored, { status: { restoreSize: -1 } })))).toEqual([
      'status.restoreSize: Invalid value: -1: status.restoreSize in body should be greater than or equal to 0',
    ]);
  });
});

describe('VolumeSnapshotClass', () => {
  test.each<{ rule: string; obj: KubeObject; want: string[] }>([
    { rule: 'a class is valid', obj: klass, want: [] },
    { rule: 'driver and deletionPolicy are required', obj: { ...klass, driver: undefined, deletionPolicy: undefined }, want: ['deletionPolicy: Required value', 'driver: Required value'] },
    { rule: 'deletionPolicy is Delete or Retain', obj: patched(klass, { deletionPolicy: 'delete' }), want: ['deletionPolicy: Unsupported value: "delete": supported values: "Delete", "Retain"'] },
  ])('$rule', ({ obj, want }) => {
    expect(lines(createErrors(volumeSnapshotClassStrategy, obj))).toEqual(want);
  });
});
