// The chaos scenario: the workload, the faults injected while it runs, and the invariants checked after.
import { existsSync, readFileSync } from 'node:fs';
import type { KubeTarget } from '../cluster/kube';
import { DISK_CLASS, Topology } from '../cluster/topology';
import { loseNodeAndRestore, planNodeLost, prepareNodeLost } from './node-lost';
import { prepareNodeFailover, runNodeFailover } from './node-failover';
import { ResumingWatch, untilDone, withOneRetry, type WatchEvent } from './client';
import { acknowledgedWritesDurable, acknowledgedWritesPresent, convergedInTime, exclusiveBindings, failoverKeptAcknowledgedData, gapFreeWatches, noOfferBeforeWipe, noOverlappingWipes, oneWritableCopy, restoredFromLastBackup, writesResumedInTime, type AckedWrite, type BindingObservation, type FailoverOutcome, type OfferObservation, type RestoreOutcome, type Verdict } from './invariants';
import { NS, say, sleep } from './common';
import type { ChaosOptions } from './options';
import { Stats, type Fault, type FaultKind, type Report } from './report';
import { changeLog, convergence, firstWrite, readSignature, recorded, waitFor, writeSignature } from './probes';

const CONVERGE_LIMIT_MS = 60_000;
const WRITE_STALL_LIMIT_MS = 15_000;

export async function runChaos(t: Topology, k: KubeTarget, opt: ChaosOptions, rand: () => number, pick: <T>(xs: readonly T[]) => T): Promise<Report> {
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
    /** One process of these, picked at random, SIGKILLed. */
    const kill = (ps: { name: string; signal(s: NodeJS.Signals): void }[]) => {
      const p = pick(ps);
      f.target = p.name;
      p.signal('SIGKILL');
    };
    /** One process of these, picked at random, frozen (SIGSTOP) for 3-7 s. */
    const pause = async (ps: { name: string; signal(s: NodeJS.Signals): void }[]) => {
      const p = pick(ps);
      f.target = p.name;
      p.signal('SIGSTOP');
      await sleep(3000 + rand() * 4000);
      p.signal('SIGCONT');
    };
    switch (kind) {
      case 'kill-server':
        kill(t.servers);
        break;
      case 'stop-server':
        await pause(t.servers);
        break;
      case 'kill-controllers':
        kill(t.controllers);
        break;
      case 'stop-controllers':
        await pause(t.controllers);
        break;
      case 'kill-agent':
        kill(t.agents);
        break;
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
