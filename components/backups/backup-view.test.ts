import { describe, expect, it } from 'vitest';
import { backupOfClaim, backupRow, backupsOfClaim, dedupeRatio, deleteNote, preselectedTarget, restoreBlocker, restoreClaim, restoreClasses, restoreSizeProblem, targetPathProblem, targetRow } from './backup-view';
import type { BackupTarget, VolumeBackup } from './types';

const vb = (name: string, o: { claim?: string; snapshot?: string; phase?: string; progress?: number; imported?: boolean; deleting?: boolean; created?: string; error?: string; format?: 'files' | 'image'; ns?: string } = {}): VolumeBackup => ({
  apiVersion: 'stowage.io/v1',
  kind: 'VolumeBackup',
  metadata: { name, namespace: o.ns ?? 'ns', creationTimestamp: o.created ?? '2026-11-28T10:00:00Z', ...(o.deleting ? { deletionTimestamp: '2026-11-28T11:00:00Z' } : {}) },
  spec: { source: o.snapshot ? { volumeSnapshotName: o.snapshot } : { persistentVolumeClaimName: o.claim ?? 'data' } },
  status: {
    ...(o.phase ? { phase: o.phase } : {}),
    ...(o.progress !== undefined ? { progress: o.progress } : {}),
    ...(o.imported ? { imported: true } : {}),
    ...(o.error ? { error: { message: o.error } } : {}),
    ...(o.format ? { format: o.format } : {}),
  },
});

describe('backupRow', () => {
  const cases: { name: string; b: VolumeBackup; phase: string; progress?: number; source: string; error?: string }[] = [
    { name: 'no status yet is Pending', b: vb('a'), phase: 'Pending', source: 'data' },
    { name: 'InProgress shows its percent', b: vb('a', { phase: 'InProgress', progress: 42.7 }), phase: 'InProgress', progress: 42, source: 'data' },
    { name: 'InProgress without a percent shows 0', b: vb('a', { phase: 'InProgress' }), phase: 'InProgress', progress: 0, source: 'data' },
    { name: 'a percent over 100 is clamped', b: vb('a', { phase: 'InProgress', progress: 250 }), phase: 'InProgress', progress: 100, source: 'data' },
    { name: 'Completed has no progress bar', b: vb('a', { phase: 'Completed', progress: 100 }), phase: 'Completed', source: 'data' },
    { name: 'an unknown phase reads as Pending', b: vb('a', { phase: 'Exploded' }), phase: 'Pending', source: 'data' },
    { name: 'a deleted one is Terminating', b: vb('a', { phase: 'Completed', deleting: true }), phase: 'Terminating', source: 'data' },
    { name: 'a snapshot source is named as such', b: vb('a', { snapshot: 'snap-1' }), phase: 'Pending', source: 'snapshot snap-1' },
    { name: 'Failed carries its message', b: vb('a', { phase: 'Failed', error: 'target full' }), phase: 'Failed', source: 'data', error: 'target full' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = backupRow(c.b);
      expect(r.phase).toBe(c.phase);
      expect(r.progress).toBe(c.progress);
      expect(r.source).toBe(c.source);
      expect(r.error).toBe(c.error);
    });
  }
});

describe('backupsOfClaim', () => {
  it('keeps the claim\'s backups of its namespace, newest first', () => {
    const items = [vb('old', { created: '2026-11-01T00:00:00Z' }), vb('other', { claim: 'logs' }), vb('new', { created: '2026-11-28T00:00:00Z' }), vb('elsewhere', { ns: 'team-b' })];
    expect(backupsOfClaim(items, 'ns', 'data').map((r) => r.name)).toEqual(['new', 'old']);
  });
  it('counts a snapshot-sourced backup whose status names the claim', () => {
    const b = vb('via-snap', { snapshot: 'snap-1' });
    b.status = { ...b.status, sourceClaimName: 'data' };
    expect(backupsOfClaim([b], 'ns', 'data').map((r) => r.name)).toEqual(['via-snap']);
  });
});

describe('deleteNote', () => {
  it('an imported backup: only the object goes', () => expect(deleteNote({ imported: true })).toMatch(/only this object/));
  it('an own backup: its data leaves the target', () => expect(deleteNote({ imported: false, target: 'nfs' })).toMatch(/removes the backup's data from the target nfs/));
});

describe('restoreClasses', () => {
  const classes = [
    { metadata: { name: 'loop' }, provisioner: 'stowage.io/loop' },
    { metadata: { name: 'hp' }, provisioner: 'stowage.io/host-path' },
    { metadata: { name: 'btrfs' }, provisioner: 'stowage.io/btrfs' },
    { metadata: { name: 'local' }, provisioner: 'kubernetes.io/no-provisioner' },
  ];
  const cases: { name: string; format?: 'files' | 'image'; want: string[] }[] = [
    { name: 'files restores into btrfs and host-path', format: 'files', want: ['btrfs', 'hp'] },
    { name: 'an image restores into no class yet (not even loop)', format: 'image', want: [] },
    { name: 'no format: nothing', format: undefined, want: [] },
  ];
  for (const c of cases) it(c.name, () => expect(restoreClasses(c.format, classes).map((k) => k.metadata.name)).toEqual(c.want));
});

describe('restoreBlocker', () => {
  const cases: { name: string; b: VolumeBackup; ok: boolean }[] = [
    { name: 'Completed with a format may restore', b: vb('a', { phase: 'Completed', format: 'files' }), ok: true },
    { name: 'InProgress may not', b: vb('a', { phase: 'InProgress' }), ok: false },
    { name: 'Failed may not', b: vb('a', { phase: 'Failed' }), ok: false },
    { name: 'Completed without a format may not', b: vb('a', { phase: 'Completed' }), ok: false },
    { name: 'a deleted one may not', b: vb('a', { phase: 'Completed', format: 'files', deleting: true }), ok: false },
  ];
  for (const c of cases) it(c.name, () => expect(restoreBlocker(c.b) === undefined).toBe(c.ok));
});

describe('restoreSizeProblem', () => {
  const cases: { name: string; size: string; min?: string; ok: boolean }[] = [
    { name: 'equal to the backup is fine', size: '1Gi', min: '1073741824', ok: true },
    { name: 'larger is fine', size: '2Gi', min: '1073741824', ok: true },
    { name: 'smaller is refused', size: '1023Mi', min: '1073741824', ok: false },
    { name: 'empty is refused', size: '', min: '1073741824', ok: false },
    { name: 'not a size is refused', size: 'lots', ok: false },
    { name: 'zero is refused', size: '0', ok: false },
    { name: 'unknown backup size: any positive size', size: '1Mi', ok: true },
  ];
  for (const c of cases) it(c.name, () => expect(restoreSizeProblem(c.size, c.min) === undefined).toBe(c.ok));
  it('says the backup size in human units', () => expect(restoreSizeProblem('1023Mi', '1073741824')).toMatch(/^At least the backup's size \(1 GiB\)/));
});

describe('manifests', () => {
  it('a restore claim names the backup as its dataSourceRef', () => {
    const c = restoreClaim({ namespace: 'ns', claimName: 'back', backupName: 'b1', storageClassName: 'btrfs', size: '1Gi' });
    expect(c.spec.dataSourceRef).toEqual({ apiGroup: 'stowage.io', kind: 'VolumeBackup', name: 'b1' });
    expect(c.spec.resources.requests.storage).toBe('1Gi');
    expect(c.metadata).toEqual({ name: 'back', namespace: 'ns' });
  });
  it('a backup without a target leaves it to the default', () => expect(backupOfClaim('ns', 'data').spec).toEqual({ source: { persistentVolumeClaimName: 'data' } }));
  it('a backup with a target names it', () => expect(backupOfClaim('ns', 'data', 'nfs').spec.backupTargetName).toBe('nfs'));
  it('a generated name never ends in a dot or dash before the suffix', () => expect(backupOfClaim('ns', 'a.-').metadata.generateName).toBe('a-'));
});

describe('preselectedTarget', () => {
  const cases: { name: string; choices: { name: string; ready: boolean; default: boolean }[]; want?: string }[] = [
    { name: 'the ready default', choices: [{ name: 'a', ready: true, default: false }, { name: 'd', ready: true, default: true }], want: 'd' },
    { name: 'a not-ready default gives way to a ready one', choices: [{ name: 'd', ready: false, default: true }, { name: 'a', ready: true, default: false }], want: 'a' },
    { name: 'none ready: none', choices: [{ name: 'd', ready: false, default: true }], want: undefined },
    { name: 'no targets: none', choices: [], want: undefined },
  ];
  for (const c of cases) it(c.name, () => expect(preselectedTarget(c.choices)).toBe(c.want));
});

describe('dedupeRatio', () => {
  const cases: { name: string; logical?: string; stored?: string; want?: string }[] = [
    { name: 'two and a half times', logical: '250', stored: '100', want: '2.5×' },
    { name: 'no savings', logical: '100', stored: '100', want: '1.0×' },
    { name: 'nothing stored', logical: '0', stored: '0', want: undefined },
    { name: 'unknown', want: undefined },
  ];
  for (const c of cases) it(c.name, () => expect(dedupeRatio(c.logical, c.stored)).toBe(c.want));
});

describe('targetRow', () => {
  const t: BackupTarget = {
    apiVersion: 'stowage.io/v1',
    kind: 'BackupTarget',
    metadata: { name: 'nfs' },
    spec: { path: '/mnt/backups', default: true },
    status: {
      nodes: [
        { node: 'node-b', reachable: true, writable: false, reason: 'read-only file system' },
        { node: 'node-a', reachable: true, writable: true, freeBytes: '10', totalBytes: '20' },
        { node: 'node-c', reachable: false, writable: false, reason: 'no such directory' },
      ],
      backups: 3,
      storedBytes: '100',
      logicalBytes: '300',
      conditions: [{ type: 'Ready', status: 'False', reason: 'NodesFailing', message: 'node-c cannot reach it' }],
    },
  };
  it('says health per node, sorted by node', () => {
    expect(targetRow(t).nodes.map((n) => [n.node, n.health])).toEqual([
      ['node-a', 'ok'],
      ['node-b', 'read-only'],
      ['node-c', 'unreachable'],
    ]);
  });
  it('reads readiness, default and dedupe', () => {
    const r = targetRow(t);
    expect([r.ready, r.readyMessage, r.isDefault, r.dedupe]).toEqual(['NotReady', 'node-c cannot reach it', true, '3.0×']);
  });
  it('no status: Unknown, no nodes', () => {
    const r = targetRow({ ...t, status: undefined });
    expect([r.ready, r.nodes.length, r.dedupe]).toEqual(['Unknown', 0, undefined]);
  });
});

describe('targetPathProblem', () => {
  const cases: { name: string; path: string; ok: boolean }[] = [
    { name: 'absolute', path: '/mnt/backups', ok: true },
    { name: 'relative', path: 'backups', ok: false },
    { name: 'empty', path: ' ', ok: false },
  ];
  for (const c of cases) it(c.name, () => expect(targetPathProblem(c.path) === undefined).toBe(c.ok));
});
