// Issue 40, "A million volumes" (figures printed, nothing asserted):
//   npx tsx bench/million.ts [--volumes 1000000] [--claims-bound 20]
//   npm run bench -- million
// 1. Templates: a real `stowage start` (compiled build, bench/stowage-start.ts) on an empty
//    database makes one object of every shape the load needs, through the REST API and its
//    own controllers: a volume the binder bound to a claim (and that claim), an Available
//    volume, and a claim of a WaitForFirstConsumer class that the binder left Pending with
//    its explanation (a claim waiting for its pod). It also creates the namespaces. Then it
//    stops. Those rows, as the store wrote them, are the templates.
// 2. The load: N volumes and N claims written directly with SQL (generate_series, one
//    statement per shape and table), each row its template with the name, namespace, uid,
//    timestamps and resourceVersion replaced: objects (every indexed column as the template
//    row has it, the per-row ones replaced likewise), one change_log row per object with the
//    same version and object (what compaction keeps), one history row per object, the
//    resource_version sequence and the settled prefix moved past them. Volumes 1..N/2 are
//    Bound to claims 1..N/2 (claimRef with the claim's uid, spec.volumeName, both Bound, the
//    binder's annotations); volumes N/2+1..N are Available; claims N/2+1..N are Pending in
//    the WaitForFirstConsumer class. Claims are spread over N/1000 namespaces. A sample of
//    each shape is read back through the store and checked with its kind's validation and
//    indexed columns before anything is measured; then VACUUM ANALYZE and a checkpoint.
// 3. A real `stowage start` on it, measured: spawn to the API answering and "Press Ctrl-C",
//    until every Stowage process is quiet (CPU), RSS of every Stowage process, the first page
//    of `kubectl get pv --chunk-size=500` (the real kubectl, and the HTTP request itself),
//    the first page of one namespace's claims, and new claims created one at a time through
//    the REST API: create -> Bound on a claim watch. Each figure beside its goal, with the
//    machine's load average.
// STOWAGE_BENCH_CPU_PROF=DIR makes the measured `stowage start` write a CPU profile there
// when it stops (bench/profile-summary.ts summarises it).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureDatabase, startEmbeddedPostgres } from '../server/store/database';
import { migrate } from '../server/store/migrate';
import { runStatements, settleDatabase } from '../server/store/bench-diagnostics';
import { ObjectStore } from '../server/store/object-store';
import { strategyOf } from '../server/store/kind-scope';
import { fullColumns } from '../server/store/flush';
import { nearVolumes } from '../server/store/volume-queries';
import { claimClass, requestedStorage } from '../server/domain/matching';
import { quantityToBytes } from '../server/domain/quantity';
import { accessModesToBits } from '../server/domain/access-modes';
import { explain, serializeExplanation } from '../server/domain/binding-explanation';
import { annBindingExplanation } from '../server/domain/well-known/annotations';
import { httpsRequest } from './https-request';
import { startStowage, type RunningStowage } from './stowage-start';
import { watchClaimsBound } from './claim-watch';
import { postgresCpuMs } from './pg-cpu';

const { values: args } = parseArgs({
  options: {
    volumes: { type: 'string', default: '1000000' },
    'claims-bound': { type: 'string', default: '20' },
    'keep-dir': { type: 'boolean', default: false },
  },
});
const N = Math.max(4, Math.floor(Number(args.volumes)));
const BOUND = Math.floor(N / 2);
const PER_NS = 1000;
const NAMESPACES = Math.max(1, Math.ceil(N / PER_NS));
const NEW_CLAIMS = Math.max(1, Number(args['claims-bound']));
const WFFC = 'million-wffc';

const now = () => performance.now();
const load = () => `load ${os.loadavg()[0].toFixed(2)}`;
const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN);
const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mib = (kb: number) => `${(kb / 1024).toFixed(0)} MiB`;
const pad = (g: string) => `lpad(${g}::text, 7, '0')`;

const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-bench-million-'));
const dataDir = path.join(dir, 'stowage');
const prof = process.env.STOWAGE_BENCH_CPU_PROF;

/** Resident set size (kB) of `pid` and of every process under it, by pid. */
function rssTree(pid: number): Map<number, { kb: number; cmd: string }> {
  const parents = new Map<number, number>();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const s = readFileSync(`/proc/${p}/stat`, 'utf8');
      parents.set(Number(p), Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out = new Map<number, { kb: number; cmd: string }>();
  for (const p of parents.keys()) {
    let at: number | undefined = p;
    for (let hops = 0; at && at !== pid && hops < 64; hops++) at = parents.get(at);
    if (at !== pid) continue;
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean).slice(-2).join(' ');
      out.set(p, { kb, cmd });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function printRss(when: string, s: RunningStowage): void {
  const tree = rssTree(s.pid);
  const total = [...tree.values()].reduce((a, b) => a + b.kb, 0);
  const main = tree.get(s.pid)?.kb ?? NaN;
  const others = [...tree].filter(([p]) => p !== s.pid).map(([p, v]) => `${p} ${v.cmd}: ${mib(v.kb)}`);
  console.log(`  RSS ${when}: main process ${mib(main)}, every Stowage process ${mib(total)} (goal: controllers < 1 GiB)${others.length ? ` [${others.join('; ')}]` : ''}; ${load()}`);
}

interface Api {
  request(method: string, p: string, body?: unknown, accept?: string): Promise<{ status: number; text: string }>;
  token: string;
  ca: string;
  url: URL;
  close(): void;
}

function apiOf(s: RunningStowage): Api {
  const kubeconfig = readFileSync(path.join(dataDir, 'admin.kubeconfig'), 'utf8');
  const token = /token:\s*(\S+)/.exec(kubeconfig)?.[1] ?? '';
  const agent = new https.Agent({ keepAlive: true, maxSockets: 16, ca: s.caPem });
  const url = new URL(s.apiUrl);
  return {
    request: (method, p, body, accept) => httpsRequest(agent, url, token, method, p, body, accept),
    token,
    ca: s.caPem,
    url,
    close: () => agent.destroy(),
  };
}

async function must(api: Api, method: string, p: string, body?: unknown): Promise<any> {
  let r = await api.request(method, p, body);
  for (let i = 0; i < 5 && r.status === 503; i++) {
    console.log(`  ${method} ${p}: 503 (${r.text.slice(0, 160)}), again in 1 s`);
    await new Promise((x) => setTimeout(x, 1000));
    r = await api.request(method, p, body);
  }
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
  return JSON.parse(r.text);
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, limitMs = 60_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const volume = (name: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: '', persistentVolumeReclaimPolicy: 'Retain', nfs: { server: '10.0.0.1', path: `/exports/${name}` } },
});
const claim = (name: string, cls: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], storageClassName: cls, resources: { requests: { storage: '1Gi' } } },
});

const T = { pvBound: 'tmplpvbound', pvcBound: 'tmplpvcbound', pvAvail: 'tmplpvavail', pvcPending: 'tmplpvcpending', ns: 'tmplns' };

/** Phase 1: the templates and the namespaces, made by the real system. */
async function makeTemplates(url: string): Promise<void> {
  const t0 = now();
  const s = await startStowage({ databaseUrl: url, dataDir, apiWorkers: 0 });
  const api = apiOf(s);
  try {
    const nsNames = [T.ns, ...Array.from({ length: NAMESPACES }, (_, i) => `ns-${String(i).padStart(4, '0')}`)];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < nsNames.length) {
          const name = nsNames[next++];
          await must(api, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
        }
      }),
    );
    await must(api, 'POST', '/apis/storage.k8s.io/v1/storageclasses', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: WFFC },
      provisioner: 'kubernetes.io/no-provisioner',
      volumeBindingMode: 'WaitForFirstConsumer',
    });
    const pv = (name: string) => api.request('GET', `/api/v1/persistentvolumes/${name}`).then((r) => JSON.parse(r.text));
    const pvc = (name: string) => api.request('GET', `/api/v1/namespaces/${T.ns}/persistentvolumeclaims/${name}`).then((r) => JSON.parse(r.text));
    await must(api, 'POST', '/api/v1/persistentvolumes', volume(T.pvBound));
    await until('the first volume Available', async () => ((await pv(T.pvBound)).status?.phase === 'Available' ? true : undefined));
    await must(api, 'POST', `/api/v1/namespaces/${T.ns}/persistentvolumeclaims`, claim(T.pvcBound, ''));
    await until('the first claim Bound', async () => {
      const [v, c] = [await pv(T.pvBound), await pvc(T.pvcBound)];
      return v.status?.phase === 'Bound' && c.status?.phase === 'Bound' && c.metadata.annotations?.['pv.kubernetes.io/bind-completed'] ? true : undefined;
    });
    await must(api, 'POST', '/api/v1/persistentvolumes', volume(T.pvAvail));
    await until('the second volume Available', async () => ((await pv(T.pvAvail)).status?.phase === 'Available' ? true : undefined));
    await must(api, 'POST', `/api/v1/namespaces/${T.ns}/persistentvolumeclaims`, claim(T.pvcPending, WFFC));
    await until('the waiting claim explained', async () => ((await pvc(T.pvcPending)).metadata.annotations?.['stowage.io/binding-explanation'] ? true : undefined));
    await s.quiet(30_000);
  } finally {
    api.close();
    await s.stop();
  }
  console.log(`templates and ${NAMESPACES} namespaces made by a first \`stowage start\` through its REST API and controllers in ${sec(now() - t0)}`);
}

const literal = (v: string) => `'${v.replace(/'/g, "''")}'`;
const COL_TYPES = ['text', 'text', 'numeric', 'int', 'text', 'text', 'text', 'text', 'text', 'text', 'boolean', 'numeric'];
const COLS = ['phase', 'storage_class', 'capacity_bytes', 'access_modes', 'volume_mode', 'claim_namespace', 'claim_name', 'claim_uid', 'node_name', 'volume_name', 'provisioning', 'used_bytes'] as const;

interface Template {
  kind: 'PersistentVolume' | 'PersistentVolumeClaim';
  text: string;
  row: Record<string, unknown>;
  logType: string;
  action: string;
  actor: string;
}

/** The template rows, tokenised: @PV@ @PVC@ @NS@ @PVUID@ @PVCUID@ @RV@ @CRV@ @TS@. */
async function readTemplates(url: string): Promise<Record<'pvBound' | 'pvcBound' | 'pvAvail' | 'pvcPending', Template>> {
  const [objs, logs] = await runStatements(url, [
    { sql: `SELECT id::text AS id, kind, namespace, name, resource_version::text AS rv, object::text AS text, labels::text AS labels, ${COLS.join(', ')} FROM objects WHERE name = ANY($1)`, params: [[T.pvBound, T.pvcBound, T.pvAvail, T.pvcPending]] },
    {
      sql: `SELECT DISTINCT ON (h.rv) h.rv::text AS rv, h.type, h.action, h.actor FROM history h JOIN change_log l ON l.rv = h.rv WHERE h.name = ANY($1) ORDER BY h.rv`,
      params: [[T.pvBound, T.pvcBound, T.pvAvail, T.pvcPending]],
    },
  ]);
  const byName = new Map(objs.rows.map((r) => [r.name as string, r]));
  const uids = { pv: [T.pvBound, T.pvAvail].map((n) => byName.get(n)!.id as string), pvc: [T.pvcBound, T.pvcPending].map((n) => byName.get(n)!.id as string) };
  const out = {} as Record<'pvBound' | 'pvcBound' | 'pvAvail' | 'pvcPending', Template>;
  for (const key of ['pvBound', 'pvcBound', 'pvAvail', 'pvcPending'] as const) {
    const row = byName.get(T[key])!;
    const hist = logs.rows.find((h) => h.rv === row.rv);
    if (!hist) throw new Error(`template ${T[key]}: no change-log/history row at its version ${String(row.rv)}`);
    let text = row.text as string;
    text = text.split(`"resourceVersion":"${String(row.rv)}"`).join('"resourceVersion":"@RV@"');
    text = text.replace(/"resourceVersion":"\d+"/g, '"resourceVersion":"@CRV@"');
    for (const [from, to] of [
      [T.pvcPending, '@PVC@'],
      [T.pvcBound, '@PVC@'],
      [T.pvBound, '@PV@'],
      [T.pvAvail, '@PV@'],
      [T.ns, '@NS@'],
      ...uids.pv.map((u) => [u, '@PVUID@']),
      ...uids.pvc.map((u) => [u, '@PVCUID@']),
    ] as [string, string][])
      text = text.split(from).join(to);
    text = text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '@TS@');
    if (/tmpl|[0-9a-f]{8}-[0-9a-f]{4}-/.test(text)) throw new Error(`template ${T[key]} still names a template: ${text}`);
    out[key] = { kind: row.kind as Template['kind'], text, row, logType: hist.type as string, action: hist.action as string, actor: hist.actor as string };
  }
  return out;
}

/**
 * Phase 2: the bulk load. Index g (1..N) names pv-g and pvc-g (in ns-((g-1) % namespaces));
 * volume g's version is base+g, claim g's base+N+g.
 */
async function bulkLoad(url: string, t: Awaited<ReturnType<typeof readTemplates>>): Promise<{ base: bigint; max: bigint }> {
  const [seq] = await runStatements(url, [{ sql: `SELECT nextval('resource_version_seq')::text AS v` }]);
  const base = BigInt(seq.rows[0].v as string);
  const max = base + BigInt(2 * N);
  const ns = `'ns-' || lpad(((g - 1) % ${NAMESPACES})::text, 4, '0')`;
  const expr = {
    '@PV@': `'pv-' || ${pad('g')}`,
    '@PVC@': `'pvc-' || ${pad('g')}`,
    '@NS@': ns,
    '@PVUID@': `md5('pv' || g)::uuid::text`,
    '@PVCUID@': `md5('pvc' || g)::uuid::text`,
    '@TS@': `to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`,
  };
  const statements: { what: string; sql: string; params: unknown[]; before?: () => Promise<void> }[] = [];
  for (const [key, from, to] of [
    ['pvBound', 1, BOUND],
    ['pvAvail', BOUND + 1, N],
    ['pvcBound', 1, BOUND],
    ['pvcPending', BOUND + 1, N],
  ] as const) {
    const tm = t[key];
    const isPv = tm.kind === 'PersistentVolume';
    const rv = isPv ? `(${base} + g)` : `(${base + BigInt(N)} + g)`;
    let obj = '$1::text';
    for (const [tok, e] of Object.entries({ ...expr, '@RV@': `${rv}::text`, '@CRV@': `(${base + BigInt(N)} + g - 1)::text` })) obj = `replace(${obj}, '${tok}', ${e})`;
    // Each indexed column as the template row has it; a column holding a template's name,
    // namespace or uid holds the row's own.
    const cols = COLS.map((c, i) => {
      const v = tm.row[c];
      if (v === null || v === undefined) return 'NULL';
      if (v === T.ns) return ns;
      if (v === T.pvBound || v === T.pvAvail) return expr['@PV@'];
      if (v === T.pvcBound || v === T.pvcPending) return expr['@PVC@'];
      if (v === t.pvcBound.row.id) return expr['@PVCUID@'];
      return `${literal(String(v))}::${COL_TYPES[i]}`;
    });
    const params = [tm.text, tm.row.labels];
    statements.push({
      what: `${to - from + 1} ${key} objects`,
      // The waiting claims' explanation names the volumes nearest to them: those of the load.
      before: key === 'pvcPending' ? () => explainPending(url, tm) : undefined,
      sql: `INSERT INTO objects (id, kind, namespace, name, resource_version, object, labels, created_at, deletion_timestamp, ${COLS.join(', ')})
            SELECT md5('${isPv ? 'pv' : 'pvc'}' || g)::uuid, '${tm.kind}', ${isPv ? "''" : ns}, ${isPv ? expr['@PV@'] : expr['@PVC@']}, ${rv}, ${obj}::json, $2::jsonb, ts, NULL,
                   ${cols.join(', ')}
              FROM (SELECT g, now() - interval '30 days' + g * interval '1 second' + ${isPv ? "interval '0'" : "interval '500 ms'"} AS ts
                      FROM generate_series(${from}, ${to}) g) s`,
      params,
    });
    statements.push({
      what: `their change_log rows`,
      sql: `INSERT INTO change_log (rv, type, kind, namespace, name, object, created_at)
            SELECT resource_version, $1, kind, namespace, name, object, created_at FROM objects
             WHERE resource_version BETWEEN ${isPv ? base + BigInt(from) : base + BigInt(N + from)} AND ${isPv ? base + BigInt(to) : base + BigInt(N + to)}`,
      params: [tm.logType],
    });
    statements.push({
      what: `their history rows`,
      sql: `INSERT INTO history (rv, type, action, actor, kind, namespace, name, uid, involved_uid, object, created_at, storage_class, capacity_bytes, phase)
            SELECT resource_version, $1, $2, $3, kind, namespace, name, id::text, NULL, object, created_at, coalesce(storage_class, ''), coalesce(capacity_bytes, 0), phase FROM objects
             WHERE resource_version BETWEEN ${isPv ? base + BigInt(from) : base + BigInt(N + from)} AND ${isPv ? base + BigInt(to) : base + BigInt(N + to)}`,
      params: [tm.logType, tm.action, tm.actor],
    });
  }
  statements.push({ what: 'the version sequence', sql: `SELECT setval('resource_version_seq', ${max})`, params: [] });
  statements.push({ what: 'the settled prefix', sql: `UPDATE store_meta SET settled_rv = ${max} WHERE id = 1`, params: [] });
  const t0 = now();
  for (const s of statements) {
    await s.before?.();
    if (s.before) s.params[0] = t.pvcPending.text;
    const [r] = await runStatements(url, [{ sql: s.sql, params: s.params }]);
    console.log(`  ${s.what}: ${sec(r.ms)}`);
  }
  const loaded = now() - t0;
  console.log(`loaded ${N} volumes + ${N} claims (objects, change_log, history) with SQL in ${sec(loaded)}: ${((2 * N) / (loaded / 1000)).toFixed(0)} objects/s; ${load()}`);
  const t1 = now();
  await settleDatabase(url);
  console.log(`VACUUM (ANALYZE) + CHECKPOINT: ${sec(now() - t1)}`);
  const [size] = await runStatements(url, [
    { sql: `SELECT relname, pg_size_pretty(pg_total_relation_size(oid)) AS size FROM pg_class WHERE relname IN ('objects', 'change_log', 'history') ORDER BY relname` },
  ]);
  console.log(`  table sizes (with indexes): ${size.rows.map((r) => `${String(r.relname)} ${String(r.size)}`).join(', ')}`);
  return { base, max };
}

/**
 * The explanation the binder writes on a waiting claim lists the Available volumes nearest
 * to it, so the template's (made when only the templates existed) is made again over the
 * loaded volumes, as the binder's keepPending makes it (pending.ts: nearVolumes, explain).
 */
async function explainPending(url: string, tm: Template): Promise<void> {
  const store = new ObjectStore(url, 1);
  await store.start();
  try {
    const c = JSON.parse(tm.text);
    const near = await nearVolumes(store, {
      storageClass: claimClass(c),
      volumeMode: c.spec?.volumeMode ?? 'Filesystem',
      accessModes: accessModesToBits(c.spec?.accessModes ?? []),
      minBytes: quantityToBytes(requestedStorage(c)).toString(),
      limit: 4,
    });
    const { explanation } = explain(c, { kind: 'waitForFirstConsumer', className: WFFC }, near, new Date(), { delayBinding: true });
    c.metadata.annotations[annBindingExplanation] = serializeExplanation({ ...explanation, evaluatedAt: '@TS@' });
    tm.text = JSON.stringify(c);
  } finally {
    await store.stop();
  }
}

/** Reads a sample of every shape back through the store and checks it as the kinds would. */
async function validateSample(url: string): Promise<void> {
  const store = new ObjectStore(url, 2);
  await store.start();
  try {
    const gs = [1, 2, Math.floor(BOUND / 2), BOUND, BOUND + 1, Math.floor((BOUND + N) / 2), N];
    const cols = await runStatements(url, [
      { sql: `SELECT kind, namespace, name, resource_version::text AS rv, ${COLS.join(', ')} FROM objects WHERE name = ANY($1)`, params: [gs.flatMap((g) => [`pv-${String(g).padStart(7, '0')}`, `pvc-${String(g).padStart(7, '0')}`])] },
      { sql: `SELECT count(*)::int AS n FROM objects o JOIN change_log l ON l.rv = o.resource_version AND l.name = o.name AND l.object::text = o.object::text WHERE o.name LIKE 'pv%-%'` },
    ]);
    let problems = 0;
    for (const g of gs) {
      const ns = `ns-${String((g - 1) % NAMESPACES).padStart(4, '0')}`;
      const pv = await store.get('PersistentVolume', undefined, `pv-${String(g).padStart(7, '0')}`);
      const pvc = await store.get('PersistentVolumeClaim', ns, `pvc-${String(g).padStart(7, '0')}`);
      for (const o of [pv, pvc] as any[]) {
        const s = strategyOf(o.kind);
        const errs = [...s.validateShape(o), ...s.validate(o)];
        const row = cols[0].rows.find((r) => r.name === o.metadata.name && r.kind === o.kind)!;
        const want = fullColumns(s.columns(o)) as Record<string, unknown>;
        const camel = (c: string) => c.replace(/_(\w)/g, (_, x: string) => x.toUpperCase());
        const diff = COLS.filter((c) => String(row[c] ?? null) !== String(want[camel(c)] ?? null));
        if (row.rv !== o.metadata.resourceVersion) diff.push('resource_version' as never);
        if (errs.length || diff.length) {
          problems++;
          console.log(`  ${o.kind} ${o.metadata.name}: ${errs.map((e) => `${e.field} ${e.message}`).join('; ')} columns differing: ${diff.join(', ')}`);
        }
      }
      const bound = g <= BOUND;
      const consistent = bound
        ? pv.spec?.claimRef?.uid === pvc.metadata.uid && pv.spec?.claimRef?.name === pvc.metadata.name && pv.spec?.claimRef?.namespace === ns && pvc.spec?.volumeName === pv.metadata.name && pv.status?.phase === 'Bound' && pvc.status?.phase === 'Bound'
        : !pv.spec?.claimRef && !pvc.spec?.volumeName && pv.status?.phase === 'Available' && pvc.status?.phase === 'Pending';
      if (!consistent) {
        problems++;
        console.log(`  pair ${g} not as loaded: ${JSON.stringify(pv)} ${JSON.stringify(pvc)}`);
      }
    }
    console.log(
      `sample read back through the store: ${gs.length} volumes and ${gs.length} claims, validation, indexed columns, resourceVersions and pairs: ${problems ? `${problems} PROBLEMS` : 'all as the kinds want'}; ` +
        `objects whose change_log row at their version holds the same object: ${String(cols[1].rows[0].n)} of ${2 * N}`,
    );
  } finally {
    await store.stop();
  }
}

/** The first page of a list: `n` timings of the HTTP request itself (ms) and the page's size. */
async function timePage(api: Api, p: string, n: number, accept?: string): Promise<{ ms: number[]; items: number; bytes: number; failed: string[] }> {
  const ms: number[] = [];
  const failed: string[] = [];
  let items = 0;
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const t0 = now();
    const r = await api.request('GET', p, undefined, accept);
    if (r.status !== 200) {
      failed.push(`${r.status} after ${(now() - t0).toFixed(0)} ms: ${r.text.slice(0, 160)}`);
      continue;
    }
    ms.push(now() - t0);
    const body = JSON.parse(r.text);
    items = (body.items ?? body.rows ?? []).length;
    bytes = r.text.length;
  }
  if (failed.length) console.log(`  ${failed.length} of ${n} GET ${p} failed, e.g. ${failed[0]}`);
  return { ms, items, bytes, failed };
}

/**
 * The real kubectl `get pv --chunk-size=500` (-v=6, its discovery cached in the data dir as a
 * user's would be after the first run): the first page's request as kubectl itself times it,
 * and spawn to that line (ms). kubectl prints its table only once every page is read, so it
 * is stopped after the first page.
 */
function timeKubectl(api: Api, what: string[]): Promise<{ firstPage: number; request: number }> {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const k = spawn(
      '/usr/bin/kubectl',
      ['--kubeconfig', path.join(dataDir, 'admin.kubeconfig'), '--server', api.url.origin, '--cache-dir', path.join(dir, 'kube-cache'), '-v=6', ...what, '--chunk-size=500'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    let done = false;
    k.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /GET \S*limit=500 200 OK in (\d+) milliseconds/.exec(err);
      if (m && !done) {
        done = true;
        resolve({ firstPage: now() - t0, request: Number(m[1]) });
        k.kill('SIGTERM');
      }
    });
    k.once('exit', (code) => {
      if (!done) reject(new Error(`kubectl exited ${code}: ${err.slice(-500)}`));
    });
  });
}

/** New claims, one at a time: create's response to Bound on a claim watch (ms). */
async function bindLatency(api: Api): Promise<number[]> {
  const ns = 'million-bench';
  await must(api, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const startRv = (await must(api, 'GET', `/api/v1/namespaces/${ns}/persistentvolumeclaims?limit=1`)).metadata.resourceVersion;
  const bound = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const watch = watchClaimsBound(api, ns, startRv, (name) => {
    bound.set(name, now());
    waiters.get(name)?.();
  });
  await new Promise((r) => setTimeout(r, 500));
  const lat: number[] = [];
  try {
    for (let i = 0; i < NEW_CLAIMS; i++) {
      const name = `new-${i}`;
      const seen = new Promise<void>((r) => waiters.set(name, r));
      const t0 = now();
      await must(api, 'POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, claim(name, ''));
      const tCreated = now();
      await Promise.race([seen, new Promise((r) => setTimeout(r, 30_000))]);
      const at = bound.get(name);
      lat.push(at === undefined ? NaN : at - tCreated);
      if (i === 0) console.log(`  first new claim: create answered in ${(tCreated - t0).toFixed(0)} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    watch.destroy();
  }
  return lat;
}

/** A claim the real binder bound at this size beside a loaded pair: the keys each has. */
async function compareWithRealBinding(api: Api): Promise<void> {
  const c = await must(api, 'GET', '/api/v1/namespaces/million-bench/persistentvolumeclaims/new-0');
  if (!c.spec?.volumeName) return;
  const v = await must(api, 'GET', `/api/v1/persistentvolumes/${c.spec.volumeName}`);
  const lc = await must(api, 'GET', `/api/v1/namespaces/ns-0000/persistentvolumeclaims/pvc-0000001`);
  const lv = await must(api, 'GET', '/api/v1/persistentvolumes/pv-0000001');
  const paths = (o: unknown, at = ''): string[] =>
    o && typeof o === 'object' && !Array.isArray(o) ? Object.entries(o).flatMap(([k, x]) => paths(x, `${at}.${k}`)) : [at];
  const differ = (a: unknown, b: unknown) => {
    const [pa, pb] = [paths(a), paths(b)];
    return [...pa.filter((p) => !pb.includes(p)).map((p) => `-${p}`), ...pb.filter((p) => !pa.includes(p)).map((p) => `+${p}`)];
  };
  const d = [...differ(lv, v).map((x) => `PV ${x}`), ...differ(lc, c).map((x) => `PVC ${x}`)];
  console.log(`  a pair the binder bound now vs a loaded pair, fields only one has: ${d.length ? d.join(', ') : 'none'}; bound to ${String(c.spec.volumeName)}`);
}

const pg = await startEmbeddedPostgres(path.join(dir, 'pg'), { settings: ['max_wal_size=8GB', 'maintenance_work_mem=512MB'] });
let stowage: RunningStowage | undefined;
try {
  console.log(`Stowage million-volume benchmark: ${N} volumes + ${N} claims (${BOUND} pairs Bound, ${N - BOUND} volumes Available, ${N - BOUND} claims Pending in a WaitForFirstConsumer class), ${NAMESPACES} namespaces; ${os.cpus().length} CPUs, ${load()}`);
  const url = await ensureDatabase(pg.baseUrl, 'stowage_million');
  await migrate(url);
  await makeTemplates(url);
  const templates = await readTemplates(url);
  const { max } = await bulkLoad(url, templates);
  await validateSample(url);

  // Phase 3: the measured start.
  const t0 = now();
  stowage = await startStowage({ databaseUrl: url, dataDir, apiWorkers: 0, nodeFlags: prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [] });
  const tReady = now() - t0;
  const api = apiOf(stowage);
  try {
    const tz = now();
    const healthz = await api.request('GET', '/readyz');
    console.log(`start-up: spawn -> API URL printed and "Press Ctrl-C" ${sec(tReady)} (goal <= 60 s); /readyz then answered ${healthz.status} in ${(now() - tz).toFixed(0)} ms; ${load()}`);
    const cpu0 = stowage.cpuMs();
    printRss('at ready', stowage);
    const tq = now();
    // Every 10 s until quiet: the Stowage processes' CPU and the writes they made since the load.
    let lastCpu = stowage.cpuMs();
    const running = stowage;
    const sampler = setInterval(() => {
      const cpu = running.cpuMs();
      void runStatements(url, [{ sql: `SELECT count(*)::int AS n FROM history WHERE rv > $1`, params: [String(max)] }]).then(([r]) => {
        console.log(`    +${sec(now() - tq)}: Stowage CPU ${((cpu - lastCpu) / 100).toFixed(0)} % of a core over 10 s, ${String(r.rows[0].n)} writes since the load, RSS main ${mib(rssTree(running.pid).get(running.pid)?.kb ?? NaN)}; ${load()}`);
        lastCpu = cpu;
      });
    }, 10_000);
    // The resync never stops (paced: controller.ts's RESYNC_KEYS_PER_SECOND), so at a large
    // size the processes may never be quiet: STOWAGE_BENCH_QUIET_LIMIT_MS bounds both waits.
    const quietLimit = Number(process.env.STOWAGE_BENCH_QUIET_LIMIT_MS ?? 900_000);
    await stowage.quiet(quietLimit);
    const tStowageQuiet = now() - tq;
    // Stowage's processes may be idle while Postgres still works for them (its queries).
    const pgCpu = () => postgresCpuMs(path.join(dir, 'pg', 'postgres')) ?? NaN;
    for (let calm = 0, last = pgCpu(), limit = Date.now() + Math.min(300_000, quietLimit); calm < 4 && Date.now() < limit; ) {
      await new Promise((r) => setTimeout(r, 500));
      const c = pgCpu();
      calm = c - last < 50 ? calm + 1 : 0;
      last = c;
    }
    console.log(`  Stowage's processes quiet ${sec(tStowageQuiet)} after ready; Postgres too (< 10 % of a core for 2 s) ${sec(now() - tq)} after ready`);
    clearInterval(sampler);
    console.log(`  controllers quiet (every Stowage process < 5 % of a core for 2 s) ${sec(now() - tq)} after ready (${sec(now() - t0)} after spawn), using ${sec(stowage.cpuMs() - cpu0)} CPU meanwhile; ${load()}`);
    printRss('after start-up', stowage);
    const [writes] = await runStatements(url, [
      { sql: `SELECT actor, kind, action, count(*)::int AS n FROM history WHERE rv > $1 GROUP BY 1, 2, 3 ORDER BY n DESC LIMIT 10`, params: [String(max)] },
    ]);
    console.log(`  writes made during start-up (history after the load, by writer): ${writes.rows.length ? writes.rows.map((w) => `${String(w.actor)} ${String(w.kind)} ${String(w.action)} ${String(w.n)}`).join('; ') : 'none'}`);

    // One loaded object the controllers rewrote, if any: what they changed.
    const [changed] = await runStatements(url, [
      {
        sql: `SELECT h.kind, h.name, h.action, h.actor, h.object::text AS after, l.object::text AS before FROM history h JOIN history l ON l.uid = h.uid AND l.rv <= $1
               WHERE h.rv > $1 AND h.kind IN ('PersistentVolume', 'PersistentVolumeClaim') ORDER BY h.rv LIMIT 1`,
        params: [String(max)],
      },
    ]);
    for (const r of changed.rows) {
      const flat = (o: unknown, at = ''): Map<string, string> =>
        o && typeof o === 'object' ? new Map([...Object.entries(o)].flatMap(([k, x]) => [...flat(x, `${at}.${k}`)])) : new Map([[at, JSON.stringify(o)]]);
      const [a, b] = [flat(JSON.parse(r.before as string)), flat(JSON.parse(r.after as string))];
      const diff = [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k) && k !== '.metadata.resourceVersion');
      console.log(`  e.g. ${String(r.actor)} ${String(r.action)} of loaded ${String(r.kind)} ${String(r.name)} changed: ${diff.map((k) => `${k}: ${a.get(k) ?? '-'} -> ${b.get(k) ?? '-'}`).join('; ')}`);
    }

    const pvPage = await timePage(api, '/api/v1/persistentvolumes?limit=500', 10);
    console.log(`GET /api/v1/persistentvolumes?limit=500 (JSON, ${pvPage.items} items, ${(pvPage.bytes / 1024).toFixed(0)} KiB) x10: p50 ${pct(pvPage.ms, 50).toFixed(0)} ms, max ${Math.max(...pvPage.ms).toFixed(0)} ms (goal <= 300 ms); ${load()}`);
    const pvTable = await timePage(api, '/api/v1/persistentvolumes?limit=500', 10, 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json');
    console.log(`  as kubectl asks (Table): p50 ${pct(pvTable.ms, 50).toFixed(0)} ms, max ${Math.max(...pvTable.ms).toFixed(0)} ms; ${load()}`);
    const tv = now();
    await new Promise((r) => spawn('/usr/bin/kubectl', ['version', '--client'], { stdio: 'ignore' }).once('exit', r));
    console.log(`  kubectl's own start (kubectl version --client, spawn -> exit): ${(now() - tv).toFixed(0)} ms; ${load()}`);
    const kubectl: { firstPage: number; request: number }[] = [];
    for (let i = 0; i < 6; i++) {
      kubectl.push(
        await timeKubectl(api, ['get', 'pv']).catch((err: Error) => {
          console.log(`  kubectl failed: ${err.message.slice(-300)}`);
          return { firstPage: NaN, request: NaN };
        }),
      );
    }
    const warm = kubectl.slice(1); // the first run fills kubectl's discovery cache
    const [rows, reqs] = [warm.map((x) => x.firstPage).filter((x) => !Number.isNaN(x)), warm.map((x) => x.request).filter((x) => !Number.isNaN(x))];
    console.log(
      `  real kubectl get pv --chunk-size=500 x5 (discovery cached; the first run, which fills the cache, ${kubectl[0].firstPage.toFixed(0)} ms, not counted): ` +
        `the first page's request as kubectl times it p50 ${pct(reqs, 50).toFixed(0)} ms, max ${Math.max(...reqs).toFixed(0)} ms; spawn -> that request answered p50 ${pct(rows, 50).toFixed(0)} ms, max ${Math.max(...rows).toFixed(0)} ms (kubectl's own start included; it prints its table only after the last page); ${load()}`,
    );
    const pvcPage = await timePage(api, '/api/v1/namespaces/ns-0000/persistentvolumeclaims?limit=500', 10);
    console.log(`GET one namespace's claims ?limit=500 (${pvcPage.items} items of ${Math.min(PER_NS, N)}) x10: p50 ${pct(pvcPage.ms, 50).toFixed(0)} ms, max ${Math.max(...pvcPage.ms).toFixed(0)} ms; ${load()}`);
    const allPvc = await timePage(api, '/api/v1/persistentvolumeclaims?limit=500', 5);
    console.log(`GET every namespace's claims ?limit=500 x5: p50 ${pct(allPvc.ms, 50).toFixed(0)} ms, max ${Math.max(...allPvc.ms).toFixed(0)} ms; ${load()}`);

    const lat = await bindLatency(api);
    const ok = lat.filter((x) => !Number.isNaN(x));
    console.log(
      `new claims one at a time (${NEW_CLAIMS}), create response -> Bound on a watch: p50 ${pct(ok, 50)?.toFixed(0)} ms, p99 ${pct(ok, 99)?.toFixed(0)} ms, max ${Math.max(...ok).toFixed(0)} ms, ${lat.length - ok.length} not Bound within 30 s (goal <= 50 ms); ${load()}`,
    );
    await compareWithRealBinding(api);
    printRss('after the claims', stowage);
    const [later] = await runStatements(url, [
      { sql: `SELECT actor, kind, action, count(*)::int AS n FROM history WHERE rv > $1 GROUP BY 1, 2, 3 ORDER BY n DESC LIMIT 8`, params: [String(max)] },
    ]);
    console.log(`  every write since the load, by writer, at the end (${sec(now() - t0)} after spawn): ${later.rows.map((w) => `${String(w.actor)} ${String(w.kind)} ${String(w.action)} ${String(w.n)}`).join('; ')}`);
  } finally {
    api.close();
  }
} finally {
  await stowage?.stop();
  await pg.stop();
  if (args['keep-dir']) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
