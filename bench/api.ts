// Benchmark of the Kubernetes-compatible API (figures printed, nothing asserted):
//   npx tsx bench/api.ts [--volumes 10000] [--watchers 10] [--rate 500] [--seconds 10]
// Starts an embedded Postgres and the HTTPS API in a temp dir, creates the volumes through
// the API, then times `kubectl get pv`, a raw JSON list and a Table list, and measures watch
// latency (commit → event read by a client over HTTPS) with concurrent watchers in a worker
// thread while a steady stream of writes goes on for at most --seconds: first one object per
// transaction, then five per transaction. The write rate reached is printed with each figure.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createAppContext } from '../server/wiring/context';
import { renderKubeconfig } from '../server/services/kubeconfig';
import { startApiServer } from '../server/kube/api-server';
import { ensureDatabase, startEmbeddedPostgres } from '../server/store/database';
import { migrate } from '../server/store/migrate';
import { httpsRequest } from './https-request';
import { startWatchers } from './watchers';

const { values: args } = parseArgs({
  options: {
    volumes: { type: 'string', default: '10000' },
    watchers: { type: 'string', default: '10' },
    rate: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '10' },
  },
});
const VOLUMES = Number(args.volumes);
const WATCHERS = Number(args.watchers);
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);

const now = () => performance.timeOrigin + performance.now();
const ms = (x: number) => `${x.toFixed(1)} ms`;
const sec = (x: number) => `${(x / 1000).toFixed(2)} s`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-bench-api-'));
const pg = await startEmbeddedPostgres(path.join(dir, 'pg'));
const url = await ensureDatabase(pg.baseUrl, 'stowage_bench');
await migrate(url);
const app = await createAppContext(url);
await app.users.create({ name: 'admin', role: 'admin' });
const admin = (await app.users.byName('admin'))!;
const token = await app.users.createToken('admin');
await app.users.create({ name: 'viewer', role: 'viewer' });
const viewerToken = await app.users.createToken('viewer');
const server = await startApiServer({ app, dataDir: dir, host: '127.0.0.1', port: 0 });
const kubeconfig = path.join(dir, 'admin.kubeconfig');
writeFileSync(kubeconfig, renderKubeconfig({ server: server.url, user: 'admin', token, caPem: server.caPem }));
const agent = new https.Agent({ keepAlive: true, maxSockets: 64, ca: server.caPem });
const base = new URL(server.url);

const request = (method: string, p: string, body?: unknown, accept = 'application/json', as = token) => httpsRequest(agent, base, as, method, p, body, accept);

function kubectl(argv: string[]): Promise<{ ms: number; stdout: string }> {
  const started = now();
  return new Promise((resolve, reject) =>
    execFile('kubectl', ['--kubeconfig', kubeconfig, '--cache-dir', path.join(dir, 'kcache'), ...argv], { maxBuffer: 256 * 1024 * 1024 }, (err, stdout) =>
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- execFile's error type is an Omit<> of Error, but it is an Error
      err ? reject(err) : resolve({ ms: now() - started, stdout }),
    ),
  );
}

const pvBody = (i: number) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: `bench-pv-${String(i).padStart(5, '0')}`, labels: { bench: 'yes', shard: String(i % 10) } },
  spec: {
    capacity: { storage: `${1 + (i % 100)}Gi` },
    accessModes: ['ReadWriteOnce'],
    persistentVolumeReclaimPolicy: 'Retain',
    storageClassName: i % 2 ? 'fast' : 'slow',
    nfs: { server: '10.0.0.1', path: `/exports/${i}` },
  },
});

try {
  console.log(`Stowage API benchmark: ${VOLUMES} volumes, ${WATCHERS} watchers, ${RATE} writes/s for ${SECONDS} s (${os.cpus().length} CPUs)`);

  // 1. Create the volumes: the first ones through the API (timed), the rest in store
  //    transactions of 500 (setup only; the store's write rate is not what is measured here).
  const viaApi = Math.min(VOLUMES, 1000);
  let next = 0;
  const createStarted = now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < viaApi) {
        const i = next++;
        const r = await request('POST', '/api/v1/persistentvolumes', pvBody(i));
        if (r.status !== 201) throw new Error(`create ${i}: ${r.status} ${r.text}`);
      }
    }),
  );
  const createMs = now() - createStarted;
  console.log(`create ${viaApi} PVs through the API (16 concurrent): ${sec(createMs)} (${Math.round((viaApi / createMs) * 1000)}/s)`);
  const setupStarted = now();
  for (let from = viaApi; from < VOLUMES; from += 500) {
    await app.store.transact(async (tx) => {
      for (let i = from; i < Math.min(from + 500, VOLUMES); i++) await tx.create(pvBody(i));
    });
  }
  console.log(`create the other ${VOLUMES - viaApi} PVs in store transactions of 500 (setup): ${sec(now() - setupStarted)}`);

  // 2. kubectl get pv (discovery cached by a first run, as it is for a user).
  await kubectl(['get', 'ns']);
  const kubectlRuns: number[] = [];
  let rows = 0;
  for (let i = 0; i < 3; i++) {
    const r = await kubectl(['get', 'pv']);
    kubectlRuns.push(r.ms);
    rows = r.stdout.trim().split('\n').length - 1;
  }
  console.log(`kubectl get pv (${rows} rows, end to end): ${kubectlRuns.map(sec).join(', ')} (median ${sec(median(kubectlRuns))})`);
  // kubectl pages by 500 (20 requests here); the same without paging shows what the pages cost.
  const unpaged: number[] = [];
  for (let i = 0; i < 3; i++) unpaged.push((await kubectl(['get', 'pv', '--chunk-size=0'])).ms);
  console.log(`kubectl get pv --chunk-size=0 (one request): ${unpaged.map(sec).join(', ')} (median ${sec(median(unpaged))})`);
  const pageRuns: number[] = [];
  for (let i = 0; i < 3; i++) {
    const started = now();
    let cont = '';
    do {
      const r = await request('GET', `/api/v1/persistentvolumes?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, undefined, 'application/json;as=Table;v=v1;g=meta.k8s.io');
      cont = JSON.parse(r.text).metadata.continue ?? '';
    } while (cont);
    pageRuns.push(now() - started);
  }
  console.log(`Table list in pages of 500 as kubectl asks (20 requests): ${pageRuns.map(sec).join(', ')} (median ${sec(median(pageRuns))})`);

  // 3. Raw list (JSON) and Table list, timed to the last byte and parsed.
  // A viewer's list passes every object through the redaction; an admin's does not.
  for (const [label, accept, as] of [
    ['raw list (JSON)', 'application/json', token],
    ['Table list (as=Table;v=v1;g=meta.k8s.io)', 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json', token],
    ['raw list (JSON) as a viewer (redacted)', 'application/json', viewerToken],
  ] as const) {
    const runs: number[] = [];
    let bytes = 0;
    let count = 0;
    for (let i = 0; i < 3; i++) {
      const started = now();
      const r = await request('GET', '/api/v1/persistentvolumes', undefined, accept, as);
      const parsed = JSON.parse(r.text);
      runs.push(now() - started);
      bytes = r.text.length;
      count = (parsed.items ?? parsed.rows).length;
    }
    console.log(`${label}: ${count} items, ${(bytes / 1e6).toFixed(1)} MB: ${runs.map(sec).join(', ')} (median ${sec(median(runs))})`);
  }

  // 4. Watch latency: watchers in a worker thread; writes through the service at RATE/s.
  const startRv = JSON.parse((await request('GET', '/api/v1/persistentvolumes?limit=1')).text).metadata.resourceVersion;
  const watchers = await startWatchers({ url: server.url, token, ca: server.caPem, watchers: WATCHERS, path: `/api/v1/persistentvolumes?watch=true&resourceVersion=${startRv}` });
  const { arrivals } = watchers;
  const commits = new Map<string, number>();
  const report = (label: string, writes: number, writeMs: number) => {
    const latencies = arrivals.filter(([rv]) => commits.has(rv)).map(([rv, t]) => t - commits.get(rv)!);
    latencies.sort((a, b) => a - b);
    console.log(
      `watch latency, commit → event read over HTTPS, ${label} (${WATCHERS} watchers, ${writes} object writes in ${sec(writeMs)} = ${Math.round((writes / writeMs) * 1000)}/s, ` +
        `${latencies.length}/${writes * WATCHERS} events): p50 ${ms(pct(latencies, 50))}, p90 ${ms(pct(latencies, 90))}, p99 ${ms(pct(latencies, 99))}, max ${ms(latencies.at(-1) ?? NaN)}`,
    );
    arrivals.length = 0;
    commits.clear();
  };
  const total = RATE * SECONDS;
  const label = (name: string, i: number) => ({ ...pvBody(i % VOLUMES).metadata.labels, seq: `${name}-${i}` });

  // 4a. One object per transaction, through the service, as fast as allowed up to RATE/s.
  let seq = 0;
  let writeStarted = now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (;;) {
        const i = seq++;
        if (i >= total || now() - writeStarted > SECONDS * 1000) return;
        const wait = writeStarted + (i * 1000) / RATE - now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const name = pvBody(i % VOLUMES).metadata.name;
        const cur = await app.objects.get(admin, 'PersistentVolume', undefined, name);
        const updated = await app.objects.update(admin, { ...cur, metadata: { ...cur.metadata, labels: label('a', i) } });
        commits.set(updated.metadata.resourceVersion!, now());
      }
    }),
  );
  let writeMs = now() - writeStarted;
  const writesA = commits.size;
  await new Promise((r) => setTimeout(r, 1000));
  await watchers.flush();
  report('one object per transaction', writesA, writeMs);

  // 4b. RATE object writes/s as transactions of 5 objects each (RATE/5 commits/s).
  const PER_TX = 5;
  seq = 0;
  writeStarted = now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (;;) {
        const batch = seq++;
        if (batch * PER_TX >= total || now() - writeStarted > SECONDS * 1000) return;
        const wait = writeStarted + (batch * PER_TX * 1000) / RATE - now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const written = await app.store.transact(async (tx) => {
          for (let k = 0; k < PER_TX; k++) {
            const i = batch * PER_TX + k;
            const cur = await tx.mustGet('PersistentVolume', undefined, pvBody(i % VOLUMES).metadata.name);
            await tx.update({ ...cur, metadata: { ...cur.metadata, labels: label('b', i) } });
          }
          return tx.writes;
        });
        const t = now();
        for (const w of written) commits.set(w.object.metadata.resourceVersion!, t);
      }
    }),
  );
  writeMs = now() - writeStarted;
  const writesB = commits.size;
  await new Promise((r) => setTimeout(r, 1000));
  await watchers.flush();
  report(`${PER_TX} objects per transaction`, writesB, writeMs);
  await watchers.stop();
} finally {
  agent.destroy();
  await server.close();
  await app.close();
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
