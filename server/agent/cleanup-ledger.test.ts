import { describe, expect, it } from 'vitest';
import { CleanupLedger, LEDGER_FILE, stillRunning, type LedgerEntry } from './cleanup-ledger';
import { FakeAgentOs } from './os-fake';

const STATE = '/state';
const entry = (o: Partial<LedgerEntry> = {}): LedgerEntry => ({ pid: 500, startTime: '100', bootId: 'boot-1', command: 'dd', ...o });
const recorded = (os: FakeAgentOs) => JSON.parse(os.procs.files.get(`${STATE}/${LEDGER_FILE}`) ?? '{"processes":[]}').processes as LedgerEntry[];

/** A ledger file as a killed agent left it, listing these processes. */
function leftBehind(os: FakeAgentOs, entries: LedgerEntry[]): void {
  os.procs.files.set(`${STATE}/${LEDGER_FILE}`, JSON.stringify({ processes: entries }));
}

describe('stillRunning', () => {
  it.each([
    ['no process in the group', [], false],
    ['the leader, same start time', [{ pid: 500, startTime: '100' }], true],
    ['the pid, a later process (reused)', [{ pid: 500, startTime: '900' }], false],
    ['leader gone, a member it started', [{ pid: 501, startTime: '105' }], true],
    ['leader gone, a member older than it (not its group)', [{ pid: 501, startTime: '50' }], false],
  ])('%s', (_name, members, want) => {
    expect(stillRunning(entry(), members)).toBe(want);
  });
});

describe('CleanupLedger', () => {
  it('records a command while it runs and forgets it when it ends', async () => {
    const os = new FakeAgentOs();
    const ledger = new CleanupLedger(os, STATE);
    let seen: LedgerEntry[] = [];
    os.commands.set('dd', () => {
      seen = recorded(os);
      return 0;
    });
    await os.run(['dd', 'of=/dev/x'], { ledger });
    expect(seen).toEqual([expect.objectContaining({ command: 'dd of=/dev/x', bootId: 'boot-1' })]);
    expect(os.procs.table.has(seen[0].pid)).toBe(false);
    expect(recorded(os)).toEqual([]);
  });

  it('ends what a killed agent left running, and only that', async () => {
    const os = new FakeAgentOs();
    const orphan = os.procs.spawn();
    const child = os.procs.spawn({ pgid: orphan.pid }); // e.g. the dd a custom script started
    const reused = os.procs.spawn(); // a pid recorded once, now another process
    const log: number[] = [];
    leftBehind(os, [
      entry({ pid: orphan.pid, startTime: orphan.startTime }),
      entry({ pid: reused.pid, startTime: '1' }),
      entry({ pid: 4242, startTime: '1' }), // gone
      entry({ pid: orphan.pid, startTime: orphan.startTime, bootId: 'boot-0' }), // before a reboot
    ]);
    const reaped = await new CleanupLedger(os, STATE).reapLeftovers({ log: (_m, e) => log.push(e.pid) });
    expect(reaped.map((e) => e.pid)).toEqual([orphan.pid]);
    expect(log).toEqual([orphan.pid]);
    expect(os.procs.signals).toEqual([{ pgid: orphan.pid, signal: 'SIGTERM' }]);
    expect(os.procs.table.has(orphan.pid) || os.procs.table.has(child.pid)).toBe(false);
    expect(os.procs.table.has(reused.pid)).toBe(true);
    expect(recorded(os)).toEqual([]);
  });

  it('uses SIGKILL on a command that ignores SIGTERM', async () => {
    const os = new FakeAgentOs();
    const stubborn = os.procs.spawn({ ignores: ['SIGTERM'] });
    leftBehind(os, [entry({ pid: stubborn.pid, startTime: stubborn.startTime })]);
    await new CleanupLedger(os, STATE).reapLeftovers({ termMs: 100 });
    expect(os.procs.signals.map((s) => s.signal)).toEqual(['SIGTERM', 'SIGKILL']);
    expect(os.procs.table.has(stubborn.pid)).toBe(false);
  });

  it('refuses to go on while a leftover will not end', async () => {
    const os = new FakeAgentOs();
    const stuck = os.procs.spawn();
    os.signalGroup = () => true; // signals arrive, nothing ends (a process stuck in the kernel)
    leftBehind(os, [entry({ pid: stuck.pid, startTime: stuck.startTime })]);
    await expect(new CleanupLedger(os, STATE).reapLeftovers({ termMs: 50, killMs: 50 })).rejects.toThrow(/do not end.*not taking jobs/);
  });

  it('an unreadable or missing file holds nothing to reap', async () => {
    const os = new FakeAgentOs();
    expect(await new CleanupLedger(os, STATE).reapLeftovers()).toEqual([]);
    os.procs.files.set(`${STATE}/${LEDGER_FILE}`, 'not json');
    expect(await new CleanupLedger(os, STATE).reapLeftovers()).toEqual([]);
  });
});
