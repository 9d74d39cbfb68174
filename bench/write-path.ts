// Write-path benchmark (figures printed, nothing asserted):
//   npx tsx bench/write-path.ts [--seconds 15] [--clients 16] [--watchers 5]
//     [--api-processes 1] [--controller-processes 0] [--burst 10000] [--rate 0]
//     [--api-workers N]
// With --api-workers N the system under test is a real `stowage start` (compiled, the
// dashboard's pages off) with N API worker processes (docs/perf/cores.md): its controllers
// and agent run through every phase, as `npm start` runs them, and the CPU figures count
// every process of it (read from /proc); with STOWAGE_BENCH_CPU_PROF=DIR each of them writes
// a CPU profile there when it stops (bench/profile-summary.ts prints the top functions).
// STOWAGE_BENCH_PG_STATEMENTS=1 prints Postgres's top statements of the creates phase.
// With --api-processes N > 1 the API servers run as N processes of their own on the one
// database (clients and watches spread over them round robin), and --controller-processes
// M runs M controller processes with leader election beside them, as a deployment would.
// 1. the raw single-row transaction rate of the same Postgres (pgbench -N, server/store/raw-tps.ts);
// 2. PersistentVolume creates through the HTTPS REST API from --clients concurrent clients
//    for --seconds: creates/s and the ratio to pgbench's tps (--rate N paces them to N
//    creates/s in all, to see watch delivery below the machine's saturation);
// 3. during (2), --watchers HTTPS watches of the collection (in a worker thread): the delay
//    from the create's response reaching its client to the event reaching each watcher
//    (an event that arrives before the response counts as 0), and whether every watcher
//    saw every create exactly once in resourceVersion order;
// 4. a burst of --burst volumes and as many claims (default 10,000 + 10,000; 0 skips it)
//    created through the REST API by the same clients as fast as it takes them, volume and
//    claim in turn, with the controllers running (a process of their own unless
//    --controller-processes runs them): each claim's time from its create's response to
//    a claim watch (HTTPS) showing it Bound (p50/p99), and binds/s from the first create
//    to the last Bound, with the ratio to pgbench's tps.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createAppContext } from '../server/wiring/context';
import { startApiServer } from '../server/kube/api-server';
import { ensureServingPki, servingNames } from '../server/kube/pki';
import { ensureDatabase, startEmbeddedPostgres } from '../server/store/database';
import { migrate } from '../server/store/migrate';
import { benchExecArgv, Controllers } from './controllers-process';
import { postgresCpuMs } from './pg-cpu';
import { rawTransactionRate } from '../server/store/raw-tps';
import { STATEMENT_STATS_SETTINGS, StatementStats } from '../server/store/bench-diagnostics';
import { httpsRequest } from './https-request';
import { startWatchers } from './watchers';
import { watchClaimsBound } from './claim-watch';
import { startStowage, type RunningStowage } from './stowage-start';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '15' },
    clients: { type: 'string', default: '16' },
    watchers: { type: 'string', default: '5' },
    'api-processes': { type: 'string', default: '1' },
    'controller-processes': { type: 'string', default: '0' },
    burst: { type: 'string', default: '10000' },
    rate: { type: 'string', default: '0' },
    'api-workers': { type: 'string' },
  },
});
const BURST = Math.max(0, Number(args.burst));
/** Creates per second offered by all clients together (0: as fast as they are answered). */
const RATE = Math.max(0, Number(args.rate));
const API_PROCESSES = Math.max(1, Number(args['api-processes']));
const CONTROLLER_PROCESSES = Math.max(0, Number(args['controller-processes']));
/** A real `stowage start` with this many API workers (undefined: the API and controllers as the bench runs them). */
const API_WORKERS = args['api-workers'] === undefined ? undefined : Math.max(0, Number(args['api-workers']));
const here = path.dirname(new URL(import.meta.url).pathname);

/** Forks a bench child and waits for its `ready` message. */
function child(file: string, argv: string[]): Promise<{ proc: ChildProcess; url?: string }> {
  const proc = fork(path.join(here, file), argv, { execArgv: benchExecArgv(), stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`${file} exited (${code})`)));
    proc.on('message', (m: { type?: string; url?: string }) => {
      if (m?.type === 'ready') resolve({ proc, url: m.url });
    });
  });
}

function childCpuMs(proc: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const on = (m: { type?: string; ms?: number }) => {
      if (m?.type !== 'cpu') return;
      proc.off('message', on);
      resolve(m.ms ?? 0);
    };
    proc.on('message', on);
    proc.send({ type: 'cpu' });
  });
}
const SECONDS = Number(args.seconds);
const CLIENTS = Number(args.clients);
const WATCHERS = Number(args.watchers);

const now = () => performance.timeOrigin + performance.now();
const ms = (x: number) => `${x.toFixed(1)} ms`;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-bench-write-'));
const STATEMENTS = process.env.STOWAGE_BENCH_PG_STATEMENTS === '1';
const pg = await startEmbeddedPostgres(path.join(dir, 'pg'), { settings: STATEMENTS ? STATEMENT_STATS_SETTINGS : [] });
try {
  console.log(
    `Stowage write-path benchmark: ${CLIENTS} REST clients for ${SECONDS} s, ${WATCHERS} watchers, ` +
      (API_WORKERS !== undefined
        ? `\`stowage start\` with ${API_WORKERS} API worker(s) (${os.cpus().length} CPUs)`
        : `${API_PROCESSES} API process(es), ${CONTROLLER_PROCESSES} controller process(es) (${os.cpus().length} CPUs)`),
  );
  const raw = await rawTransactionRate(pg.baseUrl);
  console.log(`raw single-row transaction rate: ${raw.tps.toFixed(0)} tx/s (${raw.how})`);

  const url = await ensureDatabase(pg.baseUrl, 'stowage_bench');
  await migrate(url);
  const app = await createAppContext(url);
  await app.users.create({ name: 'admin', role: 'admin' });
  const token = await app.users.createToken('admin');
  const children: ChildProcess[] = [];
  let server: { url: string; caPem: string; close(): Promise<void> };
  let urls: string[];
  let stowage: RunningStowage | undefined;
  if (API_WORKERS !== undefined) {
    const prof = process.env.STOWAGE_BENCH_CPU_PROF;
    stowage = await startStowage({ databaseUrl: url, dataDir: path.join(dir, 'stowage'), apiWorkers: API_WORKERS, nodeFlags: prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [] });
    urls = [stowage.apiUrl];
    server = { url: stowage.apiUrl, caPem: stowage.caPem, close: () => stowage!.stop() };
    // Its start-up work (bootstrap, the first reconciles) is not part of the figures.
    await stowage.quiet();
  } else if (API_PROCESSES > 1) {
    // One CA for all of them, made before they start.
    const caPem = ensureServingPki(dir, servingNames([], '127.0.0.1')).caPem;
    const apis = await Promise.all(Array.from({ length: API_PROCESSES }, () => child('api-process.ts', [url, dir])));
    children.push(...apis.map((a) => a.proc));
    urls = apis.map((a) => a.url!);
    server = { url: urls[0], caPem, close: async () => {} };
  } else {
    server = await startApiServer({ app, dataDir: dir, host: '127.0.0.1', port: 0 });
    urls = [server.url];
  }
  const controllers: Controllers[] = [];
  for (let i = 0; i < CONTROLLER_PROCESSES; i++) controllers.push(await Controllers.start(url, 256, true));
  children.push(...controllers.map((c) => c.child));
  const agent = new https.Agent({ keepAlive: true, maxSockets: CLIENTS + 4, ca: server.caPem });
  let turn = 0;
  const request = (method: string, p: string, body?: unknown) => httpsRequest(agent, new URL(urls[turn++ % urls.length]), token, method, p, body);

  /** Phase 4: the REST burst of volumes and claims, binding as they come. */
  async function burst(): Promise<void> {
    if (CONTROLLER_PROCESSES === 0 && !stowage) {
      controllers.push(await Controllers.start(url, 256));
      children.push(controllers[0].child);
    }
    // The controllers first make the volumes of the creates phase Available: that start-up
    // work is not part of the burst.
    for (const c of controllers) await c.idle();
    await stowage?.quiet();
    const stowageCpu0 = stowage?.cpuMs();
    const ns = 'burst';
    await request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const startRv = JSON.parse((await request('GET', `/api/v1/namespaces/${ns}/persistentvolumeclaims?limit=1`)).text).metadata.resourceVersion;
    // The claim watch: when each claim is first seen Bound.
    const boundAt = new Map<string, number>();
    let allBound!: () => void;
    const everyBound = new Promise<void>((r) => (allBound = r));
    const base = new URL(urls[0]);
    const watch = watchClaimsBound({ url: base, token, ca: server.caPem }, ns, startRv, (name) => {
      boundAt.set(name, now());
      if (boundAt.size === BURST) allBound();
    });
    const createdAt = new Map<string, number>();
    let failures = 0;
    let i = 0;
    const t0 = now();
    const pg0 = postgresCpuMs(path.join(dir, 'pg', 'postgres'));
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (i < BURST) {
          const k = i++;
          const v = await request('POST', '/api/v1/persistentvolumes', {
            apiVersion: 'v1',
            kind: 'PersistentVolume',
            metadata: { name: `burst-pv-${k}` },
            spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: '', persistentVolumeReclaimPolicy: 'Retain', nfs: { server: '10.0.0.1', path: `/b/${k}` } },
          });
          const c = await request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: { name: `burst-${k}` },
            spec: { accessModes: ['ReadWriteOnce'], storageClassName: '', resources: { requests: { storage: '1Gi' } } },
          });
          if (v.status !== 201 || c.status !== 201) failures++;
          else createdAt.set(`burst-${k}`, now());
        }
      }),
    );
    const tCreated = now();
    const timeout = new Promise<void>((r) => setTimeout(r, 600_000).unref());
    await Promise.race([everyBound, timeout]);
    watch.destroy();
    const pg1 = postgresCpuMs(path.join(dir, 'pg', 'postgres'));
    const lat = [...createdAt].map(([n, t]) => (boundAt.get(n) ?? NaN) - t).filter((x) => !Number.isNaN(x));
    lat.sort((a, b) => a - b);
    const last = Math.max(...boundAt.values());
    const bindsPerS = (boundAt.size / (last - t0)) * 1000;
    console.log(
      `burst through the REST API: ${BURST} volumes + ${BURST} claims created by ${CLIENTS} clients in ${((tCreated - t0) / 1000).toFixed(1)} s ` +
        `(${((2 * BURST) / ((tCreated - t0) / 1000)).toFixed(0)} objects/s, ${failures} failed); ${boundAt.size} Bound, the last ${((last - tCreated) / 1000).toFixed(1)} s after the last create`,
    );
    console.log(
      `  claim create → Bound (seen on a claim watch): p50 ${ms(pct(lat, 50))}, p99 ${ms(pct(lat, 99))}, max ${ms(lat.at(-1) ?? NaN)} (target p99 <= 2 s); ` +
        `${bindsPerS.toFixed(0)} binds/s vs pgbench -N ${raw.tps.toFixed(0)} tx/s: ratio ${(bindsPerS / raw.tps).toFixed(2)} (target >= 0.5)`,
    );
    if (pg0 !== undefined && pg1 !== undefined) {
      console.log(`  Postgres used ${((pg1 - pg0) / 1000).toFixed(1)} s CPU over the burst's ${((now() - t0) / 1000).toFixed(1)} s (${((pg1 - pg0) / (2 * BURST)).toFixed(2)} ms per object created)`);
    }
    if (stowage && stowageCpu0 !== undefined) {
      const used = stowage.cpuMs() - stowageCpu0;
      console.log(`  every Stowage process (API workers, controllers, agent) used ${(used / 1000).toFixed(1)} s CPU (${(used / (2 * BURST)).toFixed(2)} ms per object created)`);
    }
  }

  try {
    const startRv = JSON.parse((await request('GET', '/api/v1/persistentvolumes?limit=1')).text).metadata.resourceVersion;
    const watchers = await startWatchers({ urls, token, ca: server.caPem, watchers: WATCHERS, path: `/api/v1/persistentvolumes?watch=true&resourceVersion=${startRv}` });
    const { arrivals } = watchers;

    const responded = new Map<string, number>();
    let next = 0;
    let failed = 0;
    const apiChildren = children.slice(0, API_PROCESSES > 1 ? API_PROCESSES : 0);
    const childCpuBefore = (await Promise.all(apiChildren.map(childCpuMs))).reduce((a, b) => a + b, 0);
    const controllerCpu = async () => (await Promise.all(controllers.map((c) => c.stats()))).reduce((a, s) => a + s.cpuMs, 0);
    const controllerCpuBefore = await controllerCpu();
    const stowageCpuBefore = stowage?.cpuMs();
    const statements = STATEMENTS ? await StatementStats.start(url) : undefined;
    const started = now();
    const pgBefore = postgresCpuMs(path.join(dir, 'pg', 'postgres'));
    const cpuBefore = process.cpuUsage();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (now() - started < SECONDS * 1000) {
          const i = next++;
          // Paced: the i-th create is sent no earlier than its slot in the schedule.
          const slot = RATE > 0 ? started + (i * 1000) / RATE - now() : 0;
          if (slot > 0) await new Promise((r) => setTimeout(r, slot));
          const r = await request('POST', '/api/v1/persistentvolumes', {
            apiVersion: 'v1',
            kind: 'PersistentVolume',
            metadata: { name: `wp-${i}`, labels: { bench: 'write-path' } },
            spec: { capacity: { storage: `${1 + (i % 100)}Gi` }, accessModes: ['ReadWriteOnce'], nfs: { server: '10.0.0.1', path: `/e/${i}` } },
          });
          if (r.status !== 201) {
            failed++;
            continue;
          }
          responded.set(JSON.parse(r.text).metadata.resourceVersion, now());
        }
      }),
    );
    const elapsed = now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const childCpu = (await Promise.all(apiChildren.map(childCpuMs))).reduce((a, b) => a + b, 0) - childCpuBefore;
    const controllersUsed = (await controllerCpu()) - controllerCpuBefore;
    const stowageUsed = stowage && stowageCpuBefore !== undefined ? stowage.cpuMs() - stowageCpuBefore : undefined;
    const cpuMsPerCreate = ((cpu.user + cpu.system) / 1000 + childCpu) / Math.max(1, responded.size);
    const rate = (responded.size / elapsed) * 1000;
    const pgAfter = postgresCpuMs(path.join(dir, 'pg', 'postgres'));
    const pgPerCreate = pgBefore !== undefined && pgAfter !== undefined ? (pgAfter - pgBefore) / Math.max(1, responded.size) : undefined;
    console.log(`creates through the REST API, ${CLIENTS} concurrent clients${RATE > 0 ? ` offering ${RATE}/s` : ''}: ${responded.size} in ${(elapsed / 1000).toFixed(1)} s = ${rate.toFixed(0)}/s (${failed} failed)`);
    if (statements) console.table(await statements.stop(15));
    const perCreate = (x: number) => (x / Math.max(1, responded.size)).toFixed(2);
    if (stowageUsed !== undefined) {
      // Everything Stowage runs, apart from the bench's own clients and watch streams.
      console.log(
        `  every Stowage process (main: controllers, agent; ${API_WORKERS} API worker(s)) used ${perCreate(stowageUsed)} ms CPU per create; ` +
          `this process (clients + watch streams) ${perCreate((cpu.user + cpu.system) / 1000)} ms; machine load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs`,
      );
    } else {
      console.log(
        `  ${API_PROCESSES > 1 ? 'the API processes and this one (clients, watch streams)' : 'this process (API server + clients + watch streams)'} used ${cpuMsPerCreate.toFixed(2)} ms CPU per create: one free core caps it near ${(1000 / cpuMsPerCreate).toFixed(0)}/s; ` +
          `machine load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs`,
      );
      if (controllers.length > 0) console.log(`  the controller process(es) ${perCreate(controllersUsed)} ms per create: every Stowage process together ${(cpuMsPerCreate + controllersUsed / Math.max(1, responded.size)).toFixed(2)} ms`);
    }
    if (pgPerCreate !== undefined) console.log(`  Postgres used ${pgPerCreate.toFixed(2)} ms CPU per create`);
    console.log(`  vs pgbench -N ${raw.tps.toFixed(0)} tx/s in this run: ratio ${(rate / raw.tps).toFixed(2)} (target >= 0.3)`);

    // Let the watchers drain (bounded), then check what each saw.
    const deadline = now() + 30_000;
    // Only the creates' own events count (controllers' writes arrive on the same watches).
    const delivered = () => arrivals.reduce((n, [rv]) => n + (responded.has(rv) ? 1 : 0), 0);
    while (delivered() < responded.size * WATCHERS && now() < deadline) {
      await watchers.flush();
      await new Promise((r) => setTimeout(r, 200));
    }
    const latencies = arrivals.filter(([rv]) => responded.has(rv)).map(([rv, t]) => Math.max(0, t - responded.get(rv)!));
    latencies.sort((a, b) => a - b);
    console.log(
      `watch delivery, response → event over HTTPS (${WATCHERS} watchers, ${latencies.length}/${responded.size * WATCHERS} events): ` +
        `p50 ${ms(pct(latencies, 50))}, p90 ${ms(pct(latencies, 90))}, p99 ${ms(pct(latencies, 99))}, max ${ms(latencies.at(-1) ?? NaN)} (target p99 <= 50 ms)`,
    );
    await watchers.stop();

    if (BURST > 0) await burst();
  } finally {
    agent.destroy();
    for (const c of children) c.disconnect();
    await server.close();
    await app.close();
  }
} finally {
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
