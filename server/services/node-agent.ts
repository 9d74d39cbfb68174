// What a node agent may do, for its own node only (seed 003 "Provisioner redesign": the
// agent discovers and cleans; it never writes PV objects). Every method takes the agent's
// NodePrincipal and the node named in the request, and refuses any other node with 403.
// Inputs are hostile: sizes are bounded, every reported path must be an entry of a
// configured discovery directory, job ids are checked against the node.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { AgentConfig, AgentPod, CleanupProgress, CleanupRequest, CleanupResult, DiscoveredEntry, HeartbeatInput } from '../contracts/agent';
import { logger } from './logger';
import { nodeMayActFor, type NodePrincipal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { localPvName } from '../domain/local-pv-name';
import { parseStorageClassMap } from '../domain/local-volume-config';
import { isDNS1123Subdomain } from '../domain/names';
import { forbiddenNodeLabel, heartbeatConditions } from '../domain/node-lifecycle';
import { localVolumeConfigName, localVolumeConfigNamespace, storageClassMapKey } from '../resources/config-map/strategy';
import type { KubeObject } from '../resources/types';
import { CleanupJobStore } from '../store/cleanup-jobs';
import { LocalDiskStore } from '../store/local-disks';
import { NodeTokenStore } from '../store/node-tokens';
import type { ObjectStore } from '../store/object-store';
import { PodPublishing } from './pod-publishing';
import { NodePoolService } from './node-pools';
import { DataJobsAgentService, type BackupTargetList } from './data-jobs-agent';
import { AUTH_CACHE_MS, hashToken } from './users';
import { TokenCache } from './token-cache';
import { labelHostname } from '../domain/well-known/labels';
import { EventRecorder } from './event-recorder';
import { localVolumeManagerComponent } from '../domain/well-known/components';
import { annDynamicallyProvisioned, annReplicationEndpoint } from '../domain/well-known/annotations';
import { replicationEndpointSchema } from '../contracts/data-jobs';
import { reasons } from '../domain/well-known/event-reasons';
import { backoffMs } from '../domain/backoff';

export const MAX_ENTRIES = 10_000;
/**
 * How long a node token stays known without asking the database again: AUTH_CACHE_MS
 * (2 s), as users' tokens. An agent authenticates every request (its long polls, reports
 * and heartbeats: about six per claim with its pod), and the lookup was one statement
 * each. A revocation in this process (`revoke`) applies at once; one made by another
 * process (the CLI's `stowage node revoke` on the same database) applies here within this
 * bound, as upstream's token-review cache bounds it. Only tokens that were found are kept.
 */
export const NODE_TOKEN_CACHE_MS = AUTH_CACHE_MS;
const MAX_LABELS = 64;
const INSTANCE_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const JOB_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface NodeAgentOptions {
  /** A running job's lease: progress must arrive within it (ms; default 20 s). */
  leaseMs?: number;
  /** Backoff of failed cleanups: base and cap (ms; default 5 s doubling to 5 min). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** The backup targets agents look at (default: the BackupTarget objects' names and paths). */
  backupTargets?: BackupTargetList;
}

const bad = (m: string) => new StowageError('BadRequest', m);

function forbiddenFor(p: NodePrincipal, node: string): StowageError {
  return new StowageError('Forbidden', `node "${p.nodeName}" may not act for node "${node}"`, { kind: 'nodes', name: node });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function str(v: unknown, field: string, max: number, optional = false): string | undefined {
  if (v === undefined || v === null) {
    if (optional) return undefined;
    throw bad(`${field} is required`);
  }
  if (typeof v !== 'string') throw bad(`${field} must be a string`);
  if (v.length > max) throw bad(`${field} must be at most ${max} characters`);
  return v;
}


/** A progress report as stored: numbers checked, nothing else kept. */
function parseProgress(jobId: string, raw: unknown): CleanupProgress {
  const pr = isPlainObject(raw) ? raw : {};
  const num = (v: unknown) => (typeof v === 'string' && /^\d{1,30}$/.test(v) ? v : '0');
  return {
    jobId,
    unit: pr.unit === 'entries' ? 'entries' : 'bytes',
    done: num(pr.done),
    total: num(pr.total),
    rate: typeof pr.rate === 'number' && Number.isFinite(pr.rate) && pr.rate >= 0 ? pr.rate : 0,
    ...(typeof pr.etaSeconds === 'number' && Number.isFinite(pr.etaSeconds) && pr.etaSeconds >= 0 ? { etaSeconds: pr.etaSeconds } : {}),
  };
}

/** Every BackupTarget's name and path (a target whose path is not absolute is left out). */
async function backupTargetsOf(store: ObjectStore): Promise<{ name: string; path: string }[]> {
  const all = await store.current('BackupTarget');
  return all.flatMap((t) => {
    const path = (t.spec as { path?: unknown } | undefined)?.path;
    return typeof path === 'string' && path.startsWith('/') && path.length <= 4096 ? [{ name: t.metadata.name ?? '', path }] : [];
  });
}

export class NodeAgentService {
  readonly disks: LocalDiskStore;
  readonly jobs: CleanupJobStore;
  readonly publishing: PodPublishing;
  readonly pools: NodePoolService;
  /** Data jobs and backup-target reports (server/services/data-jobs-agent.ts). */
  readonly data: DataJobsAgentService;
  private readonly tokens: NodeTokenStore;
  /** Recently authenticated node tokens by hash (found ones only), the node each names. */
  private readonly recentTokens = new TokenCache<string>(NODE_TOKEN_CACHE_MS);
  private readonly leaseMs: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;

  constructor(
    private readonly store: ObjectStore,
    opts: NodeAgentOptions = {},
  ) {
    this.disks = new LocalDiskStore(store);
    this.jobs = new CleanupJobStore(store);
    this.tokens = new NodeTokenStore(store);
    this.pools = new NodePoolService(store);
    this.data = new DataJobsAgentService(store, opts.backupTargets ?? (() => backupTargetsOf(store)), { leaseMs: opts.leaseMs });
    this.publishing = new PodPublishing(store, logger.child({ component: 'kubelet' }));
    this.leaseMs = opts.leaseMs ?? 20_000;
    this.retryBaseMs = opts.retryBaseMs ?? 5_000;
    this.retryMaxMs = opts.retryMaxMs ?? 300_000;
  }

  // --- tokens (issued by admins through the CLI) ---------------------------------------

  /** A new node token for `nodeName` (printed once; stored as a hash). Registers the Node if missing. */
  async createToken(nodeName: string, name = ''): Promise<string> {
    const problems = isDNS1123Subdomain(nodeName);
    if (problems.length) throw bad(`node name "${nodeName}": ${problems.join('; ')}`);
    await this.ensureNode(nodeName, { [labelHostname]: nodeName });
    const secret = `swn_${randomBytes(24).toString('base64url')}`;
    await this.tokens.create(nodeName, hashToken(secret), name);
    return secret;
  }

  async authenticate(secret: string | undefined): Promise<NodePrincipal | undefined> {
    if (!secret || !secret.startsWith('swn_') || secret.length > 200) return undefined;
    const tokenHash = hashToken(secret);
    const nodeName = await this.recentTokens.get(tokenHash, async () => {
      const node = await this.tokens.nodeOf(tokenHash);
      return node ? { value: node } : undefined;
    });
    return nodeName ? { type: 'node', nodeName } : undefined;
  }

  async revoke(nodeName: string): Promise<number> {
    const n = await this.tokens.revokeNode(nodeName);
    // Once the delete has committed: what was remembered goes, and a lookup still under way
    // (which may have read the row before the delete) does not remember its answer.
    this.recentTokens.forget((node) => node === nodeName);
    return n;
  }

  private check(p: NodePrincipal, node: string): void {
    if (!nodeMayActFor(p, node)) throw forbiddenFor(p, node);
  }

  // --- the Node object ---------------------------------------------------------------

  /**
   * Creates the Node when missing; merges `labels` into it. `refuse` sees the labels the
   * Node has at the moment of the write and may refuse (403) the labels sent.
   */
  async ensureNode(nodeName: string, labels: Record<string, string>, refuse?: (have: Record<string, string>) => string | undefined, annotations: Record<string, string> = {}): Promise<KubeObject> {
    const holds = (have: Record<string, string>, want: Record<string, string>) => Object.entries(want).every(([k, v]) => Object.prototype.hasOwnProperty.call(have, k) && have[k] === v);
    for (let attempt = 0; ; attempt++) {
      const cur = await this.store.tryGet('Node', undefined, nodeName);
      const no = refuse?.(cur?.metadata.labels ?? {});
      if (no) throw new StowageError('Forbidden', no);
      try {
        if (!cur) {
          const meta = { name: nodeName, labels: { ...labels }, ...(Object.keys(annotations).length ? { annotations: { ...annotations } } : {}) };
          return await this.store.create({ apiVersion: 'v1', kind: 'Node', metadata: meta });
        }
        const have = cur.metadata.labels ?? {};
        const haveAnn = cur.metadata.annotations ?? {};
        if (holds(have, labels) && holds(haveAnn, annotations)) return cur;
        cur.metadata.labels = { ...have, ...labels };
        if (Object.keys(annotations).length) cur.metadata.annotations = { ...haveAnn, ...annotations };
        return await this.store.update(cur);
      } catch (e) {
        const code = (e as { code?: string }).code;
        if ((code === 'Conflict' || code === 'AlreadyExists') && attempt < 5) continue;
        throw e;
      }
    }
  }

  // --- the agent API -----------------------------------------------------------------

  async config(p: NodePrincipal, node: string): Promise<AgentConfig> {
    this.check(p, node);
    return this.configOf(node);
  }

  async configOf(node: string): Promise<AgentConfig> {
    const cm = await this.store.tryGet('ConfigMap', localVolumeConfigNamespace, localVolumeConfigName);
    if (!cm) return { nodeName: node, classes: [], resourceVersion: '0' };
    const parsed = parseStorageClassMap(cm.data?.[storageClassMapKey] ?? '');
    const rv = cm.metadata.resourceVersion ?? '0';
    if (!parsed.ok) return { nodeName: node, classes: [], error: parsed.errors.map((e) => `${e.field}: ${e.message}`).join('; '), resourceVersion: rv };
    return { nodeName: node, classes: parsed.classes, resourceVersion: rv };
  }

  async heartbeat(p: NodePrincipal, node: string, body: unknown): Promise<{ ok: true }> {
    this.check(p, node);
    const input = (isPlainObject(body) ? body : {}) as HeartbeatInput;
    const labels: Record<string, string> = {};
    if (input.labels !== undefined) {
      if (!isPlainObject(input.labels)) throw bad('labels must be a map');
      const entries = Object.entries(input.labels);
      if (entries.length > MAX_LABELS) throw bad(`at most ${MAX_LABELS} labels`);
      for (const [k, v] of entries) {
        if (typeof v !== 'string') throw bad(`label ${k} must be a string`);
        labels[k] = v;
      }
    }
    labels[labelHostname] ??= node;
    const annotations: Record<string, string> = {};
    if (input.replicationEndpoint !== undefined) {
      // Where other nodes' agents send this node's replicas: host:port, nothing else.
      if (!replicationEndpointSchema.safeParse(input.replicationEndpoint).success) throw bad('replicationEndpoint must be host:port (an IPv6 address in brackets), at most 300 characters');
      annotations[annReplicationEndpoint] = input.replicationEndpoint;
    }
    // A node token acts for its own node only: no other node's name, role or place.
    const refuse = (have: Record<string, string>) =>
      Object.entries(labels)
        .map(([k, v]) => forbiddenNodeLabel(node, k, v, have))
        .find((x) => x !== undefined);
    await this.ensureNode(node, labels, refuse, annotations);
    const info = isPlainObject(input.nodeInfo) ? input.nodeInfo : {};
    for (let attempt = 0; ; attempt++) {
      const cur = await this.store.get('Node', undefined, node);
      cur.status = { ...(cur.status ?? {}), conditions: heartbeatConditions(cur.status?.conditions, new Date()) };
      const nodeInfo: Record<string, unknown> = { ...(cur.status.nodeInfo ?? {}) };
      for (const k of ['operatingSystem', 'architecture', 'kernelVersion', 'osImage'] as const) {
        const v = str(info[k], `nodeInfo.${k}`, 256, true);
        if (v !== undefined) nodeInfo[k] = v;
      }
      nodeInfo.kubeletVersion = 'stowage-agent';
      cur.status.nodeInfo = nodeInfo;
      try {
        await this.store.update(cur, { subresource: 'status' });
        return { ok: true };
      } catch (e) {
        if ((e as { code?: string }).code === 'Conflict' && attempt < 5) continue;
        throw e;
      }
    }
  }

  /** Replaces the node's discovery report. Returns the PV names whose disks changed. */
  async reportDiscoveries(p: NodePrincipal, node: string, body: unknown): Promise<{ accepted: number; changed: string[] }> {
    this.check(p, node);
    const entries = isPlainObject(body) ? body.entries : undefined;
    if (!Array.isArray(entries)) throw bad('entries must be a list');
    if (entries.length > MAX_ENTRIES) throw bad(`at most ${MAX_ENTRIES} entries per report`);
    const { classes } = await this.configOf(node);
    const byClass = new Map(classes.map((c) => [c.className, c]));
    const rows = [];
    const seen = new Set<string>();
    for (const [i, raw] of entries.entries()) {
      if (!isPlainObject(raw)) throw bad(`entries[${i}] must be an object`);
      const e = raw as unknown as DiscoveredEntry;
      const className = str(e.className, `entries[${i}].className`, 253)!;
      const entryName = str(e.entryName, `entries[${i}].entryName`, 255)!;
      const hostPath = str(e.hostPath, `entries[${i}].hostPath`, 4096)!;
      const cls = byClass.get(className);
      if (!cls) continue; // the configuration changed since the agent read it
      if (entryName === '' || entryName === '.' || entryName === '..' || entryName.includes('/') || entryName.includes('\0')) {
        throw bad(`entries[${i}].entryName must be a single path element`);
      }
      if (hostPath !== path.posix.join(cls.hostDir, entryName)) {
        throw bad(`entries[${i}].hostPath must be the entry ${JSON.stringify(entryName)} of the discovery directory ${cls.hostDir}`);
      }
      if (e.volumeMode !== 'Filesystem' && e.volumeMode !== 'Block') throw bad(`entries[${i}].volumeMode must be Filesystem or Block`);
      const capacity = str(e.capacityBytes ?? '0', `entries[${i}].capacityBytes`, 30)!;
      if (!/^\d+$/.test(capacity)) throw bad(`entries[${i}].capacityBytes must be a decimal byte count`);
      if (typeof e.eligible !== 'boolean') throw bad(`entries[${i}].eligible must be a boolean`);
      const key = `${className}\0${entryName}`;
      if (seen.has(key)) throw bad(`entries[${i}] repeats ${className}/${entryName}`);
      seen.add(key);
      rows.push({
        className,
        entryName,
        hostPath,
        pvName: localPvName(node, className, entryName),
        volumeMode: e.volumeMode,
        capacityBytes: capacity,
        eligible: e.eligible,
        reason: e.eligible ? null : (str(e.reason, `entries[${i}].reason`, 1000, true) ?? 'not eligible'),
        deviceId: str(e.deviceId, `entries[${i}].deviceId`, 200, true) ?? null,
      });
    }
    const changed = await this.disks.replaceForNode(node, rows);
    return { accepted: rows.length, changed };
  }

  /** Renews the leases of what the instance runs, and hands it new jobs. */
  async claimCleanups(p: NodePrincipal, node: string, body: unknown): Promise<{ jobs: CleanupRequest[] }> {
    this.check(p, node);
    const b = isPlainObject(body) ? body : {};
    const instance = str(b.instance, 'instance', 64)!;
    if (!INSTANCE_RE.test(instance)) throw bad('instance must be 1-64 letters, digits, ".", "_" or "-"');
    const running = Array.isArray(b.running) ? b.running : [];
    if (running.length > 1000 || !running.every((id) => typeof id === 'string' && JOB_ID_RE.test(id))) throw bad('running must be a list of job ids');
    const max = typeof b.max === 'number' && Number.isInteger(b.max) ? Math.max(0, Math.min(64, b.max)) : 4;
    await this.jobs.renew(node, instance, running as string[], this.leaseMs);
    if (max === 0) return { jobs: [] };
    const jobs = await this.jobs.claim(node, instance, this.leaseMs, max, running as string[]);
    for (const j of jobs) {
      if (j.volumeMode !== 'Block') continue;
      await this.volumeEvent(j.pvName, j.pvUid, 'Normal', reasons.volumeDelete, `Starting cleanup of Block PV "${j.pvName}", this may take a while`);
    }
    return {
      jobs: jobs.map((j) => ({
        jobId: j.id,
        pvName: j.pvName,
        className: j.className,
        hostPath: j.hostPath,
        volumeMode: j.volumeMode,
        method: j.method,
        ...(j.method === 'custom' ? { command: j.command } : {}),
        ...(j.fsType ? { fsType: j.fsType } : {}),
        attempt: j.attempt,
      })),
    };
  }

  async reportProgress(p: NodePrincipal, node: string, jobId: string, body: unknown): Promise<{ cancel: boolean }> {
    this.check(p, node);
    if (!JOB_ID_RE.test(jobId)) throw new StowageError('NotFound', `cleanup job "${jobId}" not found`);
    const b = isPlainObject(body) ? body : {};
    const instance = str(b.instance, 'instance', 64)!;
    const progress = parseProgress(jobId, b.progress);
    const r = await this.jobs.progress(jobId, node, instance, progress, this.leaseMs);
    // A job the instance no longer holds must stop, too.
    return { cancel: r.cancel || !r.held };
  }

  async reportResult(p: NodePrincipal, node: string, jobId: string, body: unknown): Promise<{ state: string | undefined }> {
    this.check(p, node);
    if (!JOB_ID_RE.test(jobId)) throw new StowageError('NotFound', `cleanup job "${jobId}" not found`);
    const b = isPlainObject(body) ? body : {};
    const instance = str(b.instance, 'instance', 64)!;
    const r = (isPlainObject(b.result) ? b.result : {}) as Partial<CleanupResult>;
    if (typeof r.ok !== 'boolean') throw bad('result.ok must be a boolean');
    const tail = Array.isArray(r.outputTail) ? r.outputTail.filter((l): l is string => typeof l === 'string').slice(-50).map((l) => l.slice(0, 1000)) : [];
    const job = await this.jobs.get(jobId);
    if (!job || job.nodeName !== node) throw new StowageError('NotFound', `cleanup job "${jobId}" not found`);
    const error = r.ok ? undefined : `${str(r.error, 'result.error', 4000, true) ?? 'cleanup failed'}${typeof r.exitCode === 'number' ? ` (exit status ${r.exitCode})` : ''}`;
    const progress = isPlainObject(b.progress) ? parseProgress(jobId, b.progress) : undefined;
    const settled = await this.jobs.finish(jobId, node, instance, { ok: r.ok, error, outputTail: tail, progress }, backoffMs(job.attempt, this.retryBaseMs, this.retryMaxMs));
    if (settled && !r.ok && job.volumeMode === 'Block') {
      await this.volumeEvent(job.pvName, job.pvUid, 'Warning', reasons.volumeFailedDelete, `Error cleaning PV "${job.pvName}": ${error}`);
    }
    return { state: settled?.state };
  }

  /** An Event on the job's volume (upstream's static provisioner records block cleanups on the PV); never fails the call. */
  private async volumeEvent(pvName: string, pvUid: string, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    try {
      const pv = await this.store.tryGet('PersistentVolume', undefined, pvName);
      if (!pv || (pvUid && pv.metadata.uid !== pvUid)) return;
      // As upstream, the provisioner that made the volume reports: its provisioned-by name.
      const component = pv.metadata.annotations?.[annDynamicallyProvisioned] ?? localVolumeManagerComponent;
      await new EventRecorder(this.store, component, logger).record(pv, type, reason, message);
    } catch (err) {
      logger.warn({ err, pv: pvName, reason }, 'could not record a cleanup event');
    }
  }

  // --- publishing: the pods on the node and their volumes ---------------------------------

  /** The node's pods; with `waitMs` and the last version seen, held while the answer would not change. */
  async pods(p: NodePrincipal, node: string, o: { waitMs?: number; seen?: string; signal?: AbortSignal } = {}): Promise<{ pods: AgentPod[]; version: string }> {
    this.check(p, node);
    return this.publishing.podsFor(node, o);
  }

  async reportPod(p: NodePrincipal, node: string, body: unknown): Promise<{ phase: string | undefined }> {
    this.check(p, node);
    return this.publishing.report(node, body);
  }

  async podDone(p: NodePrincipal, node: string, body: unknown): Promise<{ deleted: boolean }> {
    this.check(p, node);
    return this.publishing.done(node, body);
  }
}
