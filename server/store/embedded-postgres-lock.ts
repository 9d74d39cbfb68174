// Start-up of the embedded Postgres after a crash. A `stowage start` killed with SIGKILL
// leaves its postmaster running (its parent becomes init). Before starting Postgres we
// gather the facts about postmaster.pid and decide with domain/postmaster-lock.ts:
//  - which Stowage started the Postgres of this data dir: `postgres.owner` in the data dir,
//    written before Postgres starts (pid and start time: a later process given the same pid
//    does not count as the owner);
//  - whether the pid in postmaster.pid is a postgres whose working directory is this data
//    dir (a postmaster chdirs into its data dir) according to /proc.
// An orphan (ours, owner dead) is stopped with SIGINT, Postgres's fast shutdown (clients
// are disconnected, a checkpoint is written), escalating to SIGQUIT if it does not exit.
import { existsSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { decidePostmasterLock, parsePostmasterPid, type OwnerState, type PostmasterFacts, type PostmasterState } from '../domain/postmaster-lock';
import { isLive, parseProcStat } from '../domain/process-stat';

const OWNER_FILE = 'postgres.owner';
/** How long a fast shutdown may take before it is made an immediate one. */
const FAST_SHUTDOWN_MS = 30_000;
const IMMEDIATE_SHUTDOWN_MS = 10_000;

interface OwnerRecord {
  pid: number;
  startTime?: string;
}

/** /proc/<pid>/stat parsed; undefined when there is no such process or no /proc. */
function procStat(pid: number) {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

function signalAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Alive, and not a zombie when /proc can say so. */
function running(pid: number): boolean {
  if (existsSync('/proc/self/stat')) return isLive(procStat(pid));
  return signalAlive(pid);
}

function postmasterState(pid: number, pgDir: string): PostmasterState {
  if (!running(pid)) return 'gone';
  try {
    const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    const cwd = readlinkSync(`/proc/${pid}/cwd`);
    return path.basename(argv0) === 'postgres' && cwd === realpathSync(pgDir) ? 'ours' : 'other';
  } catch {
    return 'unverifiable';
  }
}

function readOwner(dir: string): OwnerRecord | undefined {
  try {
    const v = JSON.parse(readFileSync(path.join(dir, OWNER_FILE), 'utf8')) as Partial<OwnerRecord>;
    return typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 ? { pid: v.pid, startTime: typeof v.startTime === 'string' ? v.startTime : undefined } : undefined;
  } catch {
    return undefined;
  }
}

function ownerState(owner: OwnerRecord | undefined): OwnerState {
  if (!owner) return 'unknown';
  if (owner.pid === process.pid) return 'self';
  if (!running(owner.pid)) return 'dead';
  // Without a recorded start time the pid alone has to do.
  if (!owner.startTime) return 'alive';
  return procStat(owner.pid)?.startTime === owner.startTime ? 'alive' : 'dead';
}

function gather(dir: string, pgDir: string): PostmasterFacts {
  const owner = readOwner(dir);
  const pidPath = path.join(pgDir, 'postmaster.pid');
  const base = { pgDir, owner: ownerState(owner), ...(owner ? { ownerPid: owner.pid } : {}) };
  if (!existsSync(pidPath)) return { ...base, pidFile: 'absent', postmaster: 'gone' };
  const pidFile = parsePostmasterPid(readFileSync(pidPath, 'utf8'));
  if (!pidFile) return { ...base, pidFile: 'unreadable', postmaster: 'gone' };
  return { ...base, pidFile, postmaster: postmasterState(pidFile.pid, pgDir) };
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (running(pid)) {
    if (Date.now() > deadline) return false;
    await delay(50);
  }
  return true;
}

/** Stops an orphaned postmaster: fast shutdown, then immediate; throws if it will not go. */
async function stopOrphan(pid: number, pgDir: string, log: (m: string) => void): Promise<void> {
  log(`Postgres in ${pgDir} (pid ${pid}) was left running by a Stowage that is gone; stopping it`);
  process.kill(pid, 'SIGINT');
  if (await waitGone(pid, FAST_SHUTDOWN_MS)) return;
  log(`Postgres pid ${pid} did not stop within ${FAST_SHUTDOWN_MS / 1000} s; immediate shutdown`);
  process.kill(pid, 'SIGQUIT');
  if (await waitGone(pid, IMMEDIATE_SHUTDOWN_MS)) return;
  throw new Error(`Postgres in ${pgDir} (pid ${pid}) does not stop; stop it by hand`);
}

/**
 * Makes the data dir ready for a new postmaster, or throws why not: stops an orphan of a
 * dead Stowage, removes a stale pid file, refuses while a live Stowage uses the dir.
 */
export async function clearPostmasterLock(dir: string, pgDir: string, log: (m: string) => void): Promise<void> {
  // Each step changes the facts (an orphan stopped leaves no pid file): look again after it.
  for (let step = 0; step < 4; step++) {
    const d = decidePostmasterLock(gather(dir, pgDir));
    switch (d.action) {
      case 'start':
        return;
      case 'refuse':
        throw new Error(`${d.message}.`);
      case 'remove-stale':
        log(`removing a stale ${path.join(pgDir, 'postmaster.pid')}: ${d.why}`);
        rmSync(path.join(pgDir, 'postmaster.pid'), { force: true });
        break;
      case 'stop-orphan':
        await stopOrphan(d.pid, pgDir, log);
        break;
    }
  }
  throw new Error(`Postgres in ${pgDir} keeps changing while Stowage starts; is another Stowage starting on this data dir?`);
}

/** Records this process as the owner of the data dir's Postgres (before starting it). */
export function writePostgresOwner(dir: string): void {
  const file = path.join(dir, OWNER_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ pid: process.pid, startTime: procStat(process.pid)?.startTime }), { mode: 0o600 });
  renameSync(tmp, file);
}

/** Removes the owner record if this process wrote it (after Postgres stopped). */
export function removePostgresOwner(dir: string): void {
  if (readOwner(dir)?.pid === process.pid) rmSync(path.join(dir, OWNER_FILE), { force: true });
}
