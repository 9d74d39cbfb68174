// BackupTarget and VolumeBackup (stowage.io/v1) with kubectl: an admin makes the default
// target, a developer backs up a claim naming no target (the default is filled in) and gets
// it with its columns; the spec cannot change; a second default target is refused naming
// the first; a developer may not read targets (their paths are the admins').
import { describe, expect, test } from 'vitest';
import { findKubectl, kubectlSuite } from './harness';

const bin = findKubectl();
if (!bin) console.log('skipping backup kubectl tests: no kubectl on PATH');

const target = (name: string, dflt: boolean) => `apiVersion: stowage.io/v1
kind: BackupTarget
metadata:
  name: ${name}
spec:
  path: /mnt/${name}
  default: ${dflt}
`;
const backup = (name: string, claim: string) => `apiVersion: stowage.io/v1
kind: VolumeBackup
metadata:
  name: ${name}
spec:
  source:
    persistentVolumeClaimName: ${claim}
`;

describe.skipIf(!bin)('stowage.io backups with kubectl', () => {
  const { kubectl } = kubectlSuite(bin!);

  test('api-resources lists both kinds', async () => {
    const r = await kubectl(['api-resources', '--api-group', 'stowage.io']);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n').slice(1).map((l) => l.split(/\s+/))).toEqual([
      ['backuptargets', 'stowage.io/v1', 'false', 'BackupTarget'],
      ['volumebackups', 'vb', 'stowage.io/v1', 'true', 'VolumeBackup'],
    ]);
  });

  test('a backup naming no target while there is no default is refused', async () => {
    const r = await kubectl(['create', '-f', '-'], { user: 'dev', input: backup('early', 'data') });
    expect(r.stderr).toContain('spec.backupTargetName: Required value: no BackupTarget is the default: name one');
  });

  test('an admin makes the default target; a second default is refused naming it', async () => {
    const a = await kubectl(['apply', '-f', '-'], { input: target('nfs', true) });
    expect(a.stderr).toBe('');
    expect(a.stdout).toBe('backuptarget.stowage.io/nfs created\n');
    const b = await kubectl(['apply', '-f', '-'], { input: target('usb', true) });
    expect(b.stderr).toContain('spec.default: Invalid value: true: BackupTarget "nfs" is the default already: at most one target may be');
    const g = await kubectl(['get', 'backuptargets']);
    expect(g.stdout.trim().split('\n')[0].split(/\s{2,}/)).toEqual(['NAME', 'PATH', 'DEFAULT', 'READY', 'BACKUPS', 'AGE']);
    expect(g.stdout.trim().split('\n')[1].split(/\s+/).slice(0, 5)).toEqual(['nfs', '/mnt/nfs', 'true', 'Unknown', '0']);
  });

  test('a developer may not read targets', async () => {
    const r = await kubectl(['get', 'backuptargets'], { user: 'dev' });
    expect(r.stderr).toContain('forbidden');
  });

  test('a developer backs up a claim; the default target is filled in; get prints the columns; the spec is immutable', async () => {
    const c = await kubectl(['create', '-f', '-'], { user: 'dev', input: backup('b1', 'data') });
    expect(c.stderr).toBe('');
    expect(c.stdout).toBe('volumebackup.stowage.io/b1 created\n');
    const j = await kubectl(['get', 'vb', 'b1', '-o', 'jsonpath={.spec.backupTargetName}'], { user: 'dev' });
    expect(j.stdout).toBe('nfs');
    const g = await kubectl(['get', 'volumebackups'], { user: 'dev' });
    const [header, row] = g.stdout.trim().split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['NAME', 'SOURCE', 'TARGET', 'PHASE', 'PROGRESS', 'SIZE', 'NEW', 'AGE']);
    expect(row.split(/\s+/).slice(0, 4)).toEqual(['b1', 'claim/data', 'nfs', 'Pending']);
    const p = await kubectl(['patch', 'vb', 'b1', '--type=merge', '-p', '{"spec":{"source":{"persistentVolumeClaimName":"other"}}}'], { user: 'dev' });
    expect(p.stderr).toContain('spec: Invalid value: "object": field is immutable');
  });
});
