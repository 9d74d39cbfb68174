import { describe, expect, it } from 'vitest';
import { mayRestoreInto } from './backup-formats';

describe('mayRestoreInto', () => {
  const cases: [string | undefined, string | undefined, boolean][] = [
    ['files', 'stowage.io/btrfs', true],
    ['files', 'stowage.io/host-path', true],
    ['files', 'stowage.io/loop', false],
    ['image', 'stowage.io/loop', true],
    ['image', 'stowage.io/btrfs', false],
    ['image', 'stowage.io/host-path', false],
    ['files', 'kubernetes.io/no-provisioner', false],
    [undefined, 'stowage.io/btrfs', false],
    ['tar', 'stowage.io/btrfs', false],
    ['files', undefined, false],
  ];
  for (const [format, provisioner, want] of cases) it(`${format} into ${provisioner}: ${want}`, () => expect(mayRestoreInto(format, provisioner)).toBe(want));
});
