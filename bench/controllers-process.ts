// The controller process of the benches (bench/binder-controllers.ts) as seen from the
// driver: start it, ask it for its figures over IPC, wait until its binder is idle, stop it.
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface Stats {
  rss: number;
  maxRss: number;
  /** User + system CPU of the controller process so far. */
  cpuMs: number;
  depth: number;
  inFlight: number;
  reconcile: { sum: number; count: number };
  /** Time spent in garbage collection so far. */
  gcMs: number;
}

export class Controllers {
  private readonly failures = new Set<(e: Error) => void>();

  private constructor(readonly child: ChildProcess) {
    child.once('exit', (code) => {
      for (const fail of this.failures) fail(new Error(`controller process exited (${code})`));
    });
  }

  /** `elect`: with leader election, as when several controller processes run. */
  static async start(url: string, concurrency: number, elect = false): Promise<Controllers> {
    const file = path.join(path.dirname(new URL(import.meta.url).pathname), 'binder-controllers.ts');
    const child = fork(file, [url, String(concurrency), ...(elect ? ['elect'] : [])], { execArgv: benchExecArgv(), stdio: 'inherit' });
    const c = new Controllers(child);
    await c.next('ready');
    return c;
  }

  private next<T>(type: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const onMsg = (m: any) => {
        if (m?.type !== type) return;
        this.child.off('message', onMsg);
        this.failures.delete(reject);
        resolve(m as T);
      };
      this.failures.add(reject);
      this.child.on('message', onMsg);
    });
  }

  async ask<T>(type: string, reply = type): Promise<T> {
    const p = this.next<T>(reply);
    this.child.send({ type });
    return p;
  }

  stats = () => this.ask<Stats>('stats');

  /** With STOWAGE_BENCH_PHASE_PROF=DIR: a CPU profile of what runs until `profileStop` (else nothing). */
  async profileStart(): Promise<void> {
    if (process.env.STOWAGE_BENCH_PHASE_PROF) await this.ask('profileStart');
  }

  /** The profile's file, if one was started. */
  async profileStop(): Promise<string | undefined> {
    if (!process.env.STOWAGE_BENCH_PHASE_PROF) return undefined;
    return (await this.ask<{ file: string }>('profileStop')).file;
  }

  /** Waits until the binder has had nothing queued or running for five looks in a row. */
  async idle(): Promise<void> {
    for (let quiet = 0; quiet < 5; ) {
      const s = await this.stats();
      quiet = s.depth === 0 && s.inFlight === 0 ? quiet + 1 : 0;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async stop(): Promise<void> {
    await this.ask('stop', 'stopped').catch(() => {});
  }
}


/** Node flags for a bench child: tsx, and with STOWAGE_BENCH_CPU_PROF=DIR a V8 CPU profile written there. */
export function benchExecArgv(): string[] {
  const prof = process.env.STOWAGE_BENCH_CPU_PROF;
  return ['--import', 'tsx', ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [])];
}
