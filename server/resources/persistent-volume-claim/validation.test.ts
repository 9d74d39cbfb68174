import { describe, expect, test } from 'vitest';
import { createErrors, created, lines, patched, updateErrors } from '../testing';
import type { KubeObject } from '../types';
import { claim } from './fixtures';
import { persistentVolumeClaimStrategy as strategy } from './strategy';
import { validatePersistentVolumeClaim } from './validation';

const SUBDOMAIN = /a lowercase RFC 1123 subdomain must consist of/;

describe('PersistentVolumeClaim validation on create', () => {
  test.each<{ rule: string; pvc: KubeObject; want: (string | RegExp)[] }>([
    { rule: 'a plain claim is valid', pvc: claim, want: [] },
    { rule: 'a claim with a selector and volume name is valid', pvc: patched(claim, { spec: { selector: { matchLabels: { tier: 'gold' }, matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, volumeName: 'pv-1' } }), want: [] },
    { rule: 'an empty class asks for no class', pvc: patched(claim, { spec: { storageClassName: '' } }), want: [] },
    { rule: 'a claim restored from a VolumeBackup (dataSourceRef, stowage.io) is valid', pvc: patched(claim, { spec: { dataSourceRef: { apiGroup: 'stowage.io', kind: 'VolumeBackup', name: 'b1' } } }), want: [] },
    { rule: 'a claim cloned from another claim is valid', pvc: patched(claim, { spec: { dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } } }), want: [] },
    { rule: 'access modes are required', pvc: patched(claim, { spec: { accessModes: undefined } }), want: ['spec.accessModes: Required value: at least 1 access mode is required'] },
    { rule: 'access modes must be supported', pvc: patched(claim, { spec: { accessModes: ['RWO'] } }), want: ['spec.accessModes: Unsupported value: "RWO": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"'] },
    { rule: 'ReadWriteOncePod stands alone', pvc: patched(claim, { spec: { accessModes: ['ReadWriteMany', 'ReadWriteOncePod'] } }), want: ['spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes'] },
    { rule: 'a storage request is required', pvc: patched(claim, { spec: { resources: undefined } }), want: ['spec.resources[storage]: Required value'] },
    { rule: 'other requests and limits are not checked beyond parsing', pvc: patched(claim, { spec: { resources: { requests: { cpu: '-1' }, limits: { storage: '-1Gi' } } } }), want: [] },
    { rule: 'the storage request must be greater than zero', pvc: patched(claim, { spec: { resources: { requests: { storage: '0Gi' } } } }), want: ['spec.resources[storage]: Invalid value: "0": must be greater than zero'] },
    { rule: 'the storage request may not be negative', pvc: patched(claim, { spec: { resources: { requests: { storage: '-5Gi' } } } }), want: ['spec.resources[storage]: Invalid value: "-5Gi": must be greater than zero'] },
    { rule: 'the storage request must parse', pvc: patched(claim, { spec: { resources: { requests: { storage: '5 GB' } } } }), want: [/^spec\.resources\[storage\]: Invalid value: "5 GB": quantities must match the regular expression/] },
    { rule: 'limits must parse too', pvc: patched(claim, { spec: { resources: { limits: { storage: 'x' } } } }), want: [/^spec\.resources\.limits\[storage\]: Invalid value: "x": quantities must match/] },
    { rule: 'the selector is validated', pvc: patched(claim, { spec: { selector: { matchExpressions: [{ key: 'zone', operator: 'In' }] } } }), want: [/^spec\.selector\.matchExpressions\[0\]\.values: Required value/] },
    { rule: 'the storage class is a DNS subdomain', pvc: patched(claim, { spec: { storageClassName: 'Fast!' } }), want: [SUBDOMAIN] },
    { rule: 'volume mode must be supported', pvc: patched(claim, { spec: { volumeMode: 'block' } }), want: ['spec.volumeMode: Unsupported value: "block": supported values: "Block", "Filesystem"'] },
    { rule: 'a core data source must be a claim', pvc: patched(claim, { spec: { dataSourceRef: { kind: 'Secret', name: 's' } } }), want: [`spec.dataSource: Invalid value: "Secret": must be 'PersistentVolumeClaim' when referencing the default apiGroup`, `spec.dataSourceRef: Invalid value: "Secret": must be 'PersistentVolumeClaim' when referencing the default apiGroup`] },
    { rule: 'a core data source of another kind in dataSource alone is dropped, not refused', pvc: patched(claim, { spec: { dataSource: { kind: 'Secret', name: 's' } } }), want: [] },
    { rule: 'a data source needs a name', pvc: patched(claim, { spec: { dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot' } } }), want: ['spec.dataSource.name: Required value', 'spec.dataSourceRef.name: Required value'] },
    {
      rule: 'dataSource must match dataSourceRef',
      pvc: patched(claim, { spec: { dataSource: { kind: 'PersistentVolumeClaim', name: 'a' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'b' } } }),
      want: ['spec: Invalid value: {}: must match dataSourceRef'],
    },
    { rule: 'claims are namespaced', pvc: patched(claim, { metadata: { namespace: undefined } }), want: ['metadata.namespace: Required value'] },
    { rule: 'the name is a DNS subdomain', pvc: patched(claim, { metadata: { name: '-data' } }), want: [SUBDOMAIN] },
    { rule: 'unknown fields are refused', pvc: patched(claim, { spec: { resources: { request: { storage: '1Gi' } } } }), want: ['spec.resources.request: unknown field "spec.resources.request"'] },
    { rule: 'the request must be a quantity type', pvc: patched(claim, { spec: { resources: { requests: { storage: ['5Gi'] } } } }), want: ['spec.resources.requests.storage: Invalid value: "array": must be of type string or number'] },
  ])('$rule', ({ pvc, want }) => {
    const got = lines(createErrors(strategy, pvc));
    expect(got).toHaveLength(want.length);
    want.forEach((w, i) => (typeof w === 'string' ? expect(got[i]).toBe(w) : expect(got[i]).toMatch(w)));
  });

  test.each([
    { rule: 'status.phase must be Pending, Bound or Lost', status: { phase: 'Available' }, want: ['status.phase: Unsupported value: "Available": supported values: "Bound", "Lost", "Pending"'] },
    { rule: 'status capacity may not be negative', status: { phase: 'Bound', capacity: { storage: '-1' } }, want: ['status.capacity.storage: Invalid value: "-1": must be greater than or equal to 0'] },
  ])('$rule', ({ status, want }) => {
    expect(lines(validatePersistentVolumeClaim({ ...structuredClone(claim), status }))).toEqual(want);
  });
});

describe('PersistentVolumeClaim validation on update', () => {
  const pending = created(strategy, claim);
  const bound = created(strategy, patched(claim, { spec: { volumeName: 'pv-1' } }));
  bound.status = { phase: 'Bound', capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'] };
  const expanding = structuredClone(bound);
  // The claim fixture sets spec.resources.requests.
  expanding.spec!.resources!.requests!.storage = '20Gi';
  const classless = created(strategy, patched(claim, { spec: { storageClassName: undefined } }));
  const annotated = created(strategy, patched(claim, { metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': 'gold' } }, spec: { storageClassName: undefined } }));
  const immutable = 'Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

  test.each<{ rule: string; prev: KubeObject; change: object; want: string[] }>([
    { rule: 'labels may change', prev: pending, change: { metadata: { labels: { app: 'db' } } }, want: [] },
    { rule: 'the binder may set volumeName once', prev: pending, change: { spec: { volumeName: 'pv-1' } }, want: [] },
    { rule: 'volumeName may not change once set', prev: bound, change: { spec: { volumeName: 'pv-2' } }, want: [`spec: ${immutable}`] },
    { rule: 'access modes are immutable', prev: pending, change: { spec: { accessModes: ['ReadWriteMany'] } }, want: [`spec: ${immutable}`] },
    { rule: 'the storage class is immutable once set', prev: pending, change: { spec: { storageClassName: 'slow' } }, want: [`spec: ${immutable}`] },
    { rule: 'a storage class may be set when it was nil', prev: classless, change: { spec: { storageClassName: 'slow' } }, want: [] },
    { rule: 'the beta class annotation may become the field', prev: annotated, change: { spec: { storageClassName: 'gold' } }, want: [] },
    { rule: 'the field must match the beta class annotation', prev: annotated, change: { spec: { storageClassName: 'silver' } }, want: [`spec: ${immutable}`] },
    { rule: 'the beta class annotation is immutable', prev: annotated, change: { metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': 'silver' } } }, want: ['metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "silver": field is immutable'] },
    { rule: 'a pending claim cannot be resized', prev: pending, change: { spec: { resources: { requests: { storage: '10Gi' } } } }, want: [`spec: ${immutable}`] },
    { rule: 'a bound claim may grow', prev: bound, change: { spec: { resources: { requests: { storage: '10Gi' } } } }, want: [] },
    { rule: 'a bound claim may not shrink to its capacity', prev: bound, change: { spec: { resources: { requests: { storage: '1Gi' } } } }, want: ['spec.resources.requests.storage: Forbidden: field can not be less than status.capacity'] },
    { rule: 'a failed expansion may be walked back above capacity', prev: expanding, change: { spec: { resources: { requests: { storage: '10Gi' } } } }, want: [] },
    { rule: 'limits are not requests', prev: bound, change: { spec: { resources: { limits: { storage: '10Gi' } } } }, want: [`spec: ${immutable}`] },
    { rule: 'volumeMode is immutable', prev: pending, change: { spec: { volumeMode: 'Block' } }, want: ['volumeMode: Invalid value: "Block": field is immutable'] },
    { rule: 'volumeAttributesClassName may change on a pending claim too (upstream leaves it out of the spec comparison)', prev: pending, change: { spec: { volumeAttributesClassName: 'gold' } }, want: [] },
    { rule: 'the namespace is immutable', prev: pending, change: { metadata: { namespace: 'team-b' } }, want: ['metadata.namespace: Invalid value: "team-b": field is immutable'] },
  ])('$rule', ({ prev, change, want }) => {
    expect(lines(updateErrors(strategy, prev, patched(prev, change)))).toEqual(want);
  });
});
