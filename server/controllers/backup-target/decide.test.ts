// The BackupTarget controller's decisions, one row per case.
import { describe, expect, test } from 'vitest';
import type { BackupSummary, TargetReport } from '../../contracts/data-jobs';
import type { BackupTarget } from '../../resources/backup-target/schema';
import { importsOf, targetStatus, type KnownBackup, type NodeReport } from './decide';

const target: BackupTarget = { apiVersion: 'stowage.io/v1', kind: 'BackupTarget', metadata: { name: 'nfs' }, spec: { path: '/mnt/backups' } };
const summary = (backupId: string, installation: string, namespace = 'team-a', name = 'nightly'): BackupSummary => ({
  backupId,
  origin: { namespace, claimName: 'data', volumeBackupName: name, sizeBytes: '1024', installation },
  format: 'files',
  totalBytes: '1024',
  createdAt: '2026-11-28T10:00:00Z',
  completedAt: '2026-11-28T10:05:00Z',
});
const report = (node: string, r: Partial<TargetReport>, at = '2026-11-28T15:00:00Z'): NodeReport => ({
  node,
  at: new Date(at),
  report: { name: 'nfs', path: '/mnt/backups', reachable: true, writable: true, backups: [], ...r },
});
const NOW = new Date('2026-11-28T15:01:00Z');

describe('targetStatus', () => {
  test.each<{ rule: string; reports: NodeReport[]; ready: string; nodes: string[]; backups: number }>([
    { rule: 'no reports: not Ready, no nodes', reports: [], ready: 'False', nodes: [], backups: 0 },
    { rule: 'one node reachable and writable: Ready', reports: [report('a', { backups: [summary('1', 'x')] })], ready: 'True', nodes: ['a'], backups: 1 },
    { rule: 'reachable but not writable: not Ready', reports: [report('a', { writable: false, reason: 'read-only mount' })], ready: 'False', nodes: ['a'], backups: 0 },
    { rule: 'one node of two reaching it: Ready', reports: [report('b', { reachable: false, writable: false, reason: 'ENOENT' }), report('a', {})], ready: 'True', nodes: ['a', 'b'], backups: 0 },
    { rule: 'a report on the old path is ignored', reports: [report('a', { path: '/old' })], ready: 'False', nodes: [], backups: 0 },
    { rule: "another target's report is ignored", reports: [report('a', { name: 'usb' })], ready: 'False', nodes: [], backups: 0 },
  ])('$rule', ({ reports, ready, nodes, backups }) => {
    const s = targetStatus(target, reports, NOW);
    expect(s.conditions?.[0]).toMatchObject({ type: 'Ready', status: ready });
    expect(s.nodes?.map((n) => n.node)).toEqual(nodes);
    expect(s.backups).toBe(backups);
  });

  test('a node entry carries its bytes, reason and time; the newest listing gives the totals', () => {
    const s = targetStatus(target, [report('a', { freeBytes: '10', totalBytes: '20', storedBytes: '5', logicalBytes: '9' }), report('b', { reachable: false, writable: false, reason: 'stale NFS handle' }, '2026-11-28T15:00:30Z')], NOW);
    expect(s.nodes).toEqual([
      { node: 'a', reachable: true, writable: true, freeBytes: '10', totalBytes: '20', reason: '', checkedAt: '2026-11-28T15:00:00Z' },
      { node: 'b', reachable: false, writable: false, reason: 'stale NFS handle', checkedAt: '2026-11-28T15:00:30Z' },
    ]);
    expect(s).toMatchObject({ storedBytes: '5', logicalBytes: '9' });
  });
});

describe('importsOf', () => {
  const known: KnownBackup[] = [
    { name: 'mine', namespace: 'team-a', uid: 'own-1' },
    { name: 'nightly', namespace: 'team-a', uid: 'u-9', importedId: 'imp-1' },
  ];
  test.each<{ rule: string; backups: BackupSummary[]; want: string[]; skipped?: string[] }>([
    { rule: 'a backup of this installation is not imported', backups: [summary('x1', 'here')], want: [] },
    { rule: 'a backup whose id is a uid here is not imported', backups: [summary('own-1', 'there')], want: [] },
    { rule: 'a backup imported already is not imported again', backups: [summary('imp-1', 'there')], want: [] },
    { rule: "another installation's backup is imported under its name", backups: [summary('n1', 'there', 'team-a', 'weekly')], want: ['team-a/weekly'] },
    { rule: 'a taken name gets a suffix', backups: [summary('n2', 'there', 'team-a', 'nightly')], want: [/^team-a\/nightly-[a-z0-9]{5}$/ as unknown as string] },
    { rule: 'a namespace that does not exist here is skipped', backups: [summary('n3', 'there', 'gone')], want: [], skipped: ['n3'] },
  ])('$rule', ({ backups, want, skipped = [] }) => {
    const got = importsOf(target, [report('a', { backups })], known, 'here', new Set(['team-a']));
    const names = got.imports.map((p) => `${p.namespace}/${p.name}`);
    expect(names).toHaveLength(want.length);
    want.forEach((w, i) => (typeof w === 'string' ? expect(names[i]).toBe(w) : expect(names[i]).toMatch(w)));
    expect(got.skipped.map((s) => s.backupId)).toEqual(skipped);
  });
});
