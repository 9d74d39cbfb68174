import { describe, expect, it, test } from 'vitest';
import { parseLabelSelector } from '../domain/label-selector';
import { strategyForKind } from './registry';
import { compileFieldSelector, matchesListOptions, unsupportedFieldLabel } from './selection';
import type { KubeObject } from './types';

const event = strategyForKind('Event')!;
const pv = strategyForKind('PersistentVolume')!;
const ev: KubeObject = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'e1', namespace: 'team-a', labels: { tier: 'gold' } },
  involvedObject: { kind: 'PersistentVolumeClaim', name: 'data', namespace: 'team-a' },
  reason: 'FailedBinding',
  type: 'Warning',
};

describe('matchesListOptions', () => {
  test.each([
    { rule: 'empty selectors select everything', labels: '', fields: '', want: true },
    { rule: 'label equality', labels: 'tier=gold', fields: '', want: true },
    { rule: 'label inequality', labels: 'tier!=gold', fields: '', want: false },
    { rule: 'metadata.name', labels: '', fields: 'metadata.name=e1', want: true },
    { rule: 'metadata.namespace', labels: '', fields: 'metadata.namespace=team-b', want: false },
    { rule: 'involvedObject fields', labels: '', fields: 'involvedObject.kind=PersistentVolumeClaim,involvedObject.name=data', want: true },
    { rule: 'reason negated', labels: '', fields: 'reason!=FailedBinding', want: false },
    { rule: 'labels and fields together', labels: 'tier in (gold,silver)', fields: 'type=Warning', want: true },
  ])('$rule → $want', ({ labels, fields, want }) => {
    expect(matchesListOptions(event, ev, parseLabelSelector(labels), compileFieldSelector(event, fields))).toBe(want);
  });
});

describe('compileFieldSelector', () => {
  test('a field the kind does not support is a BadRequest', () => {
    expect(() => compileFieldSelector(pv, 'spec.capacity=1Gi')).toThrow(expect.objectContaining({ code: 'BadRequest' }));
  });
  test('metadata.name works for every kind', () => {
    expect(compileFieldSelector(pv, 'metadata.name=x')).toEqual([{ field: 'metadata.name', operator: '=', value: 'x' }]);
  });
});

describe('unsupportedFieldLabel (upstream DefaultMetaV1FieldSelectorConversion and core/v1 conversions)', () => {
  it.each([
    { kind: 'PersistentVolume', field: 'spec.capacity', want: '"spec.capacity" is not a known field selector: only "metadata.name", "metadata.namespace"' },
    { kind: 'PersistentVolumeClaim', field: 'status.phase', want: '"status.phase" is not a known field selector: only "metadata.name", "metadata.namespace"' },
    { kind: 'StorageClass', field: 'provisioner', want: '"provisioner" is not a known field selector: only "metadata.name", "metadata.namespace"' },
    { kind: 'Event', field: 'spec.x', want: 'field label not supported: spec.x' },
    { kind: 'Namespace', field: 'spec.x', want: 'field label not supported: spec.x' },
    { kind: 'Node', field: 'spec.x', want: 'field label not supported: spec.x' },
    { kind: 'Secret', field: 'spec.x', want: 'field label not supported: spec.x' },
  ])('$kind $field', ({ kind, field, want }) => {
    expect(unsupportedFieldLabel(strategyForKind(kind)!, field)).toBe(want);
  });
});
