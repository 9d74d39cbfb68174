// Cases from upstream plugin/pkg/admission/storage/storageclass/setdefault/admission_test.go
// (TestAdmission) and pkg/volume/util TestGetDefaultClass.
import { describe, expect, it } from 'vitest';
import type { PersistentVolumeClaim } from '../persistent-volume-claim/schema';
import type { StorageClass } from './schema';
import { admitDefaultClass, mayTakeDefaultClass } from './default-class';

const sc = (name: string, annotations: Record<string, string>, creationTimestamp = '2026-01-01T00:00:00Z'): StorageClass => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name, annotations, creationTimestamp },
  provisioner: 'example.com/x',
});
const defaultV1 = sc('default1', { 'storageclass.kubernetes.io/is-default-class': 'true' });
const defaultBeta = sc('default2', { 'storageclass.beta.kubernetes.io/is-default-class': 'true' });
const nonDefault = sc('nondefault1', { 'storageclass.kubernetes.io/is-default-class': 'false' });
const invalidDefault = sc('nondefault2', { 'storageclass.kubernetes.io/is-default-class': 'True' });
const newer = sc('newer', { 'storageclass.kubernetes.io/is-default-class': 'true' }, '2026-01-02T00:00:00Z');
const sameTimeA = sc('a-first', { 'storageclass.kubernetes.io/is-default-class': 'true' });

const claim = (o: { cls?: string; beta?: string } = {}): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'ns', ...(o.beta !== undefined ? { annotations: { 'volume.beta.kubernetes.io/storage-class': o.beta } } : {}) },
  spec: { ...(o.cls !== undefined ? { storageClassName: o.cls } : {}) },
});

describe('admitDefaultClass', () => {
  it.each([
    { name: 'no default, no modification of PVCs', classes: [nonDefault], claim: claim(), want: undefined },
    { name: 'one default, modify PVC with class=nil', classes: [defaultV1, nonDefault], claim: claim(), want: 'default1' },
    { name: 'one default, no modification of PVC with class=""', classes: [defaultV1], claim: claim({ cls: '' }), want: '' },
    { name: 'one default, no modification of PVC with class="foo"', classes: [defaultV1], claim: claim({ cls: 'foo' }), want: 'foo' },
    { name: 'one default, no modification of PVC with the beta annotation', classes: [defaultV1], claim: claim({ beta: 'bar' }), want: undefined },
    { name: 'one beta default, modify PVC with class=nil', classes: [defaultBeta, nonDefault], claim: claim(), want: 'default2' },
    { name: 'invalid default annotation ("True"), no modification', classes: [invalidDefault], claim: claim(), want: undefined },
    { name: 'two defaults, the newest wins', classes: [defaultV1, newer, defaultBeta], claim: claim(), want: 'newer' },
    { name: 'two defaults of the same age, by name ascending', classes: [defaultV1, sameTimeA], claim: claim(), want: 'a-first' },
  ])('$name', ({ classes, claim: c, want }) => {
    admitDefaultClass(c, classes);
    // claim() always sets spec (not `?.`: a lost spec must fail the undefined rows too).
    expect(c.spec!.storageClassName).toBe(want);
  });
});

describe('mayTakeDefaultClass (the classes are read only then)', () => {
  it.each([
    { name: 'class nil', claim: claim(), want: true },
    { name: 'class null', claim: { ...claim(), spec: { storageClassName: null as unknown as string } }, want: true },
    { name: 'class ""', claim: claim({ cls: '' }), want: false },
    { name: 'class "foo"', claim: claim({ cls: 'foo' }), want: false },
    { name: 'beta annotation', claim: claim({ beta: 'bar' }), want: false },
    { name: 'beta annotation ""', claim: claim({ beta: '' }), want: false },
  ])('$name', ({ claim: c, want }) => {
    expect(mayTakeDefaultClass(c)).toBe(want);
    // Whatever the classes, a claim it says no to is left as it was.
    if (!want) expect(admitDefaultClass(c, [defaultV1])).toBe(false);
  });
});
