import { describe, expect, test } from 'vitest';
import { createErrors, created, lines, patched, updateErrors } from '../testing';
import type { KubeObject } from '../types';
import type { Namespace } from './schema';
import { namespaceStrategy as strategy } from './strategy';

const teamA: Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } };
const LABEL = /a lowercase RFC 1123 label must consist of/;

describe('Namespace validation on create', () => {
  test.each<{ rule: string; ns: KubeObject; want: (string | RegExp)[] }>([
    { rule: 'a plain namespace is valid', ns: teamA, want: [] },
    { rule: 'the kubernetes finalizer is valid', ns: patched(teamA, { spec: { finalizers: ['kubernetes'] } }), want: [] },
    { rule: 'a qualified finalizer is valid', ns: patched(teamA, { spec: { finalizers: ['example.com/cleanup'] } }), want: [] },
    { rule: 'a generated name is valid', ns: { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: 'team-' } }, want: [] },
    { rule: 'the name is required', ns: { apiVersion: 'v1', kind: 'Namespace', metadata: {} }, want: ['metadata.name: Required value: name or generateName is required'] },
    { rule: 'the name is a label, without dots', ns: patched(teamA, { metadata: { name: 'team.a' } }), want: ['metadata.name: Invalid value: "team.a": must not contain dots'] },
    { rule: 'the name is lower case', ns: patched(teamA, { metadata: { name: 'TeamA' } }), want: [LABEL] },
    {
      rule: 'the name is at most 63 characters (and so is its label)',
      ns: patched(teamA, { metadata: { name: 'a'.repeat(64) } }),
      want: [/^metadata\.name: Invalid value: "a{64}": must be no more than 63 characters$/, /^metadata\.labels: Invalid value: "a{64}": must be no more than 63 bytes$/],
    },
    { rule: 'the generated name prefix is a label too', ns: { apiVersion: 'v1', kind: 'Namespace', metadata: { generateName: 'team.' } }, want: [/^metadata\.generateName: Invalid value: "team\."/] },
    { rule: 'namespaces are cluster-scoped', ns: patched(teamA, { metadata: { namespace: 'default' } }), want: ['metadata.namespace: Forbidden: not allowed on this type'] },
    { rule: 'an unqualified finalizer must be standard', ns: patched(teamA, { spec: { finalizers: ['wipe'] } }), want: ['spec.finalizers[0]: Invalid value: "wipe": name is neither a standard finalizer name nor is it fully qualified'] },
    { rule: 'a finalizer is a qualified name', ns: patched(teamA, { spec: { finalizers: ['a/b/c'] } }), want: [/^spec\.finalizers\[0\]: Invalid value: "a\/b\/c": a valid label key/] },
    { rule: 'labels are validated', ns: patched(teamA, { metadata: { labels: { team: 'a b' } } }), want: [/^metadata\.labels: Invalid value: "a b"/] },
    { rule: 'unknown spec fields are refused', ns: patched(teamA, { spec: { quota: '10Gi' } }), want: ['spec.quota: unknown field "spec.quota"'] },
    { rule: 'unknown top-level fields are refused', ns: patched(teamA, { data: {} }), want: ['data: unknown field "data"'] },
    { rule: 'finalizers are strings', ns: patched(teamA, { spec: { finalizers: [1] } }), want: ['spec.finalizers[0]: Invalid value: "number": must be of type string'] },
    { rule: 'the kind must match', ns: patched(teamA, { kind: 'Node' }), want: ['kind: Invalid value: "Node": must be Namespace'] },
  ])('$rule', ({ ns, want }) => {
    const got = lines(createErrors(strategy, ns));
    expect(got).toHaveLength(want.length);
    want.forEach((w, i) => (typeof w === 'string' ? expect(got[i]).toBe(w) : expect(got[i]).toMatch(w)));
  });

  test.each([
    { rule: 'Active is the phase of a namespace not being deleted', phase: 'Active', deleting: false, want: [] },
    { rule: 'Terminating is the phase of a namespace being deleted', phase: 'Terminating', deleting: true, want: [] },
    { rule: 'phases are Active or Terminating', phase: 'Deleting', deleting: false, want: ['status.phase: Unsupported value: "Deleting": supported values: "Active", "Terminating"'] },
    { rule: 'ValidateNamespaceStatusUpdate: not Terminating without a deletionTimestamp', phase: 'Terminating', deleting: false, want: ['status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty'] },
    { rule: 'ValidateNamespaceStatusUpdate: a namespace being deleted cannot be made Active again', phase: 'Active', deleting: true, want: ['status.Phase: Invalid value: "Active": may only be \'Terminating\' if `deletionTimestamp` is not empty'] },
  ])('$rule', ({ phase, deleting, want }) => {
    const ns = structuredClone(teamA);
    if (deleting) ns.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(lines(strategy.validate({ ...ns, status: { phase } }))).toEqual(want);
  });
});

describe('Namespace defaults and preparation', () => {
  test('the name label and the Active phase are defaulted', () => {
    const ns = structuredClone(teamA);
    strategy.applyDefaults(ns);
    expect(ns.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team-a' });
    expect(ns.status).toEqual({ phase: 'Active' });
  });

  test('the name label always follows the name', () => {
    const ns = patched(teamA, { metadata: { labels: { 'kubernetes.io/metadata.name': 'other', team: 'a' } } });
    strategy.applyDefaults(ns);
    expect(ns.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'team-a', team: 'a' });
  });

  test('create adds the kubernetes finalizer and starts Active', () => {
    const ns = patched(teamA, { spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } });
    strategy.prepareForCreate(ns);
    expect(ns.spec?.finalizers).toEqual(['example.com/x', 'kubernetes']);
    expect(ns.status).toEqual({ phase: 'Active' });
  });

  test('an update keeps spec finalizers and status', () => {
    const prev = created(strategy, teamA);
    const next = patched(prev, { spec: { finalizers: [] }, status: { phase: 'Terminating' }, metadata: { labels: { a: 'b' } } });
    strategy.prepareForUpdate(next, prev);
    expect(next.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(next.status).toEqual({ phase: 'Active' });
    expect(next.metadata.labels?.a).toBe('b');
  });

  test('labels may change, the name may not', () => {
    const prev = created(strategy, teamA);
    expect(updateErrors(strategy, prev, patched(prev, { metadata: { labels: { a: 'b' } } }))).toEqual([]);
    expect(lines(updateErrors(strategy, prev, patched(prev, { metadata: { name: 'team-b' } })))).toEqual([
      'metadata.name: Invalid value: "team-b": field is immutable',
    ]);
  });
});

describe('Namespace columns, table and selectors', () => {
  const ns = created(strategy, teamA);

  test('the phase is indexed', () => {
    expect(strategy.columns(ns).phase).toBe('Active');
  });

  test('the table is NAME STATUS AGE', () => {
    expect(strategy.table.columns.map((c) => c.name)).toEqual(['Name', 'Status', 'Age']);
    expect(strategy.table.row(ns, new Date('2024-01-01T03:00:00Z'))).toEqual(['team-a', 'Active', '3h']);
  });

  test('status.phase is selectable', () => {
    expect(strategy.fieldSelectors['status.phase'](ns)).toBe('Active');
    expect(strategy.fieldSelectors.name(ns)).toBe('team-a');
  });
});

describe('Namespace deletion (pkg/registry/core/namespace/storage)', () => {
  const kf = strategy.kindFinalizers!;

  test('spec.finalizers hold a namespace (a new one holds the kubernetes finalizer)', () => {
    expect(kf.of(created(strategy, teamA))).toEqual(['kubernetes']);
    expect(kf.of(teamA)).toEqual([]);
  });

  test('a delete marks it Terminating, keeping its conditions', () => {
    const ns = patched(created(strategy, teamA), { status: { phase: 'Active', conditions: [{ type: 'X', status: 'True' }] } });
    kf.markDeleting(ns);
    expect(ns.status).toEqual({ phase: 'Terminating', conditions: [{ type: 'X', status: 'True' }] });
  });

  test('finalize changes spec.finalizers only (metadata and status stay as stored)', () => {
    const prev = patched(created(strategy, teamA), { metadata: { resourceVersion: '7', deletionTimestamp: '2026-01-01T00:00:00Z' }, status: { phase: 'Terminating' } });
    const next = patched(prev, { metadata: { labels: { a: 'b' } }, spec: { finalizers: [] }, status: { phase: 'Active' } });
    kf.prepareForFinalize(next, prev);
    expect(next.spec).toEqual({ finalizers: [] });
    expect(next.status).toEqual({ phase: 'Terminating' });
    expect(next.metadata.labels?.a).toBeUndefined();
    expect(next.metadata.deletionTimestamp).toBe('2026-01-01T00:00:00Z');
  });
});
