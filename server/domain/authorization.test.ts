import { describe, expect, test } from 'vitest';
import { isAllowed, mayReadMetrics, VERBS, visibleNamespaces, type Principal, type Verb } from './authorization';

const admin: Principal = { type: 'user', id: '1', name: 'root', role: 'admin', namespaces: [] };
const viewer: Principal = { type: 'user', id: '2', name: 'val', role: 'viewer', namespaces: [] };
const dev: Principal = { type: 'user', id: '3', name: 'dana', role: 'developer', namespaces: ['team-a'] };

const KINDS = ['PersistentVolume', 'PersistentVolumeClaim', 'StorageClass', 'Node', 'Namespace', 'Event', 'Secret', 'ResourceQuota'] as const;
const READ = new Set<Verb>(['get', 'list', 'watch']);

/** What a developer may do in their own namespace (team-a), per kind. */
const devOwn: Record<(typeof KINDS)[number], (v: Verb) => boolean> = {
  PersistentVolume: () => false,
  PersistentVolumeClaim: () => true,
  StorageClass: (v) => READ.has(v),
  Node: () => false,
  Namespace: (v) => READ.has(v),
  Event: (v) => READ.has(v),
  Secret: () => false,
  ResourceQuota: (v) => READ.has(v),
};
/** ... and in someone else's namespace (team-b). */
const devOther: Record<(typeof KINDS)[number], (v: Verb) => boolean> = {
  PersistentVolume: () => false,
  PersistentVolumeClaim: () => false,
  StorageClass: (v) => READ.has(v),
  Node: () => false,
  Namespace: () => false,
  Event: () => false,
  Secret: () => false,
  ResourceQuota: () => false,
};

const rows = KINDS.flatMap((kind) =>
  VERBS.flatMap((verb) => [
    { who: 'admin', p: admin, kind, verb, ns: 'team-b', want: true },
    { who: 'viewer', p: viewer, kind, verb, ns: 'team-b', want: kind !== 'Secret' && READ.has(verb) },
    { who: 'developer in own namespace', p: dev, kind, verb, ns: 'team-a', want: devOwn[kind](verb) },
    { who: 'developer in another namespace', p: dev, kind, verb, ns: 'team-b', want: devOther[kind](verb) },
  ]),
);

describe('isAllowed: each role against each kind and verb', () => {
  test.each(rows)('$who may $verb $kind: $want', ({ p, kind, verb, ns, want }) => {
    expect(isAllowed(p, verb, kind, ns)).toBe(want);
  });
});

describe('isAllowed: status subresources belong to controllers and admins', () => {
  test.each(
    VERBS.flatMap((verb) => [
      { who: 'admin', p: admin, verb, want: true },
      { who: 'developer in own namespace', p: dev, verb, want: READ.has(verb) },
      { who: 'viewer', p: viewer, verb, want: READ.has(verb) },
    ]),
  )('$who may $verb persistentvolumeclaims/status: $want', ({ p, verb, want }) => {
    expect(isAllowed(p, verb, 'PersistentVolumeClaim', 'team-a', 'status')).toBe(want);
  });
});

describe('visibleNamespaces', () => {
  test.each([
    { who: 'admin lists claims', p: admin, kind: 'PersistentVolumeClaim', want: 'all' },
    { who: 'viewer lists events', p: viewer, kind: 'Event', want: 'all' },
    { who: 'developer lists claims', p: dev, kind: 'PersistentVolumeClaim', want: ['team-a'] },
    { who: 'developer lists volumes', p: dev, kind: 'PersistentVolume', want: [] },
  ])('$who → $want', ({ p, kind, want }) => {
    expect(visibleNamespaces(p, 'list', kind)).toEqual(want);
  });
});

describe('mayReadMetrics', () => {
  test.each([
    { who: 'nobody signed in', p: undefined, want: false },
    { who: 'admin', p: admin, want: true },
    { who: 'viewer', p: viewer, want: true },
    { who: 'developer', p: dev, want: false },
  ])('$who → $want', ({ p, want }) => expect(mayReadMetrics(p)).toBe(want));
});
