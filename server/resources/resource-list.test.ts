import { describe, expect, it } from 'vitest';
import { quantityDecodeError } from './resource-list';

const regexp = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

describe('quantityDecodeError (upstream Quantity.UnmarshalJSON while decoding the body)', () => {
  it.each([
    { name: 'a PV capacity "lots"', obj: { kind: 'PersistentVolume', spec: { capacity: { storage: 'lots' } } }, bad: true },
    { name: 'a PV capacity "1Gi"', obj: { kind: 'PersistentVolume', spec: { capacity: { storage: '1Gi' } } }, bad: false },
    { name: 'a PV capacity as a number', obj: { kind: 'PersistentVolume', spec: { capacity: { storage: 1000 } } }, bad: false },
    { name: 'a PV capacity null (zero upstream)', obj: { kind: 'PersistentVolume', spec: { capacity: { storage: null } } }, bad: false },
    { name: 'a claim request "250MB"', obj: { kind: 'PersistentVolumeClaim', spec: { resources: { requests: { storage: '250MB' } } } }, bad: true },
    { name: 'a claim limit "1..5Gi"', obj: { kind: 'PersistentVolumeClaim', spec: { resources: { limits: { storage: '1..5Gi' } } } }, bad: true },
    { name: 'a claim status capacity "x"', obj: { kind: 'PersistentVolumeClaim', status: { capacity: { storage: 'x' } } }, bad: true },
    { name: 'a claim request " 1Gi " (trimmed upstream)', obj: { kind: 'PersistentVolumeClaim', spec: { resources: { requests: { storage: ' 1Gi ' } } } }, bad: false },
    { name: 'a kind without quantities', obj: { kind: 'StorageClass', spec: { capacity: { storage: 'lots' } } }, bad: false },
    { name: 'requests that are not a map (validation reports it)', obj: { kind: 'PersistentVolumeClaim', spec: { resources: { requests: 'x' } } }, bad: false },
  ])('$name -> bad: $bad', ({ obj, bad }) => {
    const want = bad ? `${obj.kind} in version "v1" cannot be handled as a ${obj.kind}: ${regexp}` : undefined;
    expect(quantityDecodeError(obj)).toBe(want);
  });
});
