import { describe, expect, test } from 'vitest';
import { createErrors, created, lines, patched, updateErrors } from '../testing';
import type { KubeObject } from '../types';
import { eventStrategy as strategy } from './strategy';

const provisioned: KubeObject = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'data.17a8b2c3d4e5f6a7', namespace: 'team-a' },
  involvedObject: { kind: 'PersistentVolumeClaim', namespace: 'team-a', name: 'data', uid: 'c-1', apiVersion: 'v1', resourceVersion: '42' },
  reason: 'ProvisioningSucceeded',
  message: 'Successfully provisioned volume pvc-c-1 ',
  source: { component: 'persistentvolume-controller' },
  firstTimestamp: '2024-01-01T00:00:00Z',
  lastTimestamp: '2024-01-01T00:10:00Z',
  count: 3,
  type: 'Normal',
};

const aboutPV = patched(provisioned, {
  metadata: { namespace: 'default', name: 'pv-1.17a8' },
  involvedObject: { kind: 'PersistentVolume', namespace: undefined, name: 'pv-1' },
  reason: 'VolumeFailedDelete',
  type: 'Warning',
});

const newStyle = patched(provisioned, {
  eventTime: '2024-01-01T00:00:00.000000Z',
  firstTimestamp: undefined,
  lastTimestamp: undefined,
  count: undefined,
  source: undefined,
  reportingComponent: 'stowage.io/binder',
  reportingInstance: 'stowage-0',
  action: 'Binding',
});

describe('Event validation on create', () => {
  test.each<{ rule: string; ev: KubeObject; want: (string | RegExp)[] }>([
    { rule: 'an event about a claim in its namespace is valid', ev: provisioned, want: [] },
    { rule: 'an event about a cluster-scoped volume lives in default', ev: aboutPV, want: [] },
    { rule: 'a new-style event with reporter and action is valid', ev: newStyle, want: [] },
    { rule: 'a new-style event about a cluster object may live in kube-system', ev: patched(newStyle, { metadata: { namespace: 'kube-system' }, involvedObject: { namespace: undefined } }), want: [] },
    { rule: 'the involved object is required', ev: patched(provisioned, { involvedObject: undefined }), want: ['involvedObject: Required value', 'involvedObject.namespace: Invalid value: "": does not match event.namespace'] },
    { rule: 'the involved namespace must match', ev: patched(provisioned, { involvedObject: { namespace: 'team-b' } }), want: ['involvedObject.namespace: Invalid value: "team-b": does not match event.namespace'] },
    { rule: 'events about cluster objects live in default', ev: patched(aboutPV, { metadata: { namespace: 'team-a' } }), want: ['involvedObject.namespace: Invalid value: "": does not match event.namespace'] },
    { rule: 'events are namespaced', ev: patched(provisioned, { metadata: { namespace: undefined }, involvedObject: { namespace: undefined } }), want: ['metadata.namespace: Required value'] },
    {
      rule: 'new-style events name their reporter and action',
      ev: patched(newStyle, { reportingComponent: undefined, reportingInstance: undefined, action: undefined }),
      want: [
        'reportingComponent: Required value',
        'reportingComponent: Invalid value: "": name part must be non-empty',
        /^reportingComponent: Invalid value: "": name part must consist/,
        'reportingInstance: Required value',
        'action: Required value',
      ],
    },
    { rule: 'the reporting component is a qualified name', ev: patched(newStyle, { reportingComponent: 'stowage binder' }), want: [/^reportingComponent: Invalid value: "stowage binder": name part must consist/] },
    { rule: 'a new-style reason is at most 128 characters', ev: patched(newStyle, { reason: 'R'.repeat(129) }), want: ['reason: Invalid value: "": can have at most 128 characters'] },
    { rule: 'a new-style message is at most 1024 characters', ev: patched(newStyle, { message: 'm'.repeat(1025) }), want: ['message: Invalid value: "": can have at most 1024 characters'] },
    { rule: 'the type is Normal or Warning', ev: patched(provisioned, { type: 'Error' }), want: ['type: Unsupported value: "Error": supported values: "Normal", "Warning"'] },
    { rule: 'the count is an integer', ev: patched(provisioned, { count: 1.5 }), want: ['count: Invalid value: "number": must be of type integer'] },
    { rule: 'unknown fields are refused', ev: patched(provisioned, { severity: 'high' }), want: ['severity: unknown field "severity"'] },
    { rule: 'unknown source fields are refused', ev: patched(provisioned, { source: { node: 'n' } }), want: ['source.node: unknown field "source.node"'] },
    { rule: 'the name is a DNS subdomain', ev: patched(provisioned, { metadata: { name: 'Data Event' } }), want: [/^metadata\.name: Invalid value: "Data Event": a lowercase RFC 1123 subdomain/] },
  ])('$rule', ({ ev, want }) => {
    const got = lines(createErrors(strategy, ev));
    expect(got).toHaveLength(want.length);
    want.forEach((w, i) => (typeof w === 'string' ? expect(got[i]).toBe(w) : expect(got[i]).toMatch(w)));
  });

  test('a repeat may bump the count; the name stays', () => {
    const prev = created(strategy, provisioned);
    expect(updateErrors(strategy, prev, patched(prev, { count: 4, lastTimestamp: '2024-01-01T00:20:00Z' }))).toEqual([]);
    expect(lines(updateErrors(strategy, prev, patched(prev, { metadata: { name: 'other' } })))).toEqual([
      'metadata.name: Invalid value: "other": field is immutable',
    ]);
  });
});

describe('Event table', () => {
  const now = new Date('2024-01-01T01:00:00Z');

  test('columns are the ones kubectl prints', () => {
    expect(strategy.table.columns.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Message']);
    expect(strategy.table.columns.filter((c) => c.priority === 1).map((c) => c.name)).toEqual(['Subobject', 'Source', 'First Seen', 'Count', 'Name']);
  });

  test.each<{ rule: string; ev: KubeObject; want: unknown[] }>([
    { rule: 'a repeated event', ev: provisioned, want: ['50m', 'Normal', 'ProvisioningSucceeded', 'persistentvolumeclaim/data', '', 'persistentvolume-controller', 'Successfully provisioned volume pvc-c-1', '60m', 3, 'data.17a8b2c3d4e5f6a7'] },
    { rule: 'a new-style event without a count counts once', ev: newStyle, want: ['60m', 'Normal', 'ProvisioningSucceeded', 'persistentvolumeclaim/data', '', 'stowage.io/binder, stowage-0', 'Successfully provisioned volume pvc-c-1', '60m', 1, 'data.17a8b2c3d4e5f6a7'] },
    {
      rule: 'a series shows its last observation',
      ev: patched(newStyle, { series: { count: 7, lastObservedTime: '2024-01-01T00:59:00.000000Z' } }),
      want: ['60s', 'Normal', 'ProvisioningSucceeded', 'persistentvolumeclaim/data', '', 'stowage.io/binder, stowage-0', 'Successfully provisioned volume pvc-c-1', '60m', 7, 'data.17a8b2c3d4e5f6a7'],
    },
    { rule: 'an object without a name shows only its kind', ev: patched(aboutPV, { involvedObject: { name: undefined }, source: { host: 'node-1' } }), want: ['50m', 'Warning', 'VolumeFailedDelete', 'persistentvolume', '', 'persistentvolume-controller, node-1', 'Successfully provisioned volume pvc-c-1', '60m', 3, 'pv-1.17a8'] },
  ])('$rule', ({ ev, want }) => {
    expect(strategy.table.row(created(strategy, ev), now)).toEqual(want);
  });
});

describe('Event field selectors', () => {
  test.each([
    ['involvedObject.kind', 'PersistentVolumeClaim'],
    ['involvedObject.namespace', 'team-a'],
    ['involvedObject.name', 'data'],
    ['involvedObject.uid', 'c-1'],
    ['involvedObject.apiVersion', 'v1'],
    ['involvedObject.resourceVersion', '42'],
    ['involvedObject.fieldPath', ''],
    ['reason', 'ProvisioningSucceeded'],
    ['reportingComponent', ''],
    ['source', 'persistentvolume-controller'],
    ['type', 'Normal'],
  ])('%s = %j', (field, want) => {
    expect(strategy.fieldSelectors[field](provisioned)).toBe(want);
  });

  test('source falls back to the reporting component', () => {
    expect(strategy.fieldSelectors.source(newStyle)).toBe('stowage.io/binder');
  });
});
