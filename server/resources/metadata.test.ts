import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { child, fieldPath } from './field-errors';
import {
  keepAllButStatus,
  keepSystemMetadata,
  kubeObjectSchema,
  shapeErrors,
  stripNulls,
  timestampNow,
  validateObjectMeta,
  validateObjectMetaUpdate,
  validateTypeMeta,
  type MetaRules,
} from './metadata';
import { resourceListSchema } from './resource-list';
import { lines } from './testing';
import type { KubeObject, ObjectMeta } from './types';

describe('fieldPath', () => {
  test.each([
    { segments: ['spec', 'capacity', 'storage'], path: 'spec.capacity.storage' },
    { segments: ['spec', 'accessModes', 0], path: 'spec.accessModes[0]' },
    { segments: ['metadata', 'labels', 'app.kubernetes.io/name'], path: 'metadata.labels[app.kubernetes.io/name]' },
    { segments: ['spec', 'nodeAffinity', 'required', 'nodeSelectorTerms', 0, 'matchExpressions', 1, 'values', 2], path: 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[1].values[2]' },
    { segments: [], path: '' },
  ])('$path', ({ segments, path }) => {
    expect(fieldPath(...segments)).toBe(path);
  });

  test('child extends a string path', () => {
    expect(child('spec.local', 'path')).toBe('spec.local.path');
    expect(child('spec.accessModes', 1)).toBe('spec.accessModes[1]');
    expect(child('', 'spec')).toBe('spec');
  });
});

describe('shapeErrors', () => {
  const schema = kubeObjectSchema({
    spec: z
      .strictObject({
        accessModes: z.array(z.string()).nullish(),
        capacity: resourceListSchema.nullish(),
        size: z.number().int().nullish(),
      })
      .nullish(),
  });

  test.each([
    { rule: 'unknown top-level field', obj: { foo: 1 }, want: ['foo: unknown field "foo"'] },
    { rule: 'unknown nested field', obj: { spec: { foo: 1 } }, want: ['spec.foo: unknown field "spec.foo"'] },
    { rule: 'unknown metadata field', obj: { metadata: { nmae: 'x' } }, want: ['metadata.nmae: unknown field "metadata.nmae"'] },
    { rule: 'wrong type names the field', obj: { metadata: { name: 5 } }, want: ['metadata.name: Invalid value: "number": must be of type string'] },
    { rule: 'array items are indexed', obj: { spec: { accessModes: [1] } }, want: ['spec.accessModes[0]: Invalid value: "number": must be of type string'] },
    { rule: 'map values are named by key', obj: { metadata: { labels: { app: 1 } } }, want: ['metadata.labels.app: Invalid value: "number": must be of type string'] },
    { rule: 'quantity must be string or number', obj: { spec: { capacity: { storage: true } } }, want: ['spec.capacity.storage: Invalid value: "boolean": must be of type string or number'] },
    { rule: 'integer required', obj: { spec: { size: 1.5 } }, want: ['spec.size: Invalid value: "number": must be of type integer'] },
    { rule: 'object required', obj: { spec: 'x' }, want: ['spec: Invalid value: "string": must be of type object'] },
    { rule: 'nulls are accepted as absent', obj: { metadata: { creationTimestamp: null }, spec: { capacity: null } }, want: [] },
    { rule: 'valid object has no errors', obj: { apiVersion: 'v1', kind: 'X', metadata: { name: 'a', labels: { a: 'b' } }, spec: { capacity: { storage: 5 } } }, want: [] },
  ])('$rule', ({ obj, want }) => {
    expect(lines(shapeErrors(schema, obj))).toEqual(want);
  });

  test('unknown fields carry reason FieldValueNotSupported', () => {
    expect(shapeErrors(schema, { bar: 1 })[0].reason).toBe('FieldValueNotSupported');
  });

  test('type errors carry reason FieldValueTypeInvalid', () => {
    expect(shapeErrors(schema, { spec: { size: 'x' } })[0].reason).toBe('FieldValueTypeInvalid');
  });
});

describe('validateObjectMeta', () => {
  const pv: MetaRules = { namespaced: false, name: 'dns-subdomain' };
  const ns: MetaRules = { namespaced: false, name: 'dns-label' };
  const pvc: MetaRules = { namespaced: true, name: 'dns-subdomain' };

  test.each<{ rule: string; rules: MetaRules; meta: ObjectMeta; want: string[] }>([
    { rule: 'subdomain name is valid', rules: pv, meta: { name: 'pv-1.example' }, want: [] },
    { rule: 'name is required', rules: pv, meta: {}, want: ['metadata.name: Required value: name or generateName is required'] },
    { rule: 'generateName stands in for name', rules: pv, meta: { generateName: 'pv-' }, want: [] },
    { rule: 'generateName must be a valid prefix', rules: pv, meta: { generateName: 'PV-' }, want: ["metadata.generateName: Invalid value: \"PV-\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"] },
    { rule: 'uppercase name is not a subdomain', rules: pv, meta: { name: 'PV1' }, want: [expect.stringMatching(/^metadata\.name: Invalid value: "PV1": a lowercase RFC 1123 subdomain/)] as any },
    { rule: 'namespace names are labels, without dots', rules: ns, meta: { name: 'team.a' }, want: ['metadata.name: Invalid value: "team.a": must not contain dots'] },
    { rule: 'namespaced kinds require a namespace', rules: pvc, meta: { name: 'c' }, want: ['metadata.namespace: Required value'] },
    { rule: 'namespace must be a label', rules: pvc, meta: { name: 'c', namespace: 'a.b' }, want: ['metadata.namespace: Invalid value: "a.b": must not contain dots'] },
    { rule: 'cluster-scoped kinds forbid a namespace', rules: pv, meta: { name: 'a', namespace: 'default' }, want: ['metadata.namespace: Forbidden: not allowed on this type'] },
    { rule: 'label key must be qualified', rules: pv, meta: { name: 'a', labels: { 'a/b/c': 'x' } }, want: [expect.stringMatching(/^metadata\.labels: Invalid value: "a\/b\/c": a valid label key/)] as any },
    { rule: 'label value must be valid', rules: pv, meta: { name: 'a', labels: { app: 'bad value' } }, want: [expect.stringMatching(/^metadata\.labels: Invalid value: "bad value": a valid label must be/)] as any },
    { rule: 'annotation key must be qualified', rules: pv, meta: { name: 'a', annotations: { '-x': 'y' } }, want: [expect.stringMatching(/^metadata\.annotations: Invalid value: "-x": name part must consist/)] as any },
    { rule: 'standard finalizer is fine', rules: pv, meta: { name: 'a', finalizers: ['kubernetes', 'kubernetes.io/pv-protection'] }, want: [] },
    { rule: 'unqualified finalizer must be standard', rules: pv, meta: { name: 'a', finalizers: ['cleanup'] }, want: ['metadata.finalizers[0]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified'] },
    { rule: 'generation may not be negative', rules: pv, meta: { name: 'a', generation: -1 }, want: ['metadata.generation: Invalid value: -1: must be greater than or equal to 0'] },
    { rule: 'owner reference needs uid', rules: pv, meta: { name: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n' }] }, want: ['metadata.ownerReferences[0].uid: Invalid value: "": must not be empty'] },
    {
      rule: 'only one owner may be the controller',
      rules: pv,
      meta: {
        name: 'a',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: '1', controller: true },
          { apiVersion: 'v1', kind: 'Node', name: 'n2', uid: '2', controller: true },
        ],
      },
      want: [expect.stringMatching(/^metadata\.ownerReferences: Invalid value: .*Only one reference can have Controller set to true/)] as any,
    },
  ])('$rule', ({ rules, meta, want }) => {
    expect(lines(validateObjectMeta(meta, rules))).toEqual(want);
  });
});

describe('validateObjectMetaUpdate', () => {
  const prev: ObjectMeta = { name: 'a', namespace: 'ns', uid: 'u1', creationTimestamp: '2024-01-01T00:00:00Z', generation: 2, finalizers: ['x/y'] };

  test.each<{ rule: string; next: ObjectMeta; prevMeta?: ObjectMeta; want: string[] }>([
    { rule: 'unchanged metadata is fine', next: { ...prev, labels: { a: 'b' } }, want: [] },
    { rule: 'name is immutable', next: { ...prev, name: 'b' }, want: ['metadata.name: Invalid value: "b": field is immutable'] },
    { rule: 'namespace is immutable', next: { ...prev, namespace: 'other' }, want: ['metadata.namespace: Invalid value: "other": field is immutable'] },
    { rule: 'uid is immutable', next: { ...prev, uid: 'u2' }, want: ['metadata.uid: Invalid value: "u2": field is immutable'] },
    { rule: 'creationTimestamp is immutable', next: { ...prev, creationTimestamp: '2025-01-01T00:00:00Z' }, want: ['metadata.creationTimestamp: Invalid value: "2025-01-01T00:00:00Z": field is immutable'] },
    { rule: 'generation may not go down', next: { ...prev, generation: 1 }, want: ['metadata.generation: Invalid value: 1: must not be decremented'] },
    {
      rule: 'no new finalizers while deleting',
      prevMeta: { ...prev, deletionTimestamp: '2024-02-01T00:00:00Z' },
      next: { ...prev, deletionTimestamp: '2024-02-01T00:00:00Z', finalizers: ['x/y', 'x/z'] },
      want: ['metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ["x/z"]'],
    },
    { rule: 'finalizers may be removed while deleting', prevMeta: { ...prev, deletionTimestamp: '2024-02-01T00:00:00Z' }, next: { ...prev, finalizers: [] }, want: [] },
  ])('$rule', ({ next, prevMeta, want }) => {
    expect(lines(validateObjectMetaUpdate(next, prevMeta ?? prev))).toEqual(want);
  });
});

describe('validateTypeMeta', () => {
  test.each([
    { rule: 'matching apiVersion and kind', obj: { apiVersion: 'v1', kind: 'Node' }, want: [] },
    { rule: 'absent apiVersion and kind', obj: {}, want: [] },
    { rule: 'wrong kind', obj: { apiVersion: 'v1', kind: 'Pod' }, want: ['kind: Invalid value: "Pod": must be Node'] },
    { rule: 'wrong apiVersion', obj: { apiVersion: 'apps/v1', kind: 'Node' }, want: ['apiVersion: Invalid value: "apps/v1": must be v1'] },
  ])('$rule', ({ obj, want }) => {
    expect(lines(validateTypeMeta({ metadata: {}, ...obj } as KubeObject, 'v1', 'Node'))).toEqual(want);
  });
});

describe('helpers', () => {
  test('stripNulls removes null fields at every depth', () => {
    const obj = { a: null, b: { c: null, d: 1 }, e: [{ f: null }] };
    stripNulls(obj);
    expect(obj).toEqual({ b: { d: 1 }, e: [{}] });
  });

  test('keepSystemMetadata restores uid, creation and deletion timestamps', () => {
    const prev = { apiVersion: 'v1', kind: 'X', metadata: { name: 'a', uid: 'u', creationTimestamp: 'T0', deletionTimestamp: 'T1', deletionGracePeriodSeconds: 0 } };
    const next: KubeObject = { apiVersion: 'v1', kind: 'X', metadata: { name: 'a', creationTimestamp: 'T9' } };
    keepSystemMetadata(next, prev);
    expect(next.metadata).toEqual({ name: 'a', uid: 'u', creationTimestamp: 'T0', deletionTimestamp: 'T1', deletionGracePeriodSeconds: 0 });
  });

  test('keepAllButStatus keeps the sent status and resourceVersion only', () => {
    const prev = { apiVersion: 'v1', kind: 'X', metadata: { name: 'a', resourceVersion: '5', labels: { a: '1' } }, spec: { x: 1 }, status: { phase: 'A' } };
    const next: KubeObject = { apiVersion: 'v1', kind: 'X', metadata: { name: 'a', resourceVersion: '4', labels: { a: '2' } }, spec: { x: 2 }, status: { phase: 'B' } };
    keepAllButStatus(next, prev);
    expect(next).toEqual({ apiVersion: 'v1', kind: 'X', metadata: { name: 'a', resourceVersion: '4', labels: { a: '1' } }, spec: { x: 1 }, status: { phase: 'B' } });
  });

  test('timestampNow has whole seconds', () => {
    expect(timestampNow(new Date('2024-05-06T07:08:09.123Z'))).toBe('2024-05-06T07:08:09Z');
  });
});
