// What the tests that run a real `stowage start` share: finding the embedded Postgres's
// processes and the mounts under a data dir, killing what a failed test left, and waiting
// for a condition with a deadline.
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';

/** Processes whose working directory is `pgDir` (an embedded postmaster and its children). */
export function processesIn(pgDir: string): number[] {
  const want = existsSync(pgDir) ? realpathSync(pgDir) : pgDir;
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) === want) found.push(Number(pid));
    } catch {
      // gone, or not ours to look at
    }
  }
  return found;
}

/** Mount points under `dir`, from this machine's mount table. */
export function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter((m): m is string => !!m && m.startsWith(`${dir}/`));
}

/** SIGKILL to `pid` (a negative one: its process group), whether or not it still runs. */
export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Resolves once `ok` holds; throws after `ms` with `log()` (the process's output) in the message. */
export async function waitFor(what: string, ok: () => boolean | Promise<boolean>, ms: number, log: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
