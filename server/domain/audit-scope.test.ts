import { describe, expect, test } from 'vitest';
import { auditScope, inScope } from './audit-scope';
import type { Principal } from './authorization';

const KINDS = [
  { kind: 'PersistentVolume', namespaced: false },
  { kind: 'PersistentVolumeClaim', namespaced: true },
  { kind: 'StorageClass', namespaced: false },
  { kind: 'Namespace', namespaced: false },
  { kind: 'Event', namespaced: true },
  { kind: 'Secret', namespaced: true },
];

const user = (role: Principal['role'], namespaces: string[] = []): Principal => ({ type: 'user', id: role, name: role, role, namespaces });
const admin = user('admin');
const viewer = user('viewer');
const dev = user('developer', ['team-a']);
const stranger = user('developer', []);

const rows: { who: Principal; kind: string; namespace: string; name: string; sees: boolean }[] = [
  { who: admin, kind: 'Secret', namespace: 'team-a', name: 's', sees: true },
  { who: admin, kind: 'PersistentVolume', namespace: '', name: 'pv-1', sees: true },
  { who: viewer, kind: 'PersistentVolume', namespace: '', name: 'pv-1', sees: true },
  { who: viewer, kind: 'PersistentVolumeClaim', namespace: 'team-b', name: 'c', sees: true },
  { who: viewer, kind: 'Secret', namespace: 'team-a', name: 's', sees: false },
  { who: dev, kind: 'PersistentVolumeClaim', namespace: 'team-a', name: 'c', sees: true },
  { who: dev, kind: 'PersistentVolumeClaim', namespace: 'team-b', name: 'c', sees: false },
  { who: dev, kind: 'Event', namespace: 'team-a', name: 'e', sees: true },
  { who: dev, kind: 'Event', namespace: 'team-b', name: 'e', sees: false },
  { who: dev, kind: 'PersistentVolume', namespace: '', name: 'pv-1', sees: false },
  { who: dev, kind: 'StorageClass', namespace: '', name: 'fast', sees: true },
  { who: dev, kind: 'Namespace', namespace: '', name: 'team-a', sees: true },
  { who: dev, kind: 'Namespace', namespace: '', name: 'team-b', sees: false },
  { who: dev, kind: 'Secret', namespace: 'team-a', name: 's', sees: false },
  { who: stranger, kind: 'PersistentVolumeClaim', namespace: 'team-a', name: 'c', sees: false },
];

describe('audit rows a principal may read', () => {
  test.each(rows.map((r) => ({ ...r, label: `${r.who.role}${r.who.role === 'developer' ? ` of [${r.who.namespaces.join(',')}]` : ''} ${r.sees ? 'sees' : 'does not see'} ${r.kind} ${r.namespace}/${r.name}` })))(
    '$label',
    ({ who, kind, namespace, name, sees }) => {
      expect(inScope(auditScope(who, KINDS), { kind, namespace, name })).toBe(sees);
    },
  );

  test('a developer scope names only their namespaces', () => {
    expect(auditScope(dev, KINDS)).toEqual({
      all: false,
      kinds: ['StorageClass'],
      inNamespaces: [
        { kind: 'PersistentVolumeClaim', namespaces: ['team-a'] },
        { kind: 'Event', namespaces: ['team-a'] },
      ],
      namespaceNames: ['team-a'],
    });
  });
});
