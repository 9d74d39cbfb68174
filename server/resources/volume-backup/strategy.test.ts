// VolumeBackup's and BackupTarget's rules: the field errors a user sees from kubectl apply,
// the default target, one default, and the columns kubectl prints.
import { describe, expect, test } from 'vitest';
import { admitBackupTarget, secondDefaultProblem } from '../backup-target/default-target';
import type { BackupTarget } from '../backup-target/schema';
import { backupTargetStrategy } from '../backup-target/strategy';
import { createErrors, created, lines, patched, updateErrors } from '../testing';
import type { KubeObject } from '../types';
import type { VolumeBackup } from './schema';
import { volumeBackupStrategy } from './strategy';

const base: KubeObject = {
  apiVersion: 'stowage.io/v1',
  kind: 'VolumeBackup',
  metadata: { name: 'b1', namespace: 'team-a' },
  spec: { source: { persistentVolumeClaimName: 'data' }, backupTargetName: 'nfs' },
};
const target: KubeObject = { apiVersion: 'stowage.io/v1', kind: 'BackupTarget', metadata: { name: 'nfs' }, spec: { path: '/mnt/backups', default: true } };

describe('VolumeBackup on create', () => {
  test.each<{ rule: string; obj: KubeObject; want: (string | RegExp)[] }>([
    { rule: 'a backup of a claim is valid', obj: base, want: [] },
    { rule: 'a backup of a snapshot is valid', obj: patched(base, { spec: { source: { persistentVolumeClaimName: null, volumeSnapshotName: 'snap-1' } } }), want: [] },
    { rule: 'spec is required', obj: { ...base, spec: undefined }, want: ['spec: Required value'] },
    { rule: 'source is required', obj: patched(base, { spec: { source: null } }), want: ['spec.source: Required value: a volumeSnapshotName or a persistentVolumeClaimName'] },
    { rule: 'both sources are refused', obj: patched(base, { spec: { source: { volumeSnapshotName: 's' } } }), want: ['spec.source: Invalid value: "object": exactly one of volumeSnapshotName and persistentVolumeClaimName must be set'] },
    { rule: 'no source field is refused', obj: patched(base, { spec: { source: { persistentVolumeClaimName: null } } }), want: ['spec.source: Invalid value: "object": exactly one of volumeSnapshotName and persistentVolumeClaimName must be set'] },
    { rule: 'a bad claim name is refused', obj: patched(base, { spec: { source: { persistentVolumeClaimName: 'Data_1' } } }), want: [/^spec\.source\.persistentVolumeClaimName: Invalid value: "Data_1"/] },
    { rule: 'a bad target name is refused', obj: patched(base, { spec: { backupTargetName: 'a.b' } }), want: [/^spec\.backupTargetName: Invalid value: "a\.b"/] },
    { rule: 'the name is a DNS label (a label value on its snapshot)', obj: patched(base, { metadata: { name: 'a.b' } }), want: [/^metadata\.name: Invalid value: "a\.b"/] },
    { rule: 'unknown fields are refused', obj: patched(base, { spec: { often: true } }), want: [/often/] },
  ])('$rule', ({ obj, want }) => {
    const got = lines(createErrors(volumeBackupStrategy, obj));
    expect(got).toHaveLength(want.length);
    want.forEach((w, i) => (typeof w === 'string' ? expect(got[i]).toBe(w) : expect(got[i]).toMatch(w)));
  });

  test("status is the controller's: a create drops it", () => {
    expect(created(volumeBackupStrategy, { ...base, status: { phase: 'Completed' } }).status).toBeUndefined();
  });
});

describe('VolumeBackup on update', () => {
  const prev = created(volumeBackupStrategy, base, { uid: 'u1', resourceVersion: '1', creationTimestamp: '2026-11-28T00:00:00Z' });
  test.each<{ rule: string; spec: unknown; want: string[] }>([
    { rule: 'the same spec is accepted', spec: base.spec, want: [] },
    { rule: 'a new target is refused as immutable', spec: { ...(base.spec as object), backupTargetName: 'other' }, want: ['spec: Invalid value: "object": field is immutable'] },
    { rule: 'a new source is refused as immutable', spec: { source: { volumeSnapshotName: 's' }, backupTargetName: 'nfs' }, want: ['spec: Invalid value: "object": field is immutable'] },
  ])('$rule', ({ spec, want }) => {
    expect(lines(updateErrors(volumeBackupStrategy, prev, { ...prev, spec }))).toEqual(want);
  });
});

describe('the default target', () => {
  const targets = [created(backupTargetStrategy, target, { creationTimestamp: '2026-11-28T00:00:00Z' }), created(backupTargetStrategy, patched(target, { metadata: { name: 'usb' }, spec: { default: null } }))] as BackupTarget[];
  test.each<{ rule: string; name: string | undefined; targets: BackupTarget[]; want: string[]; filled?: string }>([
    { rule: 'no target named: the default is filled in', name: undefined, targets, want: [], filled: 'nfs' },
    { rule: 'no target named and no default: refused', name: undefined, targets: targets.slice(1), want: ['spec.backupTargetName: Required value: no BackupTarget is the default: name one'] },
    { rule: 'a named target that exists is kept', name: 'usb', targets, want: [], filled: 'usb' },
    { rule: 'a named target that does not exist: refused', name: 'gone', targets, want: ['spec.backupTargetName: Invalid value: "gone": no BackupTarget of this name'] },
  ])('$rule', ({ name, targets, want, filled }) => {
    const b = patched(base, { spec: { backupTargetName: name ?? null } }) as VolumeBackup;
    if (name === undefined) delete b.spec!.backupTargetName;
    expect(lines(admitBackupTarget(b, targets))).toEqual(want);
    if (filled) expect(b.spec?.backupTargetName).toBe(filled);
  });

  test('a second default is refused, naming the current one; the default itself may be rewritten', () => {
    const second = patched(target, { metadata: { name: 'usb' } }) as BackupTarget;
    expect(lines(secondDefaultProblem(second, targets))).toEqual(['spec.default: Invalid value: true: BackupTarget "nfs" is the default already: at most one target may be']);
    expect(secondDefaultProblem(targets[0], targets)).toEqual([]);
  });
});

describe('BackupTarget on create', () => {
  test.each<{ rule: string; obj: KubeObject; want: (string | RegExp)[] }>([
    { rule: 'a target with an absolute path is valid', obj: target, want: [] },
    { rule: 'path is required', obj: patched(target, { spec: { path: null } }), want: ['spec.path: Required value: an absolute path every node mounts'] },
    { rule: 'a relative path is refused', obj: patched(target, { spec: { path: 'backups' } }), want: ['spec.path: Invalid value: "backups": must be an absolute path'] },
    { rule: 'a path with .. is refused', obj: patched(target, { spec: { path: '/mnt/../etc' } }), want: ['spec.path: Invalid value: "/mnt/../etc": must not contain \'.\' or \'..\' segments'] },
    { rule: 'spec is required', obj: { ...target, spec: undefined }, want: ['spec: Required value'] },
  ])('$rule', ({ obj, want }) => {
    const got = lines(createErrors(backupTargetStrategy, obj));
    expect(got).toHaveLength(want.length);
    want.forEach((w, i) => (typeof w === 'string' ? expect(got[i]).toBe(w) : expect(got[i]).toMatch(w)));
  });
});

describe('kubectl get columns', () => {
  const now = new Date('2026-11-28T01:00:00Z');
  test('a backup prints NAME, SOURCE, TARGET, PHASE, PROGRESS, SIZE, NEW, AGE', () => {
    const b = { ...base, metadata: { ...base.metadata, creationTimestamp: '2026-11-28T00:00:00Z' }, status: { phase: 'InProgress', backupTargetName: 'nfs', progress: 50, sizeBytes: '1073741824', newBytes: '10485760' } };
    expect(volumeBackupStrategy.table.columns.map((c) => c.name.toUpperCase())).toEqual(['NAME', 'SOURCE', 'TARGET', 'PHASE', 'PROGRESS', 'SIZE', 'NEW', 'AGE']);
    expect(volumeBackupStrategy.table.row(b as never, now)).toEqual(['b1', 'claim/data', 'nfs', 'InProgress', '50%', '1Gi', '10Mi', '60m']);
  });
  test('a target prints NAME, PATH, DEFAULT, READY, BACKUPS, AGE', () => {
    const t = { ...target, metadata: { name: 'nfs', creationTimestamp: '2026-11-28T00:00:00Z' }, status: { backups: 3, conditions: [{ type: 'Ready', status: 'True' }] } };
    expect(backupTargetStrategy.table.columns.map((c) => c.name.toUpperCase())).toEqual(['NAME', 'PATH', 'DEFAULT', 'READY', 'BACKUPS', 'AGE']);
    expect(backupTargetStrategy.table.row(t as never, now)).toEqual(['nfs', '/mnt/backups', 'true', 'True', 3, '60m']);
  });
});
