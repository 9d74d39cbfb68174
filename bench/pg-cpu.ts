// CPU time Postgres has used so far, for "where does the time go" figures: the
// postmaster's own and that of the backends it has reaped (cutime/cstime), plus the
// backends still running. Linux only (/proc); undefined elsewhere.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const TICK_MS = 10; // USER_HZ is 100 on Linux

function statOf(pid: string): string[] | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) in parentheses.
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Milliseconds of CPU used by the Postgres whose data directory is `dataDir`. */
export function postgresCpuMs(dataDir: string): number | undefined {
  let postmaster: string;
  try {
    postmaster = readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0].trim();
  } catch {
    return undefined;
  }
  const own = statOf(postmaster);
  if (!own) return undefined;
  // stat fields (after pid and comm): state=0 ppid=1 ... utime=11 stime=12 cutime=13 cstime=14
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || pid === postmaster) continue;
    const f = statOf(pid);
    if (f && f[1] === postmaster) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks * TICK_MS;
}

/**
 * Milliseconds of CPU used so far by the process `pid` and every process under it, living
 * (utime + stime) or reaped (cutime + cstime): a Stowage and its API workers, a worker that
 * died and was started again included. Linux only; undefined when `pid` is gone.
 */
export function processTreeCpuMs(pid: number): number | undefined {
  const parents = new Map<string, string>();
  const stats = new Map<string, string[]>();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    const f = statOf(p);
    if (!f) continue;
    parents.set(p, f[1]);
    stats.set(p, f);
  }
  if (!stats.has(String(pid))) return undefined;
  const under = (p: string): boolean => {
    for (let at: string | undefined = p, hops = 0; at && hops < 64; at = parents.get(at), hops++) if (at === String(pid)) return true;
    return false;
  };
  let ticks = 0;
  for (const [p, f] of stats) if (under(p)) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  return ticks * TICK_MS;
}
