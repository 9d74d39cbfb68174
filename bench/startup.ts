// Start-up of a serving process, from the TypeScript sources through tsx (STOWAGE_FROM_SOURCES=1)
// and from the compiled build (dist/): time from spawning `stowage server` (and
// `stowage start`) until /healthz answers, then until the first page (/login) answers, and the
// process's resident memory then. Postgres is the bench's own (embedded, started once,
// migrated once), given as DATABASE_URL, so its start is not counted. Each mode gets one
// warm-up run first (tsx's transform cache, the OS's file cache), not counted; then the
// modes take turns. Nothing asserts.
//
//   npx tsx bench/startup.ts [--runs 3] [--roles server,start] [--modes tsx,compiled,compiled+maps]
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { dashboardBuildNeeded } from '../server/wiring/build';
import { freePort } from '../server/store/free-port';
import { ensureDatabase, startEmbeddedPostgres } from '../server/store/database';
import { migrate } from '../server/store/migrate';

const { values: args } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, roles: { type: 'string', default: 'server,start' }, modes: { type: 'string', default: 'tsx,compiled' } },
});
const RUNS = Number(args.runs);
const ROLES = args.roles.split(',').map((r) => r.trim());
const root = path.resolve(import.meta.dirname, '..');
const bin = path.join(root, 'bin', 'stowage.mjs');
const ALL_MODES: { name: string; env: Record<string, string> }[] = [
  { name: 'tsx', env: { STOWAGE_FROM_SOURCES: '1' } },
  { name: 'compiled', env: { STOWAGE_FROM_SOURCES: '' } },
  // Stack traces in TypeScript terms: Node then reads the source maps of every module, dependencies' too.
  { name: 'compiled+maps', env: { STOWAGE_FROM_SOURCES: '', NODE_OPTIONS: '--enable-source-maps' } },
];
const MODES = ALL_MODES.filter((m) => args.modes.split(',').includes(m.name));

interface Sample {
  healthMs: number;
  pageMs: number;
  rssMiB: number;
  peakMiB: number;
  /** Child processes of the server that are an esbuild binary (tsx's transform service). */
  esbuildChildren: number;
}

function memOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}

function esbuildChildrenOf(pid: number): number {
  let n = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid && /esbuild/.test(readlinkSync(`/proc/${d}/exe`))) n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

/** Polls `url` every 10 ms until it answers with a status below 500; the time since `t0`. */
async function firstAnswer(url: string, t0: number, child: ChildProcess, deadline: number): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}) before ${url} answered`);
    if (performance.now() > deadline) throw new Error(`${url} did not answer in time`);
    try {
      const r = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(5_000) });
      await r.arrayBuffer();
      if (r.status < 500) return performance.now() - t0;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function once(role: string, mode: { name: string; env: Record<string, string> }, databaseUrl: string): Promise<Sample> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'stowage-bench-startup-'));
  const [port, apiPort] = [await freePort(), await freePort()];
  const env = { ...process.env, ...mode.env, DATABASE_URL: databaseUrl, STOWAGE_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), STOWAGE_API_PORT: String(apiPort), STOWAGE_LOG_LEVEL: 'warn', NEXT_TELEMETRY_DISABLED: '1' };
  let output = '';
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin, role], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  try {
    const deadline = t0 + 120_000;
    const healthMs = await firstAnswer(`http://127.0.0.1:${port}/healthz`, t0, child, deadline);
    const pageMs = await firstAnswer(`http://127.0.0.1:${port}/login`, t0, child, deadline);
    return { healthMs, pageMs, ...memOf(child.pid!), esbuildChildren: esbuildChildrenOf(child.pid!) };
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${output}`, { cause: e });
  } finally {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs: number[], unit: string, digits = 0) => `${xs.map((x) => x.toFixed(digits)).join(' / ')} ${unit} (median ${median(xs).toFixed(digits)})`;

if (dashboardBuildNeeded(root)) {
  console.error('The dashboard is not built (or its sources changed): run `npm run build` first, so that no run includes a build.');
  process.exit(2);
}
// The compiled build must be current, or the compiled runs would include compiling it.
const build = spawn(process.execPath, [path.join(root, 'scripts', 'build-server.mjs')], { stdio: 'inherit' });
await new Promise((r) => build.once('exit', r));
if (!existsSync(path.join(root, 'dist', 'stowage.mjs'))) throw new Error('no compiled build');

const pgDir = mkdtempSync(path.join(os.tmpdir(), 'stowage-bench-startup-pg-'));
const pgServer = await startEmbeddedPostgres(pgDir);
try {
  const databaseUrl = await ensureDatabase(pgServer.baseUrl, 'stowage');
  await migrate(databaseUrl);
  console.log(`${os.cpus().length} cores, load average ${os.loadavg()[0].toFixed(1)}; Node.js ${process.version}; ${RUNS} runs each after one warm-up, modes taking turns; Postgres: embedded, started and migrated beforehand`);
  for (const role of ROLES) {
    // The modes take turns, run by run, so that a change in the machine's load meanwhile
    // (it is shared) weighs on both alike.
    for (const mode of MODES) await once(role, mode, databaseUrl);
    const samples = new Map<string, Sample[]>(MODES.map((m) => [m.name, []]));
    for (let i = 0; i < RUNS; i++) for (const mode of MODES) samples.get(mode.name)!.push(await once(role, mode, databaseUrl));
    for (const mode of MODES) {
      const s = samples.get(mode.name)!;
      console.log(`stowage ${role}, ${mode.name}:`);
      console.log(`  /healthz answers after ${fmt(s.map((x) => x.healthMs), 'ms')}`);
      console.log(`  first page after       ${fmt(s.map((x) => x.pageMs), 'ms')}`);
      console.log(`  RSS then               ${fmt(s.map((x) => x.rssMiB), 'MiB')}, peak ${fmt(s.map((x) => x.peakMiB), 'MiB')}`);
      console.log(`  esbuild child processes: ${s.map((x) => x.esbuildChildren).join(' / ')}`);
    }
  }
} finally {
  await pgServer.stop();
  rmSync(pgDir, { recursive: true, force: true });
}
