import { describe, expect, test } from 'vitest';
import { auditFilterOf, auditQueryOf, auditSearchOf, changeText, type AuditQuery } from './audit-query';

describe('audit filters in the URL', () => {
  test.each<[string, string, AuditQuery]>([
    ['nothing', '', {}],
    ['one filter', '?actor=dev', { actor: 'dev' }],
    ['blank values dropped', '?actor=&kind=%20', {}],
    ['unknown parameters ignored', '?evil=1&kind=PersistentVolumeClaim', { kind: 'PersistentVolumeClaim' }],
    ['every filter and the cursor', '?actor=user%3Adev&namespace=team-a&kind=PersistentVolumeClaim&name=data&action=delete&from=2026-01-01T00%3A00%3A00.000Z&to=2026-02-01T00%3A00%3A00.000Z&cursor=42', {
      actor: 'user:dev', namespace: 'team-a', kind: 'PersistentVolumeClaim', name: 'data', action: 'delete',
      from: '2026-01-01T00:00:00.000Z', to: '2026-02-01T00:00:00.000Z', cursor: '42',
    }],
  ])('%s', (_name, search, query) => {
    expect(auditQueryOf(new URLSearchParams(search))).toEqual(query);
    expect(auditQueryOf(new URLSearchParams(auditSearchOf(query)))).toEqual(query);
  });
});

test('heartbeats are left out unless the URL asks for them', () => {
  expect(auditFilterOf(auditQueryOf(new URLSearchParams('?kind=Node')))).toEqual({ kind: 'Node' });
  expect(auditFilterOf(auditQueryOf(new URLSearchParams('?kind=Node&heartbeats=1')))).toEqual({ kind: 'Node', heartbeats: true });
});

describe('changeText: what an audit row did', () => {
  test.each([
    { type: 'ADDED', action: 'create', want: 'created' },
    { type: 'MODIFIED', action: 'update', want: 'modified' },
    { type: 'MODIFIED', action: 'status', want: 'status updated' },
    { type: 'MODIFIED', action: 'delete', want: 'marked for deletion' },
    { type: 'DELETED', action: 'delete', want: 'removed' },
    { type: 'DELETED', action: 'update', want: 'removed' },
  ])('$type by $action: $want', ({ type, action, want }) => expect(changeText({ type, action })).toBe(want));
});
