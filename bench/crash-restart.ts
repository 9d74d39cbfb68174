// `npm run bench -- crash-restart`: `stowage start` (embedded Postgres, dashboard, API,
// controllers, agent) is killed with SIGKILL while serving, and started again at once, as a
// supervisor would. Figure: kill → /readyz answers 200 again, with no human action
// (the orphaned embedded Postgres is recognised and stopped by the new start).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../server/store/free-port';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);

function start(env: Record<string, string>, log: string[]): ChildProcess {
  const child = spawn(process.execPath, [path.join(root, 'bin', 'stowage.mjs'), 'start'], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d) => log.push(String(d)));
  child.stderr?.on('data', (d) => log.push(String(d)));
  return child;
}

async function readyAfter(url: string, t0: number, child: ChildProcess, log: string[], timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`stowage start exited (${child.exitCode}): ${log.join('').split('\n').slice(-5).join(' | ')}`);
    if (performance.now() > deadline) throw new Error(`${url} not ready within ${timeoutMs / 1000} s`);
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await r.arrayBuffer();
      if (r.status === 200) return performance.now() - t0;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-bench-crash-'));
  const port = await freePort();
  const env = { STOWAGE_DATA_DIR: dir, PORT: String(port), STOWAGE_API_PORT: String(await freePort()), STOWAGE_NODE_NAME: 'bench-crash', STOWAGE_LOG_LEVEL: 'warn' };
  const url = `http://127.0.0.1:${port}/readyz`;
  let log: string[] = [];
  let child = start(env, log);
  try {
    const first = await readyAfter(url, performance.now(), child, log, 600_000);
    console.log(`first start (fresh data dir): ready after ${(first / 1000).toFixed(1)} s`);
    const times: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const t0 = performance.now();
      log = [];
      child = start(env, log);
      const ms = await readyAfter(url, t0, child, log, 120_000);
      times.push(ms);
      const recovered = /left running by a Stowage that is gone/.test(log.join(''));
      console.log(`kill -9 #${i + 1} → ready again after ${(ms / 1000).toFixed(1)} s${recovered ? ' (orphaned Postgres stopped by the new start)' : ''}`);
    }
    times.sort((a, b) => a - b);
    console.log(`restart after kill -9 of stowage start: median ${(times[Math.floor(times.length / 2)] / 1000).toFixed(1)} s, worst ${(times[times.length - 1] / 1000).toFixed(1)} s (goal ≤ 30 s, no human action)`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    // Whatever happened, no postmaster of this bench may outlive it.
    try {
      const pid = Number(readFileSync(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid) process.kill(pid, 'SIGINT');
    } catch {
      // stopped already
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
