// Binder benchmark: prints figures, asserts nothing.  npx tsx bench/binder.ts [--n=10000]
//   [--pool=100000] [--small-pool=1000] [--claims=500] [--pool-rate=100] [--workers=16] [--concurrency=16]
//   [--only=burst|backlog|pool] [--no-settle]
//   STOWAGE_BENCH_CPU_PROF=DIR: CPU profile of the controllers' whole run;
//   STOWAGE_BENCH_PHASE_PROF=DIR: CPU profile of the controllers during the pools' claims;
//   STOWAGE_BENCH_PG_STATEMENTS=1: Postgres's top statements during the pools' claims.
//
// 1. the raw single-row transaction rate of the embedded Postgres (pgbench -N or a pg loop);
// 2. a burst of N volumes and N claims created through the services layer, with the
//    controllers in their own process: time until all are Bound, p50/p99 claim-to-Bound,
//    binds/s and its ratio to the raw rate, the controller process's peak RSS;
//    then the binder's own rate: N claims created faster than it binds (a backlog);
// 3. per-claim latency with 1,000 and with 100,000 Available volumes in the pool, once the
//    database has settled from creating the pool (server/store/bench-diagnostics.ts; --no-settle measures
//    straight after the setup, with its vacuum and checkpoint still to come).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createAppContext, type AppContext } from '../server/wiring/context';
import type { Principal } from '../server/domain/authorization';
import type { KubeObject } from '../server/resources/types';
import { ensureDatabase, startEmbeddedPostgres } from '../server/store/database';
import { Controllers } from './controllers-process';
import { postgresCpuMs } from './pg-cpu';
import { settleDatabase, STATEMENT_STATS_SETTINGS, StatementStats } from '../server/store/bench-diagnostics';
import { migrate } from '../server/store/migrate';
import { rawTransactionRate } from '../server/store/raw-tps';
import type { PersistentVolumeClaim } from '../server/resources/persistent-volume-claim/schema';

const arg = (name: string, fallback: number) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.split('=')[1]) : fallback;
};
const N = arg('n', 10_000);
const BIG_POOL = arg('pool', 100_000);
const SMALL_POOL = arg('small-pool', 1_000);
const POOL_CLAIMS = arg('claims', 500);
// Claims per second into the pools: below what the binder drains, so the latency is a
// claim's own and not the wait behind a backlog (0: as fast as the 4 workers go).
const POOL_RATE = arg('pool-rate', 100);
const WORKERS = arg('workers', 16);
const CONCURRENCY = arg('concurrency', 256);
const SETTLE = !process.argv.includes('--no-settle');
const STATEMENTS = process.env.STOWAGE_BENCH_PG_STATEMENTS === '1';
const admin: Principal = { type: 'user', id: 'bench', name: 'bench', role: 'admin', namespaces: [] };
const say = (s: string) => process.stdout.write(`${s}\n`);
const ms = (x: number) => `${x.toFixed(0)} ms`;

let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);

// The store is written directly in places (big transactions), where the services' admission
// does not run: the objects carry the protection finalizers admission would have added, so
// the protection controllers have nothing to add (as for objects created through the API).
function pv(name: string, gi: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, finalizers: ['kubernetes.io/pv-protection'] },
    spec: { capacity: { storage: `${gi}Gi` }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/srv/${name}` }, storageClassName: '' },
  };
}
function pvc(name: string, gi: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'bench', finalizers: ['kubernetes.io/pvc-protection'] },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: `${gi}Gi` } }, storageClassName: '' },
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function freshApp(baseUrl: string, name: string): Promise<{ url: string; app: AppContext }> {
  const url = await ensureDatabase(baseUrl, name);
  await migrate(url);
  const app = await createAppContext(url);
  for (const ns of ['default', 'bench']) await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  return { url, app };
}

/** Records when each claim is first seen Bound in the change log. */
function watchBound(app: AppContext, from: bigint, signal: AbortSignal): Map<string, number> {
  const bound = new Map<string, number>();
  void (async () => {
    for await (const e of app.store.watch({ kinds: ['PersistentVolumeClaim'], resourceVersion: from.toString(), signal })) {
      // The watch is of claims only.
      if ((e.object as PersistentVolumeClaim).status?.phase === 'Bound' && !bound.has(e.name)) bound.set(e.name, performance.now());
    }
  })().catch(() => {});
  return bound;
}

async function untilAllBound(bound: Map<string, number>, n: number, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (bound.size < n && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return bound.size >= n;
}

async function runAll<T>(items: T[], workers: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

function latencies(created: Map<string, number>, bound: Map<string, number>): number[] {
  return [...created].map(([name, t]) => Math.max(0, (bound.get(name) ?? NaN) - t)).filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
}

async function burst(baseUrl: string, rawTps: number): Promise<void> {
  const { url, app } = await freshApp(baseUrl, 'burst');
  const controllers = await Controllers.start(url, CONCURRENCY);
  const abort = new AbortController();
  const bound = watchBound(app, await app.store.currentResourceVersion(), abort.signal);
  const created = new Map<string, number>();
  const ops: KubeObject[] = [];
  for (let i = 0; i < N; i++) ops.push(pv(`pv-${i}`, 10), pvc(`claim-${i}`, 1 + Math.floor(rand() * 10)));
  say(`\n== Burst: ${N} volumes + ${N} claims through the services layer (${WORKERS} client workers, ${CONCURRENCY} binder workers)`);
  const t0 = performance.now();
  const cpu0 = { ctl: (await controllers.stats()).cpuMs, pg: postgresCpuMs(path.join(dir, 'postgres')), self: process.cpuUsage() };
  await runAll(ops, WORKERS, async (o) => {
    await app.objects.create(admin, o);
    if (o.kind === 'PersistentVolumeClaim') created.set(o.metadata.name!, performance.now());
  });
  const tCreated = performance.now();
  const ok = await untilAllBound(bound, N, 600_000);
  const tAll = performance.now();
  const s = await controllers.stats();
  const pg1 = postgresCpuMs(path.join(dir, 'postgres'));
  const selfCpu = process.cpuUsage(cpu0.self);
  const cpuLine = `CPU over the burst (s):          controller ${((s.cpuMs - cpu0.ctl) / 1000).toFixed(1)}, Postgres ${cpu0.pg !== undefined && pg1 !== undefined ? ((pg1 - cpu0.pg) / 1000).toFixed(1) : '?'}, this process (services, clients) ${((selfCpu.user + selfCpu.system) / 1e6).toFixed(1)}, of ${(((performance.now() - t0) / 1000) * os.cpus().length).toFixed(1)} available`;
  abort.abort();
  const lat = latencies(created, bound);
  const first = Math.min(...bound.values());
  const last = Math.max(...bound.values());
  const bindsPerS = N / ((tAll - t0) / 1000);
  say(`created all ${2 * N} objects in     ${ms(tCreated - t0)} (${((2 * N) / ((tCreated - t0) / 1000)).toFixed(0)} objects/s)`);
  say(`time to all Bound:               ${ms(tAll - t0)}${ok ? '' : `  (TIMED OUT: ${bound.size}/${N} bound)`}`);
  say(`claim-to-Bound p50 / p99 / max:  ${ms(percentile(lat, 50))} / ${ms(percentile(lat, 99))} / ${ms(lat[lat.length - 1])}`);
  say(`binds/s over the burst:          ${bindsPerS.toFixed(0)}  (first to last bind: ${(N / ((last - first) / 1000)).toFixed(0)}/s)`);
  say(`raw single-row transactions/s:   ${rawTps.toFixed(0)}`);
  say(`ratio binds/s : raw tx/s:        ${(bindsPerS / rawTps).toFixed(2)}`);
  say(cpuLine);
  say(`controller process RSS peak:     ${(s.maxRss / 2 ** 20).toFixed(0)} MB (now ${(s.rss / 2 ** 20).toFixed(0)} MB)`);
  await controllers.stop();
  await app.close();
}

/** The binder's own rate: claims created in big store transactions, faster than it binds. */
async function backlog(baseUrl: string, rawTps: number): Promise<void> {
  const { url, app } = await freshApp(baseUrl, 'backlog');
  say(`\n== Backlog: ${N} Available volumes, then ${N} claims created in 500-claim store transactions`);
  const controllers = await Controllers.start(url, CONCURRENCY);
  await createPool(app, N, () => 10);
  await controllers.idle();
  const cpuBefore = (await controllers.stats()).cpuMs;
  const pgBefore = postgresCpuMs(path.join(dir, 'postgres'));
  const abort = new AbortController();
  const bound = watchBound(app, await app.store.currentResourceVersion(), abort.signal);
  const claims = Array.from({ length: N }, (_, i) => pvc(`b-${i}`, 1 + Math.floor(rand() * 10)));
  const t0 = performance.now();
  for (let i = 0; i < N; i += 500) {
    await app.store.transact(async (tx) => {
      for (const c of claims.slice(i, i + 500)) await tx.create(c);
    });
  }
  const tCreated = performance.now();
  const ok = await untilAllBound(bound, N, 600_000);
  const tAll = performance.now();
  const s = await controllers.stats();
  abort.abort();
  const rate = N / ((tAll - t0) / 1000);
  say(`claims created in ${ms(tCreated - t0)}; all Bound after ${ms(tAll - t0)}${ok ? '' : `  (TIMED OUT: ${bound.size}/${N})`}`);
  say(`binder throughput:               ${rate.toFixed(0)} binds/s (ratio to raw tx/s: ${(rate / rawTps).toFixed(2)})`);
  // Where the time goes: CPU per bind of the controller process and of Postgres (the
  // bench's own process, which created the claims and watches, is not counted).
  const pgAfter = postgresCpuMs(path.join(dir, 'postgres'));
  const pgPerBind = pgBefore !== undefined && pgAfter !== undefined ? `, Postgres ${((pgAfter - pgBefore) / N).toFixed(2)} ms` : '';
  say(`CPU per bind:                    controller ${((s.cpuMs - cpuBefore) / N).toFixed(2)} ms${pgPerBind} (claims' creation included)`);
  say(`controller process RSS peak:     ${(s.maxRss / 2 ** 20).toFixed(0)} MB`);
  await controllers.stop();
  await app.close();
}

async function createPool(app: AppContext, size: number, gi: () => number = () => 1 + Math.floor(rand() * 100)): Promise<void> {
  for (let start = 0; start < size; start += 500) {
    await app.store.transact(async (tx) => {
      for (let i = start; i < Math.min(size, start + 500); i++) await tx.create(pv(`pool-${i}`, gi()));
    });
  }
}

async function poolRun(baseUrl: string, which: 'small' | 'big', size: number): Promise<{ p50: number; p99: number; mean: number; reconcileMs: number; rss: number; cpuPerClaim: { controller: number; postgres: number } }> {
  const { url, app } = await freshApp(baseUrl, `pool_${which}_${size}`);
  say(`\n== Pool of ${size} Available volumes, then ${POOL_CLAIMS} claims (4 client workers, ${POOL_RATE > 0 ? `${POOL_RATE} claims/s` : 'unpaced'})`);
  let t = performance.now();
  await createPool(app, size);
  say(`pool created through the store in ${ms(performance.now() - t)}`);
  t = performance.now();
  const controllers = await Controllers.start(url, CONCURRENCY);
  await controllers.idle();
  say(`controllers made the pool Available (and settled) in ${ms(performance.now() - t)}`);
  const before = await controllers.stats();
  if (SETTLE) await settleDatabase(url);
  const statements = STATEMENTS ? await StatementStats.start(url) : undefined;
  const abort = new AbortController();
  const bound = watchBound(app, await app.store.currentResourceVersion(), abort.signal);
  await controllers.profileStart();
  const pgBefore = postgresCpuMs(path.join(dir, 'postgres'));
  const created = new Map<string, number>();
  const claims = Array.from({ length: POOL_CLAIMS }, (_, i) => ({ i, claim: pvc(`c-${i}`, 1 + Math.floor(rand() * 20)) }));
  const start = performance.now();
  await runAll(claims, 4, async ({ i, claim }) => {
    // Paced: the i-th claim is created no earlier than i / rate seconds in.
    const wait = POOL_RATE > 0 ? start + (i * 1000) / POOL_RATE - performance.now() : 0;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await app.objects.create(admin, claim);
    created.set(claim.metadata.name!, performance.now());
  });
  const ok = await untilAllBound(bound, POOL_CLAIMS, 300_000);
  const after = await controllers.stats();
  const pgAfter = postgresCpuMs(path.join(dir, 'postgres'));
  const cpuPerClaim = {
    controller: (after.cpuMs - before.cpuMs) / POOL_CLAIMS,
    postgres: pgBefore !== undefined && pgAfter !== undefined ? (pgAfter - pgBefore) / POOL_CLAIMS : NaN,
  };
  const profile = await controllers.profileStop();
  if (profile) say(`controller CPU profile of the claims: ${profile}`);
  if (statements) console.table(await statements.stop());
  abort.abort();
  const lat = latencies(created, bound);
  const mean = lat.reduce((a, b) => a + b, 0) / lat.length;
  const reconcileMs = ((after.reconcile.sum - before.reconcile.sum) / Math.max(1, after.reconcile.count - before.reconcile.count)) * 1000;
  say(`claim-to-Bound p50 / p99 / mean: ${ms(percentile(lat, 50))} / ${ms(percentile(lat, 99))} / ${mean.toFixed(1)} ms${ok ? '' : '  (TIMED OUT)'}`);
  say(`mean reconcile time:             ${reconcileMs.toFixed(2)} ms`);
  say(`CPU per claim:                   controller ${cpuPerClaim.controller.toFixed(2)} ms, Postgres ${cpuPerClaim.postgres.toFixed(2)} ms (its creation included)`);
  say(`controller GC during the claims: ${(after.gcMs - before.gcMs).toFixed(0)} ms`);
  say(`controller process RSS peak:     ${(after.maxRss / 2 ** 20).toFixed(0)} MB`);
  await controllers.stop();
  await app.close();
  return { p50: percentile(lat, 50), p99: percentile(lat, 99), mean, reconcileMs, rss: after.maxRss, cpuPerClaim };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-bench-binder-'));
const server = await startEmbeddedPostgres(dir, { settings: STATEMENTS ? STATEMENT_STATS_SETTINGS : [] });
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void server
      .stop()
      .catch(() => {})
      .finally(() => {
        rmSync(dir, { recursive: true, force: true });
        process.exit(1);
      });
  });
}
try {
  say(`Stowage binder benchmark: ${os.cpus().length} CPUs, Node ${process.version}, embedded PostgreSQL`);
  const raw = await rawTransactionRate(server.baseUrl);
  say(`raw single-row transaction rate: ${raw.tps.toFixed(0)} tx/s (${raw.how})`);
  // --only=burst|backlog|pool runs one part.
  const only = process.argv.find((a) => a.startsWith('--only='))?.split('=')[1];
  if (N > 0 && (!only || only === 'burst')) await burst(server.baseUrl, raw.tps);
  if (N > 0 && (!only || only === 'backlog')) await backlog(server.baseUrl, raw.tps);
  if (BIG_POOL > 0 && (!only || only === 'pool')) {
    const small = await poolRun(server.baseUrl, 'small', SMALL_POOL);
    const big = await poolRun(server.baseUrl, 'big', BIG_POOL);
    say(`\n== Per-claim cost with ${BIG_POOL} vs ${SMALL_POOL} volumes`);
    say(`mean claim-to-Bound: ${big.mean.toFixed(1)} ms vs ${small.mean.toFixed(1)} ms (x${(big.mean / small.mean).toFixed(2)})`);
    say(`p99 claim-to-Bound:  ${ms(big.p99)} vs ${ms(small.p99)} (x${(big.p99 / small.p99).toFixed(2)})`);
    say(`mean reconcile:      ${big.reconcileMs.toFixed(2)} ms vs ${small.reconcileMs.toFixed(2)} ms (x${(big.reconcileMs / small.reconcileMs).toFixed(2)})`);
    const cpu = (c: { controller: number; postgres: number }) => c.controller + c.postgres;
    say(`CPU per claim:       ${cpu(big.cpuPerClaim).toFixed(2)} ms vs ${cpu(small.cpuPerClaim).toFixed(2)} ms (x${(cpu(big.cpuPerClaim) / cpu(small.cpuPerClaim)).toFixed(2)}), controller + Postgres`);
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
