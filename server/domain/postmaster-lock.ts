// What to do with an embedded Postgres's postmaster.pid at start-up, as a pure decision.
// A Stowage killed with SIGKILL (power kept on, OOM killer, kill -9) leaves its Postgres
// running, orphaned; the next start must stop that postmaster itself, without a human. It
// must never stop the Postgres of a Stowage that still runs. The facts come from the store
// (store/embedded-postgres-lock.ts): the pid file, whether that pid is really a postmaster
// of THIS data dir, and whether the Stowage that started it (postgres.owner) still lives.

/** The first two lines of postmaster.pid: the postmaster's pid and its data directory. */
export interface PostmasterPid {
  pid: number;
  dataDir: string;
}

export function parsePostmasterPid(text: string): PostmasterPid | undefined {
  const [pidLine, dataDir] = text.split('\n');
  const pid = Number(pidLine);
  return Number.isInteger(pid) && pid > 0 && dataDir ? { pid, dataDir } : undefined;
}

/**
 * The pid of the pid file, looked at:
 *  gone          no such process (or a zombie): the postmaster is dead
 *  other         a live process, but not a postgres whose data dir is ours (the pid was reused)
 *  ours          a live postgres running in our data dir
 *  unverifiable  alive, and /proc cannot tell what it is (not Linux, no permission)
 */
export type PostmasterState = 'gone' | 'other' | 'ours' | 'unverifiable';

/**
 * The Stowage recorded in postgres.owner when it started this Postgres:
 *  self     this very process
 *  alive    another live process, the same one (same start time) that wrote the record
 *  dead     gone, or its pid now belongs to a later process
 *  unknown  no record (a Postgres started by hand, or by a Stowage before records existed)
 */
export type OwnerState = 'self' | 'alive' | 'dead' | 'unknown';

export interface PostmasterFacts {
  /** The data dir (its postgres/ folder), for messages. */
  pgDir: string;
  pidFile: PostmasterPid | 'absent' | 'unreadable';
  postmaster: PostmasterState;
  owner: OwnerState;
  ownerPid?: number;
}

export type LockDecision =
  | { action: 'start' }
  | { action: 'remove-stale'; why: string }
  | { action: 'stop-orphan'; pid: number }
  | { action: 'refuse'; message: string };

export function decidePostmasterLock(f: PostmasterFacts): LockDecision {
  if (f.pidFile === 'absent') return { action: 'start' };
  const owner = f.ownerPid ? ` (Stowage pid ${f.ownerPid})` : '';
  if (f.pidFile === 'unreadable') {
    // Nothing to check a pid against: only a dead owner's leftover may go. If a postmaster
    // still ran, Postgres's own shared-memory interlock would stop the new one.
    if (f.owner === 'dead') return { action: 'remove-stale', why: 'an unreadable pid file left by a Stowage that is gone' };
    return { action: 'refuse', message: `${f.pgDir}/postmaster.pid cannot be read and its owner${owner} may be starting it; remove the file if no Postgres runs there` };
  }
  const pid = f.pidFile.pid;
  switch (f.postmaster) {
    case 'gone':
      return { action: 'remove-stale', why: `postmaster pid ${pid} is no longer running` };
    case 'other':
      return { action: 'remove-stale', why: `pid ${pid} is now another process, not a postmaster of this data dir` };
    case 'unverifiable':
      return { action: 'refuse', message: `Postgres in ${f.pgDir} may be running (pid ${pid}) and cannot be checked; is another Stowage using this data dir?` };
    case 'ours':
      break;
  }
  switch (f.owner) {
    case 'dead':
      return { action: 'stop-orphan', pid };
    case 'self':
      return { action: 'refuse', message: `Postgres in ${f.pgDir} is already running (pid ${pid}), started by this process` };
    case 'alive':
      return { action: 'refuse', message: `Postgres in ${f.pgDir} is already running (pid ${pid}) for a Stowage that is still running${owner}; stop that Stowage first, or use another data dir` };
    case 'unknown':
      return { action: 'refuse', message: `Postgres in ${f.pgDir} is already running (pid ${pid}), not started by a Stowage that recorded itself; stop it (kill -INT ${pid}) and start again` };
  }
}
