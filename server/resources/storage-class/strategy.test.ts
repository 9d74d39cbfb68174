import { describe, expect, test } from 'vitest';
import { createErrors, created, lines, patched, updateErrors } from '../testing';
import type { KubeObject } from '../types';
import { storageClassStrategy as strategy } from './strategy';

const fast: KubeObject = {
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'fast' },
  provisioner: 'kubernetes.io/no-provisioner',
  parameters: { type: 'ssd' },
};

const zone = (...values: string[]) => ({ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values }] });
const manyParameters = Object.fromEntries(Array.from({ length: 513 }, (_, i) => [`k${i}`, 'v']));

describe('StorageClass validation on create', () => {
  test.each<{ rule: string; sc: KubeObject; want: (string | RegExp)[] }>([
    { rule: 'a plain class is valid', sc: fast, want: [] },
    {
      rule: 'a class with topologies, binding mode and retain is valid',
      sc: patched(fast, { reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true, mountOptions: ['debug'], allowedTopologies: [zone('us-a', 'us-b')] }),
      want: [],
    },
    { rule: 'the provisioner is required', sc: patched(fast, { provisioner: undefined }), want: ['provisioner: Required value'] },
    { rule: 'the provisioner is a qualified name', sc: patched(fast, { provisioner: 'a/b/c' }), want: [/^provisioner: Invalid value: "a\/b\/c": a valid label key/] },
    { rule: 'the provisioner is checked in lower case', sc: patched(fast, { provisioner: 'Example.COM/My-Provisioner' }), want: [] },
    { rule: 'the provisioner name part must end alphanumeric', sc: patched(fast, { provisioner: 'example.com/p-' }), want: [/^provisioner: Invalid value: "example.com\/p-": name part must consist/] },
    { rule: 'Recycle is not a class reclaim policy', sc: patched(fast, { reclaimPolicy: 'Recycle' }), want: ['reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"'] },
    { rule: 'the binding mode must be supported', sc: patched(fast, { volumeBindingMode: 'Lazy' }), want: ['volumeBindingMode: Unsupported value: "Lazy": supported values: "Immediate", "WaitForFirstConsumer"'] },
    { rule: 'at most 512 parameters', sc: patched(fast, { parameters: manyParameters }), want: ['parameters: Too long: may not be more than 512 bytes'] },
    { rule: 'the 256 KiB of parameters count bytes, not characters', sc: patched(fast, { parameters: { big: 'é'.repeat(128 * 1024) } }), want: ['parameters: Too long: may not be more than 262144 bytes'] },
    { rule: 'an empty reclaim policy is not checked, as upstream', sc: patched(fast, { reclaimPolicy: '' }), want: [] },
    { rule: 'parameters total at most 256 KiB', sc: patched(fast, { parameters: { big: 'x'.repeat(256 * 1024) } }), want: ['parameters: Too long: may not be more than 262144 bytes'] },
    { rule: 'a parameter key may not be empty', sc: patched(fast, { parameters: { '': 'x' } }), want: ['parameters: Invalid value: "": field can not be empty.'] },
    { rule: 'parameter values are strings', sc: patched(fast, { parameters: { iops: 3000 } }), want: ['parameters.iops: Invalid value: "number": must be of type string'] },
    { rule: 'a topology requirement needs values', sc: patched(fast, { allowedTopologies: [zone()] }), want: ['allowedTopologies[0].matchLabelExpressions[0].values: Required value'] },
    { rule: 'topology values are a set', sc: patched(fast, { allowedTopologies: [zone('a', 'a')] }), want: ['allowedTopologies[0].matchLabelExpressions[0].values[1]: Duplicate value: "a"'] },
    {
      rule: 'a topology key appears once per term',
      sc: patched(fast, { allowedTopologies: [{ matchLabelExpressions: [...zone('a').matchLabelExpressions, ...zone('b').matchLabelExpressions] }] }),
      want: ['allowedTopologies[0].matchLabelExpressions[1].key: Duplicate value: "topology.kubernetes.io/zone"'],
    },
    { rule: 'topology terms are unique', sc: patched(fast, { allowedTopologies: [zone('a', 'b'), zone('b', 'a')] }), want: ['allowedTopologies[1].matchLabelExpressions: Duplicate value: ""'] },
    { rule: 'topology keys are label names', sc: patched(fast, { allowedTopologies: [{ matchLabelExpressions: [{ key: 'bad key', values: ['a'] }] }] }), want: [/^allowedTopologies\[0\]\.matchLabelExpressions\[0\]\.key: Invalid value: "bad key"/] },
    { rule: 'the name is a DNS subdomain', sc: patched(fast, { metadata: { name: 'Fast' } }), want: [/^metadata\.name: Invalid value: "Fast": a lowercase RFC 1123 subdomain/] },
    { rule: 'classes are cluster-scoped', sc: patched(fast, { metadata: { namespace: 'default' } }), want: ['metadata.namespace: Forbidden: not allowed on this type'] },
    { rule: 'there is no spec', sc: patched(fast, { spec: { provisioner: 'x' } }), want: ['spec: unknown field "spec"'] },
    { rule: 'the apiVersion must be storage.k8s.io/v1', sc: patched(fast, { apiVersion: 'v1' }), want: ['apiVersion: Invalid value: "v1": must be storage.k8s.io/v1'] },
  ])('$rule', ({ sc, want }) => {
    const got = lines(createErrors(strategy, sc));
    expect(got).toHaveLength(want.length);
    want.forEach((w, i) => (typeof w === 'string' ? expect(got[i]).toBe(w) : expect(got[i]).toMatch(w)));
  });
});

describe('StorageClass defaults', () => {
  test.each([
    { rule: 'reclaim policy defaults to Delete', sc: fast, field: 'reclaimPolicy', want: 'Delete' },
    { rule: 'binding mode defaults to Immediate', sc: fast, field: 'volumeBindingMode', want: 'Immediate' },
    { rule: 'an explicit reclaim policy is kept', sc: patched(fast, { reclaimPolicy: 'Retain' }), field: 'reclaimPolicy', want: 'Retain' },
    { rule: 'an explicit binding mode is kept', sc: patched(fast, { volumeBindingMode: 'WaitForFirstConsumer' }), field: 'volumeBindingMode', want: 'WaitForFirstConsumer' },
  ])('$rule', ({ sc, field, want }) => {
    const obj = structuredClone(sc);
    strategy.applyDefaults(obj);
    expect(obj[field]).toBe(want);
  });
});

describe('StorageClass validation on update', () => {
  const stored = created(strategy, fast);

  test.each([
    { rule: 'the default marker may change', change: { metadata: { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } }, want: [] },
    { rule: 'expansion may be allowed later', change: { allowVolumeExpansion: true, mountOptions: ['ro'] }, want: [] },
    { rule: 'parameters are immutable', change: { parameters: { type: 'hdd' } }, want: ['parameters: Forbidden: updates to parameters are forbidden.'] },
    { rule: 'the provisioner is immutable', change: { provisioner: 'example.com/other' }, want: ['provisioner: Forbidden: updates to provisioner are forbidden.'] },
    { rule: 'the reclaim policy is immutable', change: { reclaimPolicy: 'Retain' }, want: ['reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.'] },
    { rule: 'the binding mode is immutable', change: { volumeBindingMode: 'WaitForFirstConsumer' }, want: ['volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable'] },
  ])('$rule', ({ change, want }) => {
    expect(lines(updateErrors(strategy, stored, patched(stored, change)))).toEqual(want);
  });
});

describe('StorageClass table', () => {
  const now = new Date('2024-01-01T00:00:30Z');

  test('columns are the ones kubectl prints', () => {
    expect(strategy.table.columns.map((c) => c.name)).toEqual(['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
  });

  test.each([
    { rule: 'a plain class', sc: fast, want: ['fast', 'kubernetes.io/no-provisioner', 'Delete', 'Immediate', false, '30s'] },
    { rule: 'the default class is marked', sc: patched(fast, { metadata: { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } }), want: ['fast (default)', 'kubernetes.io/no-provisioner', 'Delete', 'Immediate', false, '30s'] },
    { rule: 'the beta default annotation counts too', sc: patched(fast, { metadata: { annotations: { 'storageclass.beta.kubernetes.io/is-default-class': 'true' } } }), want: ['fast (default)', 'kubernetes.io/no-provisioner', 'Delete', 'Immediate', false, '30s'] },
    { rule: 'a default marker other than "true" does not count', sc: patched(fast, { metadata: { annotations: { 'storageclass.kubernetes.io/is-default-class': 'yes' } } }), want: ['fast', 'kubernetes.io/no-provisioner', 'Delete', 'Immediate', false, '30s'] },
    { rule: 'retained, late-binding, expandable', sc: patched(fast, { reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true }), want: ['fast', 'kubernetes.io/no-provisioner', 'Retain', 'WaitForFirstConsumer', true, '30s'] },
  ])('$rule', ({ sc, want }) => {
    expect(strategy.table.row(created(strategy, sc), now)).toEqual(want);
  });

  test('classes fill no indexed column', () => {
    expect(Object.values(strategy.columns(created(strategy, fast))).every((v) => v === null)).toBe(true);
  });

  test('resource names', () => {
    expect([strategy.group, strategy.apiVersion, strategy.plural, strategy.shortNames, strategy.hasStatus]).toEqual(['storage.k8s.io', 'storage.k8s.io/v1', 'storageclasses', ['sc'], false]);
  });
});
