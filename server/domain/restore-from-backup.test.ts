import { describe, expect, it } from 'vitest';
import { checkRestore, type BackupFacts } from './restore-from-backup';
import { btrfsProvisioner, hostPathProvisioner, loopProvisioner } from './well-known/provisioners';

const done: BackupFacts = { uid: 'u-1', phase: 'Completed', backupTargetName: 'nfs', format: 'files', sizeBytes: '1000' };

describe('checkRestore', () => {
  it.each([
    { name: 'a completed files backup into host-path', backup: done, p: hostPathProvisioner, req: 1000n, want: { ok: true, backupId: 'u-1', format: 'files', targetName: 'nfs' } },
    { name: 'a completed files backup into btrfs', backup: done, p: btrfsProvisioner, req: 2000n, want: { ok: true } },
    { name: 'an image backup into loop is refused: no class takes an image yet', backup: { ...done, format: 'image' as const }, p: loopProvisioner, req: 1000n, want: { ok: false, wait: false, message: expect.stringContaining('no provisioner offers yet') } },
    { name: 'a missing backup waits', backup: undefined, p: hostPathProvisioner, req: 1000n, want: { ok: false, wait: true } },
    { name: 'a backup in progress waits', backup: { ...done, phase: 'InProgress' }, p: hostPathProvisioner, req: 1000n, want: { ok: false, wait: true, message: expect.stringContaining('Completed') } },
    { name: 'a files backup into loop is refused', backup: done, p: loopProvisioner, req: 1000n, want: { ok: false, wait: false, message: expect.stringContaining('stowage.io/btrfs or stowage.io/host-path') } },
    { name: 'an image backup into host-path is refused', backup: { ...done, format: 'image' as const }, p: hostPathProvisioner, req: 1000n, want: { ok: false, wait: false } },
    { name: 'a claim smaller than the backup is refused', backup: done, p: hostPathProvisioner, req: 999n, want: { ok: false, wait: false, message: expect.stringContaining('less than the size 1000') } },
    { name: 'another provisioner is refused', backup: done, p: 'example.com/csi', req: 1000n, want: { ok: false, wait: false } },
  ])('$name', ({ backup, p, req, want }) => {
    expect(checkRestore('b1', backup, p, req)).toMatchObject(want);
  });
});
