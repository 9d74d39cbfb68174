// The node agent's loop (`stowage agent`): reads its node's configuration every few
// seconds (changes apply without a restart), walks the discovery directories and reports
// what it sees, posts heartbeats, and takes cleanup jobs, running them with the
// CleanupRunner and reporting progress (at least once a second) and the result. It never
// writes PV objects: the manager does, from these reports. With a pods directory it also
// publishes the volumes of the pods placed on its node (publisher.ts) and reports them.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import { AgentHttpError, type AgentApi } from './agent-client';
import { CleanupLedger } from './cleanup-ledger';
import { CleanupRunner } from './cleanup-runner';
import type { AgentConfig, AgentPod, CleanupProgress, CleanupRequest, CleanupResult } from '../contracts/agent';
import type { LocalClassConfig } from '../domain/local-volume-config';
import { Publisher } from './publisher';
import { realPublishOs, type PublishOs } from './publish-os';
import { discoverAll } from './discovery';
import type { AgentOs } from './os';
import { PoolKeeper } from './pools';
import { limiter } from '../domain/in-parallel';
import { realPoolOs, type PoolOs } from './pool-os';
import { labelArch, labelHostname, labelOs } from '../domain/well-known/labels';
import { DataJobRunner, type DataMover } from './data-job-runner';
import { ReplicaJobs } from './replication/jobs';
import { ReplicationListener } from './replication/listener';
import { TargetProber } from './target-prober';
import { sleep } from '../domain/sleep';
import { seenFrom } from './host-root';

export interface AgentLoopOptions {
  api: AgentApi;
  os: AgentOs;
  /** The node to act for (default: the token's, asked from the server). */
  nodeName?: string;
  /** Labels the agent sets on its Node (kubernetes.io/hostname, os, arch are added). */
  labels?: Record<string, string>;
  log: Logger;
  configMs?: number;
  discoveryMs?: number;
  heartbeatMs?: number;
  claimMs?: number;
  /** First wait before reporting a cleanup's end again after a failed report (grows to 10x; default 1 s). */
  reportRetryMs?: number;
  /** Cleanups at once on this node (default 4). */
  maxParallel?: number;
  progressIntervalMs?: number;
  /** Where pods' volumes are published (<podsDir>/<pod uid>/volumes/<name>); no publishing without it. */
  podsDir?: string;
  /**
   * The least time between two publishing passes after a failure, or when the server does
   * not hold an unchanged answer (ms, default 1 s). The server does hold it: a pod placed
   * on the node is heard of at once.
   */
  publishMs?: number;
  publishOs?: PublishOs;
  /**
   * The least time between two asks for btrfs pool work that found none at once (ms,
   * default 250). The server holds an ask until work comes (long-poll), so work is heard of
   * at once; the pools themselves are looked at every 2 s.
   */
  poolMs?: number;
  poolOs?: PoolOs;
  /** Where the agent sees the host's `/` for pool paths and the volumes it publishes (default: it runs on the host). */
  poolRoot?: string;
  /**
   * On stop, unmount and remove every published volume (the agent inside `stowage start`,
   * whose pods dir is in the data dir: nothing of a volume's data may stay reachable there,
   * e.g. by `rm -rf` of the data dir, while Stowage is stopped). The next start publishes
   * the pods' volumes again. A node's own agent leaves them (a kubelet restart does too).
   */
  unpublishOnStop?: boolean;
  /**
   * The agent's own state dir: it records its running cleanup commands there, and at start
   * ends those a killed predecessor left running. Without it nothing is recorded.
   */
  stateDir?: string;
  /**
   * The data mover (server/agent/data-mover.ts): with it, and an api that speaks data jobs,
   * the agent runs its node's data jobs and reports on the backup targets.
   */
  dataMover?: DataMover;
  /**
   * Replication (server/agent/replication/): with it the agent listens for the replicas the
   * server assigns to this node (replica-receive jobs) and reports where in its heartbeat;
   * without it, it still sends (replica-send) and removes (replica-remove), but receives nothing.
   * `listen`: host:port (port 0: any free one); `advertise`: host:port other nodes connect to
   * (default: the listen address, or this machine's first non-internal IPv4 when it listens
   * on a wildcard address).
   */
  replication?: { listen: string; advertise?: string };
}

/** A pod's unchanged report is sent again after this long (its events count on). */
const REPORT_AGAIN_MS = 30_000;
/**
 * The longest the server holds an ask for the node's pods while nothing changes: a quiet
 * node still passes over its volumes this often (the publisher looks at them on disk again
 * every verifyEveryMs).
 */
const POD_WAIT_MS = 5_000;
/** Publishing passes in flight at once. */
const MAX_PASSES = 4;
/** Pod reports sent at once in a publishing pass. */
const REPORTS_IN_FLIGHT = 8;


export function nodeLabels(nodeName: string, extra: Record<string, string> = {}): Record<string, string> {
  const goArch: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x' };
  return {
    ...extra,
    [labelHostname]: nodeName,
    [labelOs]: process.platform,
    [labelArch]: goArch[process.arch] ?? process.arch,
  };
}

export class AgentLoop {
  /** This process's identity: running jobs are leased to it. */
  readonly instance = `${os.hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 30)}-${randomUUID().slice(0, 8)}`;
  private readonly abort = new AbortController();
  private readonly runner: CleanupRunner;
  private readonly ledger: CleanupLedger | undefined;
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private classes: LocalClassConfig[] | undefined;
  private configVersion = '';
  private lastReport = '';
  private lastReportAt = 0;
  private loops: Promise<void>[] = [];
  private wakeDiscovery: (() => void) | undefined;
  private readonly publisher: Publisher | undefined;
  private readonly sent = new Map<string, { text: string; at: number }>();
  /** Publishing passes in flight, and whether one that ended had trouble. */
  private readonly passes = new Set<Promise<void>>();
  private publishTrouble = false;
  /** Pods handed back (podDone) while the server still names them. */
  private readonly handedBack = new Set<string>();
  /** Pod reports in flight at once. */
  private readonly reporting = limiter(REPORTS_IN_FLIGHT);
  private pools!: PoolKeeper;
  private dataJobs: DataJobRunner | undefined;
  private prober: TargetProber | undefined;
  private listener: ReplicationListener | undefined;
  nodeName = '';

  constructor(private readonly o: AgentLoopOptions) {
    this.ledger = o.stateDir ? new CleanupLedger(o.os, o.stateDir) : undefined;
    this.runner = new CleanupRunner(o.os, { maxParallel: o.maxParallel ?? 4, progressIntervalMs: o.progressIntervalMs, ledger: this.ledger });
    this.publisher = o.podsDir ? new Publisher(o.publishOs ?? realPublishOs, o.podsDir) : undefined;
  }

  async start(): Promise<void> {
    this.nodeName = this.o.nodeName ?? (await this.o.api.whoami()).nodeName;
    this.pools = new PoolKeeper(this.o.poolOs ?? realPoolOs, this.o.api, this.nodeName, this.o.log.child({ part: 'pools' }), this.o.poolRoot);
    // Before any job is taken: a wipe left running by a killed agent must be over first.
    if (this.o.replication) {
      this.listener = new ReplicationListener({ ...this.o.replication, log: this.o.log.child({ part: 'replication' }) });
      await this.listener.start();
      this.o.log.info({ listen: this.o.replication.listen, endpoint: this.listener.endpoint() }, 'replication listener started');
    }
    const reaped = await this.ledger?.reapLeftovers({ log: (msg, e) => this.o.log.warn({ pid: e.pid, command: e.command }, msg) });
    if (reaped?.length) this.o.log.warn({ count: reaped.length }, 'ended cleanup commands a previous agent left running; their jobs are taken again');
    const signal = this.abort.signal;
    this.loops = [
      this.every(this.o.heartbeatMs ?? 10_000, 'heartbeat', () => this.heartbeat()),
      this.every(this.o.configMs ?? 2_000, 'config', () => this.readConfig()),
      this.discoveryLoop(signal),
      this.every(this.o.claimMs ?? 1_000, 'cleanup claim', () => this.claim()),
      ...(this.publisher ? [this.publishLoop(signal)] : []),
      this.poolLoop(signal),
    ];
    const api = this.o.api;
    if (this.o.dataMover && api.claimDataJobs && api.dataJobProgress && api.dataJobResult && api.backupTargets && api.reportBackupTargets) {
      const dataApi = {
        claimDataJobs: api.claimDataJobs.bind(api),
        dataJobProgress: api.dataJobProgress.bind(api),
        dataJobResult: api.dataJobResult.bind(api),
        backupTargets: api.backupTargets.bind(api),
        reportBackupTargets: api.reportBackupTargets.bind(api),
      };
      const common = { api: dataApi, mover: this.o.dataMover, node: this.nodeName };
      this.dataJobs = new DataJobRunner({ ...common, instance: this.instance, log: this.o.log.child({ part: 'data-jobs' }), progressIntervalMs: this.o.progressIntervalMs, reportRetryMs: this.o.reportRetryMs, poolRoot: this.o.poolRoot, replicaJobs: new ReplicaJobs({ poolRoot: this.o.poolRoot, listener: this.listener, log: this.o.log.child({ part: 'replication' }) }), onFinished: () => this.prober?.poke() });
      this.prober = new TargetProber({ ...common, log: this.o.log.child({ part: 'backup-targets' }) });
      this.dataJobs.start();
      this.prober.start();
    }
    this.o.log.info({ node: this.nodeName, instance: this.instance }, 'node agent started');
  }

  /** Stops the loops and aborts running cleanups (their jobs are retried later). */
  async stop(): Promise<void> {
    this.abort.abort();
    for (const r of this.running.values()) r.abort.abort();
    await Promise.allSettled([...this.loops, ...[...this.running.values()].map((r) => r.done), this.dataJobs?.stop(), this.prober?.stop()]);
    await this.listener?.close();
    if (this.publisher && this.o.unpublishOnStop) {
      // A usage walk still inside a volume would keep its mount busy.
      await this.publisher.measured();
      const left = await this.publisher.unpublishAll();
      for (const e of left) this.o.log.warn({ error: e }, 'could not unpublish on stop');
    }
  }

  /** Where this agent takes replication transfers (host:port, as advertised), when it listens. */
  replicationEndpoint(): string | undefined {
    return this.listener?.endpoint();
  }

  /** The address its listener is bound to (host:port), when it listens. */
  replicationListenAddress(): string | undefined {
    if (!this.listener) return undefined;
    const a = this.listener.address();
    return `${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}`;
  }

  /** Job ids running in this process. */
  runningJobs(): string[] {
    return [...this.running.keys()];
  }

  private async every(ms: number, what: string, fn: () => Promise<void>): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        await fn();
      } catch (err) {
        if (!signal.aborted) this.o.log.warn({ err: (err as Error).message, what }, 'agent step failed; trying again');
      }
      await sleep(ms, signal);
    }
  }

  /**
   * Pool work as a stream (PoolKeeper.run): the ask waits on the server for a list other
   * than the one in hand, and only an ask that came back at once with nothing new (a server
   * that does not hold the request) is followed by a pause of poolMs.
   */
  private async poolLoop(signal: AbortSignal): Promise<void> {
    await this.pools.run(signal, this.o.poolMs ?? 250);
  }

  private async heartbeat(): Promise<void> {
    await this.o.api.heartbeat(this.nodeName, {
      labels: nodeLabels(this.nodeName, this.o.labels),
      nodeInfo: { operatingSystem: process.platform, architecture: process.arch, kernelVersion: os.release(), osImage: os.version?.() ?? '' },
      ...(this.listener ? { replicationEndpoint: this.listener.endpoint() } : {}),
    });
  }

  private async readConfig(): Promise<void> {
    const cfg: AgentConfig = await this.o.api.config(this.nodeName);
    if (cfg.error) this.o.log.warn({ error: cfg.error }, 'the storageClassMap does not parse; keeping the last good one');
    if (cfg.error && this.classes) return;
    if (cfg.resourceVersion !== this.configVersion || !this.classes) {
      this.classes = cfg.classes;
      this.configVersion = cfg.resourceVersion;
      this.o.log.info({ classes: cfg.classes.map((c) => c.className) }, 'configuration loaded');
      this.wakeDiscovery?.();
    }
  }

  private async discoveryLoop(signal: AbortSignal): Promise<void> {
    const ms = this.o.discoveryMs ?? 3_000;
    while (!signal.aborted) {
      try {
        if (this.classes) await this.discover(this.classes);
      } catch (err) {
        if (!signal.aborted) this.o.log.warn({ err: (err as Error).message }, 'discovery failed; trying again');
      }
      await new Promise<void>((resolve) => {
        this.wakeDiscovery = resolve;
        void sleep(ms, signal).then(resolve);
      });
      this.wakeDiscovery = undefined;
    }
  }

  /** One discovery pass; reported when it differs from the last report (or every 30 s). */
  async discover(classes: LocalClassConfig[]): Promise<void> {
    const entries = await discoverAll(this.o.os, classes);
    const text = JSON.stringify(entries);
    if (text === this.lastReport && Date.now() - this.lastReportAt < 30_000) return;
    await this.o.api.discoveries(this.nodeName, entries);
    this.lastReport = text;
    this.lastReportAt = Date.now();
  }

  /**
   * Publishing passes, one for each new answer of the server, begun at once: a pass does
   * not wait for the one before it to end (the publisher has each pod's steps take turns),
   * so a pod placed while others are being published is not held up by them; and one for
   * an unchanged answer while none runs (a look at the published volumes, and the usage
   * measured meanwhile, now and then). While no pass runs and the last ones went well, the
   * ask waits on the server until the node's pods, claims or volumes change (a long-poll,
   * at most POD_WAIT_MS); while passes run, or after one with trouble (an error, a report
   * not sent, a volume not ready), it waits at most publishMs. Once the passes with
   * trouble have ended, every pod is gone over again (an ask answered at once), no more
   * often than publishMs, as a kubelet retries a mount. A server that keeps no versions, or
   * answers an ask for a change at once with nothing changed, is asked no more often than
   * publishMs.
   */
  private async publishLoop(signal: AbortSignal): Promise<void> {
    if (!this.publisher) return;
    const ms = this.o.publishMs ?? 1_000;
    let seen: string | undefined;
    while (!signal.aborted) {
      const began = Date.now();
      let rest: number;
      try {
        const retry = this.publishTrouble && this.passes.size === 0;
        if (retry) {
          this.publishTrouble = false;
          seen = undefined;
        }
        const waitMs = this.passes.size === 0 && !this.publishTrouble ? POD_WAIT_MS : ms;
        const { pods, version } = await this.o.api.pods(this.nodeName, seen ? { waitMs, seen } : undefined);
        const news = seen === undefined || version === undefined || version !== seen;
        seen = version;
        // A new answer, or the same one after a quiet wait (a look at the published volumes now and then).
        if (news || this.passes.size === 0) await this.beginPass(pods);
        const elapsed = Date.now() - began;
        rest = retry || version === undefined || (!news && elapsed < Math.min(ms, waitMs)) ? ms - elapsed : 0;
      } catch (err) {
        seen = undefined;
        if (!signal.aborted) this.o.log.warn({ err: (err as Error).message, what: 'publish' }, 'agent step failed; trying again');
        rest = ms - (Date.now() - began);
      }
      if (rest > 0) await sleep(rest, signal);
    }
    await Promise.allSettled([...this.passes]);
  }

  /** Begins a pass over `pods` (after one of the passes in flight ends, when MAX_PASSES run). */
  private async beginPass(pods: AgentPod[]): Promise<void> {
    while (this.passes.size >= MAX_PASSES) await Promise.race(this.passes);
    const pass: Promise<void> = this.publish(pods)
      .then((r) => {
        if (!r.clean || !r.ready) this.publishTrouble = true;
      })
      .catch((err) => {
        this.publishTrouble = true;
        this.o.log.warn({ err: (err as Error).message, what: 'publish' }, 'agent step failed; trying again');
      })
      .finally(() => this.passes.delete(pass));
    this.passes.add(pass);
  }

  /**
   * One publishing pass over the node's pods as the server named them: volumes made to
   * match, reports sent, pods being deleted handed back once unpublished.
   */
  async publish(pods: AgentPod[]): Promise<{ clean: boolean; ready: boolean }> {
    if (!this.publisher) return { clean: true, ready: true };
    // Each pod's report goes as soon as that pod is done, several in flight at once: a pass
    // over many new pods is neither one round trip per pod nor a wait for the slowest pod.
    const sending: Promise<void>[] = [];
    let failed = 0;
    // Host paths as this agent sees them (an agent whose host `/` is elsewhere: `poolRoot`).
    const root = this.o.poolRoot;
    const seen = root ? pods.map((p) => ({ ...p, volumes: p.volumes.map((v) => (v.hostPath ? { ...v, hostPath: seenFrom(root, v.hostPath) } : v)) })) : pods;
    const r = await this.publisher.sync(seen, (report) => {
      const now = Date.now();
      const text = JSON.stringify(report);
      const last = this.sent.get(report.uid);
      if (last && last.text === text && now - last.at < REPORT_AGAIN_MS) return;
      // Noted before it is sent: a pass overlapping this one does not send it twice.
      const entry = { text, at: now };
      this.sent.set(report.uid, entry);
      sending.push(
        this.reporting(async () => {
          try {
            await this.o.api.podStatus(this.nodeName, report);
          } catch (err) {
            failed++;
            if (this.sent.get(report.uid) === entry) this.sent.delete(report.uid);
            this.o.log.warn({ err: (err as Error).message, pod: `${report.namespace}/${report.name}` }, 'pod status report failed');
          }
        }),
      );
    });
    await Promise.all(sending);
    for (const e of r.errors) this.o.log.warn({ error: e }, 'publishing');
    for (const pod of r.unpublished) {
      if (this.handedBack.has(pod.uid)) continue; // an overlapping pass did
      this.handedBack.add(pod.uid);
      try {
        await this.o.api.podDone(this.nodeName, pod);
      } catch (err) {
        this.handedBack.delete(pod.uid);
        throw err;
      }
      this.o.log.info({ pod: `${pod.namespace}/${pod.name}` }, 'volumes unpublished; pod deleted');
    }
    const live = new Set(pods.map((p) => p.uid));
    for (const uid of this.sent.keys()) if (!live.has(uid)) this.sent.delete(uid);
    for (const uid of this.handedBack) if (!live.has(uid)) this.handedBack.delete(uid);
    return { clean: failed === 0 && r.errors.length === 0, ready: r.reports.every((p) => p.volumes.every((v) => v.ready)) };
  }

  private async claim(): Promise<void> {
    if (!this.classes) return;
    const max = Math.max(0, (this.o.maxParallel ?? 4) - this.running.size);
    const { jobs } = await this.o.api.claim(this.nodeName, { instance: this.instance, running: this.runningJobs(), max });
    for (const job of jobs) this.startJob(job);
  }

  private startJob(req: CleanupRequest): void {
    if (this.running.has(req.jobId)) return;
    const abort = new AbortController();
    const done = this.runJob(req, abort).finally(() => this.running.delete(req.jobId));
    this.running.set(req.jobId, { abort, done });
  }

  private async runJob(req: CleanupRequest, abort: AbortController): Promise<void> {
    const cls = this.classes?.find((c) => c.className === req.className);
    let result: CleanupResult;
    let last: CleanupProgress | undefined;
    if (!cls) {
      result = { jobId: req.jobId, ok: false, error: `class ${req.className} is not in this node's configuration`, durationMs: 0 };
    } else {
      this.o.log.info({ job: req.jobId, path: req.hostPath, method: req.method, attempt: req.attempt }, 'cleanup started');
      let sending = false;
      const onProgress = (p: CleanupProgress) => {
        last = p;
        if (sending) return; // one report in flight at a time; the next tick sends fresher numbers
        sending = true;
        this.o.api
          .progress(this.nodeName, req.jobId, { instance: this.instance, progress: p })
          .then((r) => {
            if (r.cancel && !abort.signal.aborted) {
              this.o.log.warn({ job: req.jobId }, 'cleanup cancelled by the server');
              abort.abort();
            }
          })
          .catch((err) => this.o.log.warn({ err: (err as Error).message, job: req.jobId }, 'progress report failed'))
          .finally(() => {
            sending = false;
          });
      };
      result = await this.runner.run(req, cls, onProgress, abort.signal);
      if ((result as { busy?: boolean }).busy) return; // the same disk is being cleaned here already
    }
    this.o.log[result.ok ? 'info' : 'warn']({ job: req.jobId, ok: result.ok, error: result.error, ms: result.durationMs }, 'cleanup finished');
    if (this.abort.signal.aborted) return; // stopping: the lease runs out and the job is taken again
    // The wipe is done: keep reporting it (the job stays in `running`, so its lease is
    // renewed meanwhile) until the server has it, through any outage of the network or
    // the server, unless the server refuses it for good (the job is no longer ours).
    for (let attempt = 0; !this.abort.signal.aborted; attempt++) {
      try {
        await this.o.api.result(this.nodeName, req.jobId, { instance: this.instance, result, ...(last ? { progress: last } : {}) });
        return;
      } catch (err) {
        if (isFinalRefusal(err)) {
          this.o.log.warn({ err: (err as Error).message, job: req.jobId }, 'result refused by the server; the job is no longer this agent\'s');
          return;
        }
        this.o.log.warn({ err: (err as Error).message, job: req.jobId, attempt }, 'result report failed; retrying');
        const base = this.o.reportRetryMs ?? 1000;
        await sleep(Math.min(10 * base, base * (attempt + 1)), this.abort.signal);
      }
    }
  }
}

/** A 4xx other than 408/429: the server will not take this report however often it is sent. */
function isFinalRefusal(err: unknown): boolean {
  const status = err instanceof AgentHttpError ? err.status : undefined;
  return status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429;
}
