import { describe, expect, it } from 'vitest';
import { chooseCleanupMethod } from './cleanup-method';

describe('chooseCleanupMethod', () => {
  it.each([
    { mode: 'Filesystem', cmd: ['dd-zero'], plan: { method: 'files' } },
    { mode: 'Filesystem', cmd: ['/usr/local/bin/x'], plan: { method: 'files' } },
    { mode: 'Block', cmd: [], plan: { method: 'fs-reset' } },
    { mode: 'Block', cmd: ['fs-reset'], plan: { method: 'fs-reset' } },
    { mode: 'Block', cmd: ['dd-zero'], plan: { method: 'dd-zero', passes: 1 } },
    { mode: 'Block', cmd: ['dd-zero', '3'], plan: { method: 'dd-zero', passes: 3 } },
    { mode: 'Block', cmd: ['blkdiscard'], plan: { method: 'blkdiscard' } },
    { mode: 'Block', cmd: ['shred', '2'], plan: { method: 'shred', passes: 2 } },
    { mode: 'Block', cmd: ['hdparm'], plan: { method: 'hdparm' } },
    { mode: 'Block', cmd: ['/scripts/quick_reset.sh'], plan: { method: 'fs-reset' } },
    { mode: 'Block', cmd: ['/scripts/dd_zero.sh', '2'], plan: { method: 'dd-zero', passes: 2 } },
    { mode: 'Block', cmd: ['/scripts/blkdiscard.sh'], plan: { method: 'blkdiscard' } },
    { mode: 'Block', cmd: ['/scripts/shred.sh'], plan: { method: 'shred', passes: 1 } },
    { mode: 'Block', cmd: ['/opt/wipe.sh', '--all'], plan: { method: 'custom', command: ['/opt/wipe.sh', '--all'] } },
  ] as const)('$mode $cmd -> $plan.method', ({ mode, cmd, plan }) => {
    expect(chooseCleanupMethod(mode, cmd)).toEqual({ ok: true, plan });
  });

  it.each([
    { cmd: ['zero'], message: 'unknown cleanup method "zero"' },
    { cmd: ['./wipe.sh'], message: 'unknown cleanup method' },
    { cmd: ['/opt/../bin/rm', '-rf'], message: '".."' },
    { cmd: ['dd-zero', '0'], message: 'passes must be 1..10' },
    { cmd: ['dd-zero', '11'], message: 'passes must be 1..10' },
    { cmd: ['shred', '1', '2'], message: 'at most one argument' },
    { cmd: ['fs-reset', 'xfs'], message: 'takes no arguments' },
    { cmd: ['hdparm', '--yes'], message: 'takes no arguments' },
  ])('Block $cmd is refused: $message', ({ cmd, message }) => {
    const r = chooseCleanupMethod('Block', cmd);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.message).toContain(message);
  });
});
