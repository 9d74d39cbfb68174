// The controller process of bench/binder.ts: runs Stowage's controllers against the
// bench database and answers the driver's questions over IPC (memory, queue, metrics).
// Usage (by the driver): fork('bench/binder-controllers.ts', [databaseUrl, concurrency, 'elect'?]).
// bench/write-path.ts also runs it (--controller-processes N) with leader election.
import { writeFileSync } from 'node:fs';
import { register } from 'prom-client';
import { createAppContext } from '../server/app/context';
import { startControllers } from '../server/controllers/start';

// A third argument `elect` runs them with leader election (several controller processes).
const [url, concurrencyArg, elect] = process.argv.slice(2);
if (!url || !process.send) {
  console.error('run by bench/binder.ts');
  process.exit(2);
}

const app = await createAppContext(url, 20);
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
    });
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
