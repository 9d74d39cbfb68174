// `npm run chaos [-- --short | --duration SECONDS] [--seed N] [--node-lost | --no-node-lost]`:
// a steady workload against a real topology (see ../cluster/topology.ts) while servers,
// controllers and agents are SIGKILLed and SIGSTOPped, an agent's network is cut, Postgres
// restarts and fails over to its synchronous standby; last (in the full run, or with
// --node-lost), a replicated claim's node goes down and comes back (node-failover.ts:
// the claim runs on its replica with the acknowledged data; the returned node is fenced and
// resynced), and a node is lost for good and its claims are restored from their backups on
// another node (node-lost.ts). Then it checks the invariants (invariants.ts) and prints
// counts per fault and per invariant, and the failover figures. Exit status 1 on any violation.
import { closeSync, existsSync, openSync, readFileSync, readSync, rmSync, writeSync, fsyncSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { kubeRequest, type KubeTarget } from '../cluster/kube';
import { chaosPortBase } from '../cluster/settings';
import { DISK_CLASS, Topology } from '../cluster/topology';
import { loseNodeAndRestore, planNodeLost, prepareNodeLost } from './node-lost';
import { prepareNodeFailover, runNodeFailover } from './node-failover';
import { ResumingWatch, untilDone, withOneRetry, type WatchEvent } from './client';
import {
  acknowledgedWritesDurable,
  acknowledgedWritesPresent,
  convergedInTime,
  exclusiveBindings,
  failoverKeptAcknowledgedData,
  gapFreeWatches,
  noOfferBeforeWipe,
  noOverlappingWipes,
  oneWritableCopy,
  restoredFromLastBackup,
  writesResumedInTime,
  type AckedWrite,
  type BindingObservation,
  type CommittedChange,
  type FailoverOutcome,
  type OfferObservation,
  type RecordedChange,
  type RestoreOutcome,
  type Verdict,
} from './invariants';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const say = (m: string) => process.stdout.write(`${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NS = 'chaos';
const CONVERGE_LIMIT_MS = 60_000;
const WRITE_STALL_LIMIT_MS = 15_000;

function args() {
  const a = process.argv.slice(2);
  const num = (name: string, fallback: number) => {
    const i = a.indexOf(`--${name}`);
    if (i < 0) return fallback;
    const n = Number(a[i + 1]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive whole number`);
    return n;
  };
  const short = a.includes('--short');
  return {
    durationMs: num('duration', short ? 75 : 300) * 1000,
    seed: num('seed', Date.now() % 100_000),
    clients: num('clients', 50),
    short,
    keep: a.includes('--keep'),
    // The "node lost" fault (node-lost.ts): a btrfs pool per node, backups, then one node
    // lost for good after the other faults and their convergence check. In the full run;
    // the short one (CI) has it only when asked for with --node-lost.
    nodeLost: a.includes('--node-lost') || (!short && !a.includes('--no-node-lost')),
    ifPossible: a.includes('--if-possible'),
  };
}

/** A small seeded generator, so a run can be repeated (--seed). */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
}

type FaultKind = 'node-lost' | 'node-failover' | 'kill-server' | 'stop-server' | 'kill-controllers' | 'stop-controllers' | 'kill-agent' | 'cut-agent-network' | 'kill-postgres' | 'failover';

interface Fault {
  kind: FaultKind;
  target: string;
  at: number;
  until: number;
}

class Stats {
  requests = 0;
  retried = 0;
  failedAfterRetry = 0;
  failedByFault = new Map<string, number>();
  ok = 0;
}

async function main(): Promise<void> {
  const opt = args();
  const rand = rng(opt.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const missing = await Topology.missing();
  if (missing) {
    // `npm test` runs the short form with --if-possible: a machine without root, Postgres
    // binaries or HAProxy skips it, saying why.
    say(`chaos: ${opt.ifPossible ? 'skipped' : 'cannot run'}: this machine cannot run the topology: ${missing}`);
    process.exit(opt.ifPossible ? 0 : 2);
  }
  const dir = path.join(os.tmpdir(), `stowage-chaos-${process.pid}`);
  // Its own ports, namespaces and Postgres data (named by the base), beside any `npm run cluster`.
  const portBase = chaosPortBase(process.env);
  const t = new Topology({ dir, kind: 'x', portBase, servers: 3, controllers: 2, agents: 3, disksPerNode: 2, pools: opt.nodeLost, root, log: (m) => say(`[topology] ${m}`) });
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    say('Stopping the topology ...');
    await t.down().catch((e) => say(`teardown: ${(e as Error).message}`));
    // A failed run keeps its logs for a look afterwards.
    if (!opt.keep && process.exitCode !== 1) rmSync(dir, { recursive: true, force: true });
    else say(`Logs kept in ${dir}/logs`);
  };
  process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
  const started = Date.now();
  say(`chaos: seed ${opt.seed}, ${opt.durationMs / 1000} s of faults, ${opt.clients} clients; logs in ${dir}/logs`);
  try {
    await t.up();
    say(`[topology] up in ${Math.round((Date.now() - started) / 1000)} s`);
    const k = t.kube!;
    await untilDone(k, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, Date.now() + 30_000, (s) => s === 201 || s === 409);
    const report = await runChaos(t, k, opt, rand, pick);
    printReport(report);
    process.exitCode = report.verdicts.some(([, v]) => v.violations.length > 0) ? 1 : 0;
  } catch (e) {
    say(`chaos: FAILED to run: ${(e as Error).stack ?? String(e)}`);
    process.exitCode = 1;
  } finally {
    await cleanup();
  }
}

interface Report {
  verdicts: [string, Verdict][];
  faults: Map<FaultKind, number>;
  stats: Stats;
  figures: [string, string][];
  workload: [string, number][];
}

async function runChaos(t: Topology, k: KubeTarget, opt: ReturnType<typeof args>, rand: () => number, pick: <T>(xs: readonly T[]) => T): Promise<Report> {
  const stats = new Stats();
  const faults: Fault[] = [];
  const acked = new Set<string>();
  const deletedByUs = new Set<string>();
  /** Every acknowledged create of any kind, as its answer returned it (checked against the history). */
  const ackedWrites: AckedWrite[] = [];
  const ack = (r: { status: number; body: any } | undefined) => {
    const m = r?.status === 201 ? r.body?.metadata : undefined;
    if (m?.uid && m.resourceVersion) ackedWrites.push({ kind: r!.body.kind, key: `${m.namespace ?? ''}/${m.name}`, uid: m.uid, rv: BigInt(m.resourceVersion) });
  };
  const bindings: BindingObservation[] = [];
  const offers: OfferObservation[] = [];
  /** Claim uid -> the resourceVersion of the first volume change seen binding it. */
  const boundAt = new Map<string, bigint>();
  const deletedClaims = new Set<string>();
  const workload = new Map<string, number>();
  const count = (what: string) => workload.set(what, (workload.get(what) ?? 0) + 1);
  const figures: [string, string][] = [];
  const restores: RestoreOutcome[] = [];
  /** Each Postgres fault: how long until the first acknowledged write (undefined: none). */
  const writeStalls: [string, number | undefined][] = [];
  let running = true;

  // ---- before any fault: the node to lose, its claims' data and their backups ----
  const nodeLost = opt.nodeLost ? planNodeLost(t.nodes.length, rand) : undefined;
  const lostClaims = nodeLost ? await prepareNodeLost(t, k, NS, nodeLost, rand, say) : [];
  // With pools, also a replicated claim on another node, for the node-failover fault.
  const failoverNode = nodeLost ? (nodeLost.lost + 1) % t.nodes.length : undefined;
  const replicated = failoverNode !== undefined ? [await prepareNodeFailover(t, k, NS, failoverNode, rand, say)] : [];
  const failovers: FailoverOutcome[] = [];

  // ---- watches: volumes (and what a re-offered disk holds), claims, the ledger ----
  const pvPhase = new Map<string, string>();
  const onVolume = (e: WatchEvent) => {
    const pv = e.object;
    if (e.type === 'DELETED') {
      pvPhase.delete(pv.metadata.name);
      bindings.push({ kind: 'PersistentVolume', name: pv.metadata.name, deleted: true });
      return;
    }
    bindings.push({ kind: 'PersistentVolume', name: pv.metadata.name, phase: pv.status?.phase, claimUid: pv.spec?.claimRef?.uid });
    const claimUid = pv.spec?.claimRef?.uid;
    if (claimUid && !boundAt.has(claimUid)) boundAt.set(claimUid, BigInt(pv.metadata.resourceVersion));
    const phase = pv.status?.phase;
    const was = pvPhase.get(pv.metadata.name);
    pvPhase.set(pv.metadata.name, phase);
    if (pv.spec?.storageClassName === DISK_CLASS && phase === 'Available' && was !== 'Available') {
      const device = t.deviceOf(pv.metadata.annotations?.['local.stowage.io/node'], pv.spec?.local?.path ?? '');
      if (device) offers.push({ device, pv: pv.metadata.name, rv: BigInt(pv.metadata.resourceVersion), foundClaimUid: readSignature(device) });
    }
  };
  const onClaim = (e: WatchEvent) => {
    const c = e.object;
    bindings.push({ kind: 'PersistentVolumeClaim', uid: c.metadata.uid, name: c.metadata.name, volumeName: c.spec?.volumeName || undefined, deleted: e.type === 'DELETED' });
  };
  const watches = [
    new ResumingWatch(k, 'volumes', 'PersistentVolume', '/api/v1/persistentvolumes', onVolume),
    new ResumingWatch(k, 'claims', 'PersistentVolumeClaim', '/api/v1/persistentvolumeclaims', onClaim),
    new ResumingWatch(k, 'configmaps', 'ConfigMap', `/api/v1/namespaces/${NS}/configmaps`, () => {}),
  ];
  const watchRuns = watches.map((w) => w.run());

  // A failure is put down to the latest fault that began before the request gave up and
  // had not ended more than 5 s before that.
  const activeFaultKinds = (failedAt: number) => {
    const f = faults.filter((x) => x.at <= failedAt && failedAt <= (x.until || Date.now()) + 5000).at(-1);
    return f ? [f.kind] : [];
  };

  // ---- 50 clients: reads and acknowledged creates through the load balancer ----
  const clients = Array.from({ length: opt.clients }, async (_, c) => {
    for (let seq = 0; running; seq++) {
      await sleep(300 + rand() * 400);
      const write = seq % 2 === 0;
      const name = `c${c}-${seq}`;
      const out = write
        ? await withOneRetry(k, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { seq: String(seq) } })
        : await withOneRetry(k, 'GET', `/api/v1/namespaces/${NS}/configmaps?limit=20`);
      stats.requests++;
      if (out.retried) stats.retried++;
      if (write && out.response?.status === 201) {
        acked.add(`${NS}/${name}`);
        ack(out.response);
      }
      // A retried create that finds its own first attempt landed is a success too.
      const ok = out.ok || (write && out.retried && out.response?.status === 409);
      if (ok) stats.ok++;
      else {
        stats.failedAfterRetry++;
        const kinds = activeFaultKinds(Date.now());
        for (const kind of kinds.length ? kinds : ['none']) stats.failedByFault.set(kind, (stats.failedByFault.get(kind) ?? 0) + 1);
      }
    }
  });

  // ---- claims and pods on the nodes' disks: bind, publish, write, delete, wipe ----
  const diskWorkers = Array.from({ length: t.nodes.length * t.o.disksPerNode - 1 }, async (_, w) => {
    for (let n = 0; running; n++) {
      const claim = `disk-${w}-${n}`;
      const pod = `pod-${w}-${n}`;
      const deadline = () => Date.now() + 120_000;
      const pvc = await untilDone(k, 'POST', `/api/v1/namespaces/${NS}/persistentvolumeclaims`, {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: claim },
        spec: { accessModes: ['ReadWriteOnce'], volumeMode: 'Block', storageClassName: DISK_CLASS, resources: { requests: { storage: '16Mi' } } },
      }, deadline(), (s) => s === 201 || s === 409);
      if (!pvc) continue;
      ack(pvc);
      const got = await untilDone(k, 'GET', `/api/v1/namespaces/${NS}/persistentvolumeclaims/${claim}`, undefined, deadline(), (s) => s === 200);
      const uid = got?.body?.metadata?.uid as string | undefined;
      await untilDone(k, 'POST', `/api/v1/namespaces/${NS}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: pod },
        spec: { containers: [{ name: 'app', image: 'busybox', volumeDevices: [{ name: 'data', devicePath: '/dev/xvda' }] }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }] },
      }, deadline(), (s) => s === 201 || s === 409);
      const runningPod = await waitFor(k, `/api/v1/namespaces/${NS}/pods/${pod}`, (p) => p?.status?.phase === 'Running', 120_000);
      if (runningPod) {
        count('pods running');
        const bound = await untilDone(k, 'GET', `/api/v1/namespaces/${NS}/persistentvolumeclaims/${claim}`, undefined, deadline(), (s) => s === 200);
        const pv = bound?.body?.spec?.volumeName ? await untilDone(k, 'GET', `/api/v1/persistentvolumes/${bound.body.spec.volumeName}`, undefined, deadline(), (s) => s === 200) : undefined;
        const device = pv ? t.deviceOf(pv.body.metadata.annotations?.['local.stowage.io/node'], pv.body.spec?.local?.path ?? '') : undefined;
        if (device && uid) {
          writeSignature(device, uid);
          count('disks written');
        }
      } else count('pods not running within 120 s (retried by the next cycle)');
      await untilDone(k, 'DELETE', `/api/v1/namespaces/${NS}/pods/${pod}`, undefined, deadline(), (s) => s === 200 || s === 404);
      await waitFor(k, `/api/v1/namespaces/${NS}/pods/${pod}`, (_p, status) => status === 404, 120_000);
      const del = await untilDone(k, 'DELETE', `/api/v1/namespaces/${NS}/persistentvolumeclaims/${claim}`, undefined, deadline(), (s) => s === 200 || s === 404);
      if (del && uid) {
        deletedClaims.add(uid);
        bindings.push({ kind: 'PersistentVolumeClaim', uid, name: claim, deleted: true });
      }
      await waitFor(k, `/api/v1/namespaces/${NS}/persistentvolumeclaims/${claim}`, (_p, status) => status === 404, 120_000);
      count('disk cycles');
    }
  });

  // ---- static binds: a volume and a claim that selects it ----
  const bindWorkers = Array.from({ length: 2 }, async (_, w) => {
    for (let n = 0; running; n++) {
      const name = `static-${w}-${n}`;
      const dl = Date.now() + 120_000;
      const pvCreated = await untilDone(k, 'POST', '/api/v1/persistentvolumes', {
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name, labels: { 'chaos-pair': name } },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteMany'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: '', nfs: { server: '192.0.2.1', path: `/${name}` } },
      }, dl, (s) => s === 201 || s === 409);
      ack(pvCreated);
      const claimCreated = await untilDone(k, 'POST', `/api/v1/namespaces/${NS}/persistentvolumeclaims`, {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name },
        spec: { accessModes: ['ReadWriteMany'], storageClassName: '', selector: { matchLabels: { 'chaos-pair': name } }, resources: { requests: { storage: '1Gi' } } },
      }, dl, (s) => s === 201 || s === 409);
      ack(claimCreated);
      if (await waitFor(k, `/api/v1/namespaces/${NS}/persistentvolumeclaims/${name}`, (c) => c?.status?.phase === 'Bound', 120_000)) count('static binds');
      // A snapshot of it: an acknowledged write of a third kind (nothing can take it: no
      // snapshot class serves NFS volumes; the object is what counts).
      const snap = await untilDone(k, 'POST', `/apis/snapshot.storage.k8s.io/v1/namespaces/${NS}/volumesnapshots`, {
        apiVersion: 'snapshot.storage.k8s.io/v1',
        kind: 'VolumeSnapshot',
        metadata: { name },
        spec: { source: { persistentVolumeClaimName: name } },
      }, dl, (s) => s === 201 || s === 409);
      ack(snap);
      if (snap?.status === 201) count('snapshots created');
      await untilDone(k, 'DELETE', `/apis/snapshot.storage.k8s.io/v1/namespaces/${NS}/volumesnapshots/${name}`, undefined, dl, (s) => s === 200 || s === 202 || s === 404);
      await untilDone(k, 'DELETE', `/api/v1/namespaces/${NS}/persistentvolumeclaims/${name}`, undefined, dl, (s) => s === 200 || s === 404);
      await waitFor(k, `/api/v1/namespaces/${NS}/persistentvolumeclaims/${name}`, (_c, status) => status === 404, 120_000);
      await untilDone(k, 'DELETE', `/api/v1/persistentvolumes/${name}`, undefined, dl, (s) => s === 200 || s === 404);
    }
  });

  // ---- faults ----
  const faultCounts = new Map<FaultKind, number>();
  const restartAt = Date.now() + opt.durationMs * 0.35;
  const failoverAt = Date.now() + opt.durationMs * 0.65;
  let restarted = false;
  let failedOver = false;
  const stopAt = Date.now() + opt.durationMs;
  let lastFaultEnd = Date.now();
  const inject = async (kind: FaultKind): Promise<void> => {
    const f: Fault = { kind, target: '', at: Date.now(), until: 0 };
    faults.push(f);
    faultCounts.set(kind, (faultCounts.get(kind) ?? 0) + 1);
    switch (kind) {
      case 'kill-server': {
        const s = pick(t.servers);
        f.target = s.name;
        s.signal('SIGKILL');
        break;
      }
      case 'stop-server': {
        const s = pick(t.servers);
        f.target = s.name;
        s.signal('SIGSTOP');
        await sleep(3000 + rand() * 4000);
        s.signal('SIGCONT');
        break;
      }
      case 'kill-controllers': {
        const c = pick(t.controllers);
        f.target = c.name;
        c.signal('SIGKILL');
        break;
      }
      case 'stop-controllers': {
        const c = pick(t.controllers);
        f.target = c.name;
        c.signal('SIGSTOP');
        await sleep(3000 + rand() * 4000);
        c.signal('SIGCONT');
        break;
      }
      case 'kill-agent': {
        const a = pick(t.agents);
        f.target = a.name;
        a.signal('SIGKILL');
        break;
      }
      case 'cut-agent-network': {
        const i = Math.floor(rand() * t.nodes.length);
        f.target = t.nodes[i].name;
        await t.setNodeLink(i, false);
        await sleep(5000 + rand() * 10_000);
        await t.setNodeLink(i, true);
        break;
      }
      case 'kill-postgres': {
        // The primary's postmaster SIGKILLed; its Patroni restarts it (or the standby leads).
        f.target = await t.killPrimaryPostgres();
        const t0 = Date.now();
        const at = await firstWrite(k, 'restart');
        writeStalls.push(['the primary\'s Postgres SIGKILLed', at === undefined ? undefined : at - t0]);
        figures.push(['Primary Postgres SIGKILLed → first acknowledged write', at === undefined ? 'none within 60 s' : `${((at - t0) / 1000).toFixed(2)} s`]);
        break;
      }
      case 'failover': {
        // The primary's node dies (Patroni and Postgres SIGKILLed, its link cut) without
        // anyone being told: Patroni on the standby takes the leader key when it expires
        // and HAProxy follows its REST API. The node comes back 20 s later (12 s in the
        // short run) and rejoins.
        const dead = await t.killPrimaryNode();
        const t0 = Date.now();
        f.target = dead.name;
        const at = await firstWrite(k, 'failover');
        writeStalls.push(['the primary\'s node killed and cut off', at === undefined ? undefined : at - t0]);
        figures.push([`Failover: ${dead.name}'s Patroni and Postgres SIGKILLed, link cut → first acknowledged write through the load balancer`, at === undefined ? 'none within 60 s' : `${((at - t0) / 1000).toFixed(2)} s`]);
        await sleep(Math.max(0, (opt.short ? 12_000 : 20_000) - (Date.now() - t0)));
        await dead.restore();
        break;
      }
      case 'node-lost':
      case 'node-failover':
        // Not injected here: each runs once, on its own, after the other faults (runNodeFailover, loseNodeAndRestore).
        break;
    }
    f.until = Date.now();
    lastFaultEnd = Date.now();
  };
  const kinds: FaultKind[] = ['kill-server', 'kill-server', 'stop-server', 'kill-controllers', 'stop-controllers', 'kill-agent', 'kill-agent', 'cut-agent-network'];
  // Every kind once, in a random order, before random picks: a short run sees them all.
  const firstRound = [...new Set(kinds)].sort(() => rand() - 0.5);
  while (Date.now() < stopAt) {
    await sleep((opt.short ? 3000 : 6000) + rand() * 3000);
    if (Date.now() >= stopAt) break;
    let kind: FaultKind = firstRound.shift() ?? pick(kinds);
    if (!restarted && Date.now() >= restartAt) {
      kind = 'kill-postgres';
      restarted = true;
    } else if (!failedOver && Date.now() >= failoverAt) {
      kind = 'failover';
      failedOver = true;
    }
    say(`  fault ${faults.length + 1}: ${kind} (${Math.round((Date.now() - (stopAt - opt.durationMs)) / 1000)} s)`);
    await inject(kind).catch((e) => say(`    fault failed: ${(e as Error).message}`));
  }
  say('Faults over; waiting for everything to converge ...');

  // ---- convergence: every process up, nodes Ready, claims Bound, pods Running, disks offered ----
  running = false;
  const converged = await convergence(t, k, CONVERGE_LIMIT_MS + 60_000);
  const convergedAfter = converged.at === undefined ? undefined : converged.at - lastFaultEnd;
  await Promise.all([...clients, ...diskWorkers, ...bindWorkers]);
  // Each watch must deliver everything committed up to now: give it time to catch up to the
  // newest change of its kind, then stop it (one that silently stopped delivering misses them).
  const head = new Map<string, bigint>();
  for (const c of await changeLog(t, watches.map((w) => w.kind))) head.set(c.kind, c.rv);
  const until = new Map(watches.map((w) => [w.name, head.get(w.kind) ?? 0n] as const));
  const lastSeen = (w: ResumingWatch) => w.segments.flatMap((s) => s.events).reduce((m, e) => (e.rv > m ? e.rv : m), 0n);
  const caughtUpBy = Date.now() + 30_000;
  while (Date.now() < caughtUpBy && watches.some((w) => lastSeen(w) < (until.get(w.name) ?? 0n))) await sleep(250);
  for (const w of watches) w.stop();
  await Promise.all(watchRuns);

  // ---- node failover: a replicated claim's node goes away, then comes back ----
  if (failoverNode !== undefined) {
    const t0 = Date.now();
    say(`  fault ${faults.length + 1}: node-failover (${t.nodes[failoverNode].name} down, then back)`);
    faults.push({ kind: 'node-failover', target: t.nodes[failoverNode].name, at: t0, until: 0 });
    faultCounts.set('node-failover', 1);
    failovers.push(await runNodeFailover(t, k, NS, failoverNode, replicated[0], say));
    faults.at(-1)!.until = Date.now();
    figures.push(['Node down → the replicated claim running on its replica, the node back and resynced', `${((Date.now() - t0) / 1000).toFixed(1)} s`]);
  }

  // ---- node lost: after the others converged (a lost node never comes back) ----
  if (nodeLost) {
    const t0 = Date.now();
    say(`  fault ${faults.length + 1}: node-lost (${t.nodes[nodeLost.lost].name}; restores on ${t.nodes[nodeLost.restoreOn].name})`);
    faults.push({ kind: 'node-lost', target: t.nodes[nodeLost.lost].name, at: t0, until: 0 });
    faultCounts.set('node-lost', 1);
    restores.push(...(await loseNodeAndRestore(t, k, NS, nodeLost, lostClaims, say)));
    faults.at(-1)!.until = Date.now();
    figures.push(['Node lost → its claims restored from their last backups on another node and read back', `${((Date.now() - t0) / 1000).toFixed(1)} s`]);
  }

  // ---- checks ----
  const present = new Set<string>();
  let cont = '';
  do {
    const r = await untilDone(k, 'GET', `/api/v1/namespaces/${NS}/configmaps?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, undefined, Date.now() + 60_000, (s) => s === 200);
    for (const cm of r?.body?.items ?? []) present.add(`${NS}/${cm.metadata.name}`);
    cont = r?.body?.metadata?.continue ?? '';
  } while (cont);
  const committed = await changeLog(t, watches.map((w) => w.kind));
  const wipes = existsSync(t.wipeLog) ? readFileSync(t.wipeLog, 'utf8') : '';
  const overlaps = existsSync(t.wipeViolations) ? readFileSync(t.wipeViolations, 'utf8') : '';
  const verdicts: [string, Verdict][] = [
    ['every acknowledged ConfigMap is present', acknowledgedWritesPresent(acked, present, deletedByUs)],
    ['every acknowledged write (claims, volumes, snapshots, ConfigMaps) is in the history', acknowledgedWritesDurable(ackedWrites, await recorded(t, ackedWrites))],
    ['no volume bound to two claims, no claim to two volumes', exclusiveBindings(bindings)],
    ['every watch gap-free and increasing (or 410 and relist)', gapFreeWatches(watches.flatMap((w) => w.segments), committed, until)],
    ['no disk offered before its wipe finished', noOfferBeforeWipe(offers, deletedClaims, boundAt)],
    ['no disk wiped twice at once', noOverlappingWipes(wipes, overlaps)],
    [`first write within ${WRITE_STALL_LIMIT_MS / 1000} s of each Postgres fault`, writesResumedInTime(writeStalls, WRITE_STALL_LIMIT_MS)],
    [`converged within ${CONVERGE_LIMIT_MS / 1000} s of the last fault`, convergedInTime(convergedAfter, CONVERGE_LIMIT_MS, `still waiting for ${converged.waiting}`)],
  ];
  if (nodeLost) verdicts.push(['each claim of the lost node restored from its last backup on another node, holding that backup\'s data', restoredFromLastBackup(lostClaims, restores)]);
  if (replicated.length > 0) {
    verdicts.push(['after its node went away, a replicated claim ran on its replica with the data the replica had acknowledged', failoverKeptAcknowledgedData(replicated, failovers)]);
    verdicts.push(['never two writable copies of a replicated volume (one node holds it, pods never on two nodes, the returned node fenced and resynced)', oneWritableCopy(replicated, failovers)]);
  }
  figures.push(['Converged after the last fault', convergedAfter === undefined ? 'no' : `${(convergedAfter / 1000).toFixed(1)} s`]);
  const lateReads = offers.filter((o) => o.foundClaimUid && (boundAt.get(o.foundClaimUid) ?? -1n) > o.rv).length;
  figures.push(['Offers whose device was read after a newer claim had written it (not counted above)', String(lateReads)]);
  figures.push(['Watches: resumed / 410 and relisted', `${watches.reduce((n, w) => n + w.resumes, 0)} / ${watches.reduce((n, w) => n + w.expiredCount, 0)}`]);
  figures.push(['Restarts by the supervisor', [...t.servers, ...t.controllers, ...t.agents].map((p) => `${p.name} ${p.starts - 1}`).join(', ')]);
  return { verdicts, faults: faultCounts, stats, figures, workload: [...workload.entries()] };
}

/** Polls a path until `ok` says so (or the time is up); the object, or undefined. */
async function waitFor(k: KubeTarget, p: string, ok: (obj: any, status: number) => boolean, timeoutMs: number): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const r = await kubeRequest(k, 'GET', p, undefined, 10_000).catch(() => undefined);
    if (r && ok(r.body, r.status)) return r.body ?? true;
    await sleep(500);
  }
  return undefined;
}

/** Writes a ConfigMap every 200 ms until one is acknowledged; when that happened (undefined: not within 60 s). */
async function firstWrite(k: KubeTarget, what: string): Promise<number | undefined> {
  const deadline = Date.now() + 60_000;
  for (let i = 0; Date.now() < deadline; i++) {
    const r = await kubeRequest(k, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `probe-${what}-${Date.now()}-${i}` } }, 3000).catch(() => undefined);
    if (r?.status === 201) return Date.now();
    await sleep(200);
  }
  return undefined;
}

/**
 * When everything converged (every process up, nodes Ready, claims Bound, pods Running,
 * disks offered), or undefined at the deadline; `waiting` says what the last look still
 * waited for, so a run that does not converge says why.
 */
async function convergence(t: Topology, k: KubeTarget, timeoutMs: number): Promise<{ at?: number; waiting: string }> {
  const deadline = Date.now() + timeoutMs;
  const disks = t.nodes.length * t.o.disksPerNode;
  let waiting = 'nothing looked at yet';
  const some = (xs: string[]) => `${xs.slice(0, 5).join('; ')}${xs.length > 5 ? ` and ${xs.length - 5} more` : ''}`;
  while (Date.now() < deadline) {
    const why = await (async (): Promise<string | undefined> => {
      const down = [...t.etcd, ...t.patroni, ...t.servers, ...t.controllers, ...t.agents].filter((p) => !p.pid).map((p) => p.name);
      if (down.length > 0) return `processes down: ${down.join(', ')}`;
      if (!(await t.postgresHealthy())) return 'Postgres: no primary with a synchronous standby yet';
      const nodes = await kubeRequest(k, 'GET', '/api/v1/nodes', undefined, 5000);
      const notReady = t.nodes.filter((x) => !(nodes.body?.items ?? []).some((n: any) => n.metadata.name === x.name && n.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')));
      if (notReady.length > 0) return `nodes not Ready: ${notReady.map((n) => n.name).join(', ')}`;
      const pvcs = await kubeRequest(k, 'GET', `/api/v1/namespaces/${NS}/persistentvolumeclaims`, undefined, 5000);
      const unbound = (pvcs.body?.items ?? []).filter((c: any) => c.status?.phase !== 'Bound' && !c.metadata.deletionTimestamp);
      if (unbound.length > 0) {
        return `claims not Bound: ${some(unbound.map((c: any) => `${c.metadata.name} ${c.status?.phase ?? '-'} volume=${c.spec?.volumeName ?? '-'} node=${c.metadata.annotations?.['volume.kubernetes.io/selected-node'] ?? '-'} ${c.metadata.annotations?.['stowage.io/binding-explanation'] ?? ''}`.trim()))}`;
      }
      const pods = await kubeRequest(k, 'GET', `/api/v1/namespaces/${NS}/pods`, undefined, 5000);
      const notRunning = (pods.body?.items ?? []).filter((p: any) => p.status?.phase !== 'Running' && !p.metadata.deletionTimestamp);
      if (notRunning.length > 0) {
        return `pods not Running: ${some(notRunning.map((p: any) => `${p.metadata.name} ${p.status?.phase ?? '-'} node=${p.spec?.nodeName ?? '-'} ${(p.status?.conditions ?? []).map((c: any) => `${c.type}=${c.status}${c.message ? ` (${c.message})` : ''}`).join(' ')}`))}`;
      }
      const pvs = (await t.localVolumes()).filter((pv) => !pv.metadata.deletionTimestamp);
      const off = pvs.filter((pv) => pv.status?.phase !== 'Available' && pv.status?.phase !== 'Bound');
      if (pvs.length !== disks || off.length > 0) {
        return `local volumes: ${pvs.length} of ${disks} disks offered${off.length ? `; not Available or Bound: ${some(off.map((pv) => `${pv.metadata.name} ${pv.status?.phase ?? '-'}${pv.status?.message ? ` (${pv.status.message})` : ''}`))}` : ''}`;
      }
      return undefined;
    })().catch((e: unknown) => `could not look: ${(e as Error).message}`);
    if (why === undefined) return { at: Date.now(), waiting: '' };
    waiting = why;
    await sleep(500);
  }
  return { waiting };
}

async function changeLog(t: Topology, kinds: string[]): Promise<CommittedChange[]> {
  const c = new pg.Client({ connectionString: t.databaseUrl });
  await c.connect();
  try {
    const r = await c.query<{ rv: string; kind: string; namespace: string; name: string }>(
      `SELECT rv::text, kind, namespace, name FROM change_log WHERE kind = ANY($1) AND type <> 'GAP' AND (kind <> 'ConfigMap' OR namespace = $2) ORDER BY rv`,
      [kinds, NS],
    );
    return r.rows.map((row) => ({ rv: BigInt(row.rv), kind: row.kind, key: `${row.namespace}/${row.name}` }));
  } finally {
    await c.end();
  }
}

/** The history's rows at the acknowledged writes' resourceVersions. */
async function recorded(t: Topology, acked: readonly AckedWrite[]): Promise<RecordedChange[]> {
  const c = new pg.Client({ connectionString: t.databaseUrl });
  await c.connect();
  try {
    const r = await c.query<{ rv: string; kind: string; namespace: string; name: string; uid: string }>(
      `SELECT rv::text, kind, namespace, name, uid FROM history WHERE rv = ANY($1::bigint[])`,
      [acked.map((a) => a.rv.toString())],
    );
    return r.rows.map((row) => ({ rv: BigInt(row.rv), kind: row.kind, key: `${row.namespace ?? ''}/${row.name}`, uid: row.uid }));
  } finally {
    await c.end();
  }
}

const SIGNATURE = 'STOWAGE-CHAOS claim=';

/** Marks a disk with the claim that used it (the "application data" a wipe must remove). */
function writeSignature(device: string, uid: string): void {
  const fd = openSync(device, 'r+');
  try {
    writeSync(fd, Buffer.from(`${SIGNATURE}${uid}\n`), 0, undefined, 0);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function readSignature(device: string): string | undefined {
  const fd = openSync(device, 'r');
  try {
    const buf = Buffer.alloc(128);
    readSync(fd, buf, 0, buf.length, 0);
    const text = buf.toString('utf8');
    return text.startsWith(SIGNATURE) ? text.slice(SIGNATURE.length).split('\n')[0] : undefined;
  } finally {
    closeSync(fd);
  }
}

function printReport(r: Report): void {
  say('');
  say('Faults injected (and client requests that failed after one retry, put down to each)');
  for (const [kind, n] of r.faults) say(`  ${kind.padEnd(20)} ${String(n).padStart(3)} injected, ${r.stats.failedByFault.get(kind) ?? 0} requests failed after one retry`);
  if (r.stats.failedByFault.get('none')) say(`  (no fault)           ${r.stats.failedByFault.get('none')} requests failed after one retry`);
  say('');
  say('Workload');
  say(`  client requests         ${r.stats.requests} (retried once: ${r.stats.retried}, failed after one retry: ${r.stats.failedAfterRetry})`);
  for (const [what, n] of r.workload) say(`  ${what.padEnd(24)}${n}`);
  say('');
  say('Invariants');
  for (const [name, v] of r.verdicts) {
    say(`  ${v.violations.length ? 'FAIL' : 'ok  '} ${name}: ${v.checked} checked, ${v.violations.length} violations`);
    for (const line of v.violations.slice(0, 10)) say(`         ${line}`);
  }
  say('');
  say('Figures');
  for (const [name, value] of r.figures) say(`  ${name}: ${value}`);
}

main().catch((e: unknown) => {
  say(`chaos: cannot run: ${(e as Error).message}`);
  process.exit(2);
});
