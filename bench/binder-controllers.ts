// The controller process of bench/binder.ts: runs Stowage's controllers against the
// bench database and answers the driver's questions over IPC (memory, queue, metrics).
// Usage (by the driver): fork('bench/binder-controllers.ts', [databaseUrl, concurrency, 'elect'?]).
// bench/write-path.ts also runs it (--controller-processes N) with leader election.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { register } from 'prom-client';
import { createAppContext } from '../server/wiring/context';
import { startControllers } from '../server/controllers/start';

// A third argument `elect` runs them with leader election (several controller processes).
const [url, concurrencyArg, elect] = process.argv.slice(2);
if (!url || !process.send) {
  console.error('run by bench/binder.ts');
  process.exit(2);
}

const app = await createAppContext(url);
const running = await startControllers({
  app,
  connectionString: url,
  leaderElection: elect === 'elect',
  binderConcurrency: Number(concurrencyArg) || 256,
});
const binder = running.manager.controllers[0];

let maxRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  maxRss = Math.max(maxRss, process.memoryUsage().rss);
}, 100);

// Time spent in garbage collection, all kinds.
let gcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcMs += e.duration;
}).observe({ entryTypes: ['gc'] });

// A CPU profile of one phase (the driver's 'profileStart' and 'profileStop'), written to
// STOWAGE_BENCH_PHASE_PROF=DIR.
let profiler: Session | undefined;

async function reconcileTotals(): Promise<{ sum: number; count: number }> {
  const m = register.getSingleMetric('stowage_controller_reconcile_duration_seconds');
  const values = m ? (await m.get()).values : [];
  let sum = 0;
  let count = 0;
  for (const v of values as { metricName?: string; value: number }[]) {
    if (v.metricName?.endsWith('_sum')) sum += v.value;
    if (v.metricName?.endsWith('_count')) count += v.value;
  }
  return { sum, count };
}

// eslint-disable-next-line @typescript-eslint/no-misused-promises -- a failed stats read ends this bench child (an unhandled rejection), which the parent reports
process.on('message', async (msg: { type: string }) => {
  if (msg.type === 'stats') {
    const rss = process.memoryUsage().rss;
    maxRss = Math.max(maxRss, rss);
    process.send!({
      type: 'stats',
      rss,
      maxRss,
      cpuMs: (() => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      })(),
      depth: binder?.queue.length ?? 0,
      inFlight: binder?.queue.inFlight ?? 0,
      reconcile: await reconcileTotals(),
      gcMs,
    });
  } else if (msg.type === 'profileStart') {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    process.send!({ type: 'profileStart' });
  } else if (msg.type === 'profileStop') {
    const { profile } = await profiler!.post('Profiler.stop');
    const file = path.join(process.env.STOWAGE_BENCH_PHASE_PROF ?? '.', `controllers-${process.pid}-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    profiler!.disconnect();
    process.send!({ type: 'profileStop', file });
  } else if (msg.type === 'resetRss') {
    maxRss = process.memoryUsage().rss;
    process.send!({ type: 'resetRss' });
  } else if (msg.type === 'stop') {
    clearInterval(sampler);
    // STOWAGE_BENCH_METRICS=FILE keeps the controllers' Prometheus metrics of the run.
    if (process.env.STOWAGE_BENCH_METRICS) writeFileSync(process.env.STOWAGE_BENCH_METRICS, await register.metrics());
    await running.stop();
    await app.close();
    process.send!({ type: 'stopped' });
    process.exit(0);
  }
});

process.on('disconnect', () => process.exit(0));
process.send({ type: 'ready' });
