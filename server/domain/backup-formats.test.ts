import { describe, expect, it } from 'vitest';
import { backupFormat, mayRestoreInto, restoreNeed } from './backup-formats';

describe('mayRestoreInto', () => {
  const cases: [string | undefined, string | undefined, boolean][] = [
    ['files', 'stowage.io/btrfs', true],
    ['files', 'stowage.io/host-path', true],
    ['files', 'stowage.io/loop', false],
    ['image', 'stowage.io/loop', false],
    ['image', 'stowage.io/btrfs', false],
    ['image', 'stowage.io/host-path', false],
    ['files', 'kubernetes.io/no-provisioner', false],
    [undefined, 'stowage.io/btrfs', false],
    ['tar', 'stowage.io/btrfs', false],
    ['files', undefined, false],
  ];
  for (const [format, provisioner, want] of cases) it(`${format} into ${provisioner}: ${want}`, () => expect(mayRestoreInto(format, provisioner)).toBe(want));
});

describe('backupFormat', () => {
  it.each<[string | undefined, string | undefined]>([
    ['stowage.io/btrfs', 'files'],
    ['stowage.io/host-path', 'files'],
    ['stowage.io/loop', 'image'],
    ['example.com/csi', undefined],
    [undefined, undefined],
  ])('%s is read as %s', (p, want) => expect(backupFormat(p)).toBe(want));
});

describe('restoreNeed', () => {
  it('files name the two provisioners', () => expect(restoreNeed('files')).toBe('a class of stowage.io/btrfs or stowage.io/host-path'));
  it('an image says no provisioner offers it yet', () => expect(restoreNeed('image')).toContain('no provisioner offers yet'));
});
