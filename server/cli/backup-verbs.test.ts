import { describe, expect, it } from 'vitest';
import { isStowageError } from '../domain/errors';
import { backupListTable, parseSizeOption, restorePlan, targetsTable, type BackupLike } from './backup-verbs';

const GI = 1n << 30n;
const backup = (o: { phase?: string; format?: string; size?: string; cls?: string; deleting?: boolean } = {}): BackupLike => ({
  apiVersion: 'stowage.io/v1',
  kind: 'VolumeBackup',
  metadata: { name: 'b1', namespace: 'ns', creationTimestamp: '2026-11-28T10:00:00Z', ...(o.deleting ? { deletionTimestamp: '2026-11-28T11:00:00Z' } : {}) },
  spec: { source: { persistentVolumeClaimName: 'data' } },
  status: { phase: o.phase ?? 'Completed', format: o.format ?? 'files', sizeBytes: o.size ?? String(GI), storageClassName: o.cls },
});
const cls = (name: string, provisioner: string) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner });
const CLASSES = [cls('fast', 'stowage.io/btrfs'), cls('hp', 'stowage.io/host-path'), cls('loop', 'stowage.io/loop')];

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isStowageError(e)) return e.message;
    throw e;
  }
  return '';
}

describe('restorePlan', () => {
  const ok: { name: string; b: BackupLike; opts: { className?: string; size?: string }; classes?: typeof CLASSES; want: { className: string; storage: string } }[] = [
    { name: "the backup's own class and size by default", b: backup({ cls: 'hp' }), opts: {}, want: { className: 'hp', storage: String(GI) } },
    { name: 'the asked class when it fits', b: backup({ cls: 'hp' }), opts: { className: 'fast' }, want: { className: 'fast', storage: String(GI) } },
    { name: 'a larger asked size', b: backup(), opts: { className: 'fast', size: '2Gi' }, want: { className: 'fast', storage: '2Gi' } },
  ];
  for (const c of ok) it(c.name, () => expect(restorePlan(c.b, c.classes ?? CLASSES, c.opts)).toEqual(c.want));

  const refused: { name: string; b: BackupLike; opts: { className?: string; size?: string }; classes?: ReturnType<typeof cls>[]; says: RegExp }[] = [
    { name: 'an InProgress backup', b: backup({ phase: 'InProgress' }), opts: {}, says: /is InProgress; only a Completed backup/ },
    { name: 'a backup being deleted', b: backup({ deleting: true }), opts: {}, says: /being deleted/ },
    { name: 'a class of the wrong provisioner', b: backup(), opts: { className: 'loop' }, says: /class loop \(stowage.io\/loop\) cannot take a files backup/ },
    { name: 'an unknown class', b: backup(), opts: { className: 'nope' }, says: /"nope" not found/ },
    { name: 'a smaller size', b: backup(), opts: { className: 'fast', size: '1023Mi' }, says: /smaller than the backup/ },
    { name: 'a size that is not one', b: backup(), opts: { className: 'fast', size: 'big' }, says: /positive quantity/ },
    { name: 'several fitting classes and none asked', b: backup(), opts: {}, says: /choose one with --class/ },
    { name: 'no fitting class at all', b: backup({ format: 'image' }), opts: {}, classes: [cls('fast', 'stowage.io/btrfs')], says: /no storage class can take a image backup/ },
  ];
  for (const c of refused) it(`refuses ${c.name}`, () => expect(refusal(() => restorePlan(c.b, c.classes ?? CLASSES, c.opts))).toMatch(c.says));
});

describe('parseSizeOption', () => {
  const cases: [string, bigint | undefined][] = [
    ['10Gi', 10n * GI],
    [' 1500 ', 1500n],
    ['0', undefined],
    ['-1Gi', undefined],
    ['lots', undefined],
  ];
  for (const [input, want] of cases) {
    it(`"${input}"`, () => {
      if (want === undefined) expect(refusal(() => parseSizeOption(input))).toMatch(/--size must be a positive quantity/);
      else expect(parseSizeOption(input)).toBe(want);
    });
  }
});

describe('tables', () => {
  const now = new Date('2026-11-28T12:00:00Z');
  it('lists backups with kubectl-like columns, the namespace when across namespaces', () => {
    const running: BackupLike = { ...backup(), metadata: { ...backup().metadata, name: 'b2' }, status: { phase: 'InProgress', progress: 45.9 } };
    const imported: BackupLike = { ...backup(), metadata: { ...backup().metadata, name: 'b0' }, status: { ...backup().status, imported: true } };
    const out = backupListTable([running, backup(), imported], now, true).split('\n');
    expect(out[0].split(/\s{3,}/)).toEqual(['NAMESPACE', 'NAME', 'SOURCE', 'TARGET', 'PHASE', 'PROGRESS', 'SIZE', 'NEW', 'AGE']);
    expect(out[1]).toMatch(/^ns\s+b0\s+data\s+<default>\s+Completed \(imported\)\s+100%\s+1 GiB/);
    expect(out[3]).toMatch(/b2\s+data\s+<default>\s+InProgress\s+45%/);
  });
  it('says when there are none', () => expect(backupListTable([], now, false)).toBe('No volume backups.'));
  it('lists targets with health per node', () => {
    const t = {
      apiVersion: 'stowage.io/v1',
      kind: 'BackupTarget',
      metadata: { name: 'nfs' },
      spec: { path: '/mnt/backups', default: true },
      status: { nodes: [{ node: 'a', reachable: true, writable: true, freeBytes: String(GI) }, { node: 'b', reachable: false }], backups: 2, conditions: [{ type: 'Ready', status: 'False' }] },
    };
    const out = targetsTable([t]).split('\n');
    expect(out[1]).toMatch(/^nfs\s+\/mnt\/backups\s+true\s+False\s+2\s+-\s+-\s+a:ok\(1 GiB free\),b:unreachable$/);
  });
});
