// The server's side of volume publishing (the storage half of a kubelet), for node agents:
// which pods run on a node and what each of their claim volumes is on the host; the pod's
// status from what the agent reports (Running once every volume is there, FailedMount
// events when not); and the end of a Terminating pod once its volumes are unpublished.
// Every call is for the agent's own node; inputs are bounded and checked.
import { readReplication } from '../domain/replication';
import { answerVersion } from './answer-version';
import type { Logger } from 'pino';
import type { AgentPod, PodReport, PodVolume, VolumeReport } from '../contracts/agent';
import { StowageError } from '../domain/errors';
import { volumeNode } from '../domain/reclaim';
import { usageUpdate, withUsage } from '../domain/volume-usage';
import { timestampNow } from '../resources/metadata';
import { isPodTerminated, podClaims } from '../domain/pod-claims';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { Pod } from '../resources/pod/schema';
import type { ObjectStore } from '../store/object-store';
import type { ChangeEvent } from '../store/change-feed';
import { EventRecorder } from './event-recorder';
import { kubeletComponent } from '../domain/well-known/components';
import { reasons } from '../domain/well-known/event-reasons';
import { annDynamicallyProvisioned } from '../domain/well-known/annotations';
import { btrfsProvisioner } from '../domain/well-known/provisioners';

/** The most pods one node's agent is told about (and may report on) at once. */
export const MAX_NODE_PODS = 1_000;
/** The longest an agent's ask for its pods is held while nothing changes. */
export const MAX_PODS_WAIT_MS = 30_000;
const MAX_POD_VOLUMES = 128;
/** The least time between two writes of a local volume's usage. */
const USAGE_INTERVAL_MS = 60_000;

const bad = (m: string) => new StowageError('BadRequest', m);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function text(v: unknown, field: string, max: number): string {
  if (typeof v !== 'string' || v === '') throw bad(`${field} must be a non-empty string`);
  if (v.length > max) throw bad(`${field} must be at most ${max} characters`);
  return v;
}

/** The volume a claim is Bound to; undefined while it is not. */
function boundVolumeName(claim: PersistentVolumeClaim): string | undefined {
  const volumeName: string = claim.spec?.volumeName ?? '';
  return volumeName && claim.status?.phase === 'Bound' ? volumeName : undefined;
}

/** What the agent publishes of a volume: its mode, and its host path when its source is one (absolute). */
function publishedSource(pv: PersistentVolume): { volumeMode: 'Filesystem' | 'Block'; hostPath?: string } {
  const volumeMode = pv.spec?.volumeMode === 'Block' ? 'Block' : 'Filesystem';
  const hostPath: unknown = pv.spec?.local?.path ?? pv.spec?.hostPath?.path;
  return typeof hostPath === 'string' && hostPath.startsWith('/') ? { volumeMode, hostPath } : { volumeMode };
}

/** What the agent must publish for one volume of a pod, or why it must wait. Pure. */
export function resolveVolume(
  v: { volume: string; claimName: string; readOnly: boolean },
  claim: PersistentVolumeClaim | undefined,
  pv: PersistentVolume | undefined,
  node?: string,
): PodVolume {
  const base = { name: v.volume, claimName: v.claimName, readOnly: v.readOnly };
  if (!claim) return { ...base, volumeMode: 'Filesystem', waiting: `persistentvolumeclaim "${v.claimName}" not found` };
  const volumeName = boundVolumeName(claim);
  if (!volumeName) return { ...base, volumeMode: 'Filesystem', waiting: `persistentvolumeclaim "${v.claimName}" is not bound` };
  if (!pv) return { ...base, volumeMode: 'Filesystem', waiting: `persistentvolume "${volumeName}" not found` };
  const { volumeMode, hostPath } = publishedSource(pv);
  const withPv = { ...base, pvName: volumeName, volumeMode } as const;
  // A replicated volume is published only where its active copy is.
  const replication = readReplication(pv.metadata?.annotations);
  if (replication && node !== undefined && replication.activeNode !== node) {
    return { ...withPv, waiting: `volume "${volumeName}" is active on node "${replication.activeNode}" (epoch ${replication.epoch}); the replica on this node becomes the active copy only when that node is not Ready and no pod of the claim is left on it` };
  }
  if (hostPath) return { ...withPv, hostPath };
  const source = Object.keys(pv.spec ?? {}).find((k) => ['nfs', 'csi', 'iscsi', 'fc', 'rbd', 'cephfs'].includes(k)) ?? 'unknown';
  return { ...withPv, waiting: `volume "${volumeName}" has a ${source} source, which Stowage's node agent does not publish` };
}

/**
 * Whether a change of a pod leaves its entry of the node's answer as it was (the agent's
 * own status reports change a pod, not what it must publish): the same claim volumes (none
 * once it has finished) and the same deleting state. Pure.
 */
export function podEntryUnchanged(had: AgentPod, pod: Pod): boolean {
  if (had.uid !== pod.metadata.uid || had.deleting !== Boolean(pod.metadata.deletionTimestamp)) return false;
  const now = isPodTerminated(pod) ? [] : podClaims(pod);
  return now.length === had.volumes.length && now.every((c, i) => c.volume === had.volumes[i].name && c.claimName === had.volumes[i].claimName && c.readOnly === had.volumes[i].readOnly);
}

/**
 * Whether a change of a claim leaves the answer's volumes of that claim as they were: each
 * already resolved to a volume (not waiting) that the claim is still Bound to. Pure.
 */
export function claimEntriesUnchanged(entries: PodVolume[], claim: PersistentVolumeClaim): boolean {
  const bound = boundVolumeName(claim);
  return entries.length > 0 && bound !== undefined && entries.every((v) => !v.waiting && v.pvName === bound);
}

/**
 * Whether a change of a volume leaves the answer's entries resolved to it as they were: the
 * same volume mode and host path (its annotations, say the used bytes, do not matter). Pure.
 */
export function volumeEntriesUnchanged(entries: PodVolume[], pv: PersistentVolume): boolean {
  const now = publishedSource(pv);
  return entries.length > 0 && entries.every((v) => !v.waiting && v.volumeMode === now.volumeMode && v.hostPath === now.hostPath);
}

/** The pod's status for what the agent reported: Running when every claim volume is ready. Pure. */
export function podStatusFor(pod: Pod, ready: boolean, now: string): Record<string, unknown> {
  const prev = pod.status ?? {};
  const prevConds = Array.isArray(prev.conditions) ? prev.conditions : [];
  const cond = (type: string, status: 'True' | 'False', reason?: string) => {
    const old = prevConds.find((c) => c?.type === type);
    const same = old?.status === status;
    return {
      type,
      status,
      lastProbeTime: null,
      lastTransitionTime: same && old?.lastTransitionTime ? old.lastTransitionTime : now,
      ...(reason ? { reason } : {}),
    };
  };
  const containers = Array.isArray(pod.spec?.containers) ? pod.spec.containers : [];
  // any: the schema keeps containerStatuses loose (Stowage runs no containers); read as upstream writes them.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the schema keeps containerStatuses loose (Stowage runs no containers); read as upstream writes them
  const prevStatuses: any[] = Array.isArray(prev.containerStatuses) ? prev.containerStatuses : [];
  const containerStatuses = containers.map((c) => {
    const old = prevStatuses.find((s) => s?.name === c?.name);
    const startedAt = old?.state?.running?.startedAt ?? now;
    return {
      name: String(c?.name ?? ''),
      image: String(c?.image ?? ''),
      imageID: '',
      ready,
      started: ready,
      restartCount: 0,
      state: ready ? { running: { startedAt } } : { waiting: { reason: 'ContainerCreating' } },
    };
  });
  const scheduled = prevConds.find((c) => c?.type === 'PodScheduled') ?? cond('PodScheduled', 'True');
  const notReady = ready ? undefined : 'ContainersNotReady';
  return {
    ...prev,
    phase: ready ? 'Running' : 'Pending',
    conditions: [
      cond('PodReadyToStartContainers', ready ? 'True' : 'False'),
      cond('Initialized', 'True'),
      cond('Ready', ready ? 'True' : 'False', notReady),
      cond('ContainersReady', ready ? 'True' : 'False', notReady),
      scheduled,
    ],
    containerStatuses,
    startTime: prev.startTime ?? now,
  };
}

/** The report's volumes, checked: names, flags and bounded messages only. */
export function parsePodReport(body: unknown): PodReport {
  const b = isPlainObject(body) ? body : {};
  const volumes = Array.isArray(b.volumes) ? b.volumes : [];
  if (volumes.length > MAX_POD_VOLUMES) throw bad(`volumes: at most ${MAX_POD_VOLUMES} entries`);
  return {
    namespace: text(b.namespace, 'namespace', 63),
    name: text(b.name, 'name', 253),
    uid: text(b.uid, 'uid', 64),
    volumes: volumes.map((v, i): VolumeReport => {
      const o = isPlainObject(v) ? v : {};
      if (typeof o.ready !== 'boolean') throw bad(`volumes[${i}].ready must be a boolean`);
      const message = o.message === undefined ? undefined : text(o.message, `volumes[${i}].message`, 2000);
      const used = o.usedBytes === undefined ? undefined : text(o.usedBytes, `volumes[${i}].usedBytes`, 30);
      if (used !== undefined && !/^\d+$/.test(used)) throw bad(`volumes[${i}].usedBytes must be a decimal byte count`);
      return { name: text(o.name, `volumes[${i}].name`, 253), ready: o.ready, ...(message ? { message } : {}), ...(used ? { usedBytes: used } : {}) };
    }),
  };
}

export class PodPublishing {
  private readonly events: EventRecorder;

  constructor(
    private readonly store: ObjectStore,
    log: Logger,
  ) {
    this.events = new EventRecorder(store, kubeletComponent, log);
  }

  /**
   * The node's pods as podsOn has them, and a version of that answer. With `waitMs` and the
   * version the agent last had (`seen`), an unchanged answer is held (a long-poll) until a
   * pod of the node, a claim or a volume changes, or the wait is over: the agent hears of a
   * pod placed on its node at once and asks nothing meanwhile.
   */
  async podsFor(node: string, o: { waitMs?: number; seen?: string; signal?: AbortSignal } = {}): Promise<{ pods: AgentPod[]; version: string }> {
    const deadline = Date.now() + Math.max(0, Math.min(o.waitMs ?? 0, MAX_PODS_WAIT_MS));
    for (;;) {
      // The version before the read: a change after it wakes the wait below.
      const before = await this.store.currentResourceVersion();
      const pods = await this.podsOn(node);
      const version = answerVersion(pods);
      const left = deadline - Date.now();
      if (version !== o.seen || left <= 0 || o.signal?.aborted) return { pods, version };
      await this.nextChange(node, pods, before, left, o.signal);
    }
  }

  /**
   * Resolves at the first change after `after` that may change the node's answer (a pod
   * placed on it, leaving it or changing what it publishes; a claim its pods name, a volume
   * of those claims, each changed in what the answer says of it), after `ms`, or on abort.
   * Other claims and volumes, and the agent's own status reports, do not wake the node's agent.
   */
  private async nextChange(node: string, pods: AgentPod[], after: bigint, ms: number, signal?: AbortSignal): Promise<void> {
    const byUid = new Map(pods.map((p) => [p.uid, p]));
    const byClaim = new Map<string, PodVolume[]>();
    const byVolume = new Map<string, PodVolume[]>();
    for (const p of pods) {
      for (const v of p.volumes) {
        const k = `${p.namespace}/${v.claimName}`;
        byClaim.set(k, [...(byClaim.get(k) ?? []), v]);
        if (v.pvName) byVolume.set(v.pvName, [...(byVolume.get(v.pvName) ?? []), v]);
      }
    }
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), ms);
    const onAbort = () => stop.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const concerns = (e: ChangeEvent) => {
        if (e.kind === 'Pod') {
          const pod = e.object;
          if (pod.spec?.nodeName !== node) return false;
          const had = byUid.get(pod.metadata.uid ?? '');
          return e.type === 'DELETED' || !had || !podEntryUnchanged(had, pod);
        }
        if (e.kind === 'PersistentVolumeClaim') {
          const entries = byClaim.get(`${e.namespace}/${e.name}`);
          return entries !== undefined && (e.type === 'DELETED' || !claimEntriesUnchanged(entries, e.object));
        }
        if (e.kind !== 'PersistentVolume') return false;
        const pv = e.object;
        const entries = byVolume.get(e.name);
        if (entries) return e.type === 'DELETED' || !volumeEntriesUnchanged(entries, pv);
        const ref = pv.spec?.claimRef;
        return byClaim.has(`${ref?.namespace ?? ''}/${ref?.name ?? ''}`);
      };
      for await (const e of this.store.watch({ kinds: ['Pod', 'PersistentVolumeClaim', 'PersistentVolume'], resourceVersion: after === 0n ? '00' : after.toString(), signal: stop.signal, filter: concerns })) {
        void e;
        return;
      }
    } catch (err) {
      // Fell behind the log's compaction: answer again now.
      if ((err as StowageError)?.code !== 'Expired') throw err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      stop.abort();
    }
  }

  /** The pods placed on `node`, each claim volume resolved to a host path (or why not yet). */
  async podsOn(node: string): Promise<AgentPod[]> {
    // Three reads whatever the number of pods: the node's pods (by the indexed node
    // column), then their claims at once, then those claims' volumes at once.
    const pods = await this.store.onNode('Pod', node, MAX_NODE_PODS);
    // A pod that has finished no longer uses its volumes: nothing is published for it.
    const wanted = new Map(pods.map((pod) => [pod, isPodTerminated(pod) ? [] : podClaims(pod)]));
    const claimKeys = [...wanted].flatMap(([pod, cs]) => cs.map((c) => ({ namespace: pod.metadata.namespace ?? '', name: c.claimName })));
    const claims = await this.store.tryGetMany('PersistentVolumeClaim', claimKeys);
    const pvNames = [...new Set([...claims.values()].map((c) => c.spec?.volumeName).filter((n): n is string => !!n))];
    const volumes = await this.store.tryGetMany('PersistentVolume', pvNames.map((name) => ({ name })));
    const out: AgentPod[] = [];
    for (const [pod, podVolumes] of wanted) {
      const ns = pod.metadata.namespace ?? '';
      const resolved: PodVolume[] = podVolumes.map((v) => {
        const claim = claims.get(`${ns}/${v.claimName}`);
        const pvName: string = claim?.spec?.volumeName ?? '';
        return resolveVolume(v, claim, pvName ? volumes.get(`/${pvName}`) : undefined, node);
      });
      out.push({ namespace: ns, name: pod.metadata.name!, uid: pod.metadata.uid!, deleting: Boolean(pod.metadata.deletionTimestamp), volumes: resolved });
    }
    return out;
  }

  /** Applies an agent's report on one of its pods: status, and FailedMount events for what failed. */
  async report(node: string, body: unknown): Promise<{ phase: string | undefined }> {
    const r = parsePodReport(body);
    const result = await this.store.transact(async (tx) => {
      const pod = await tx.get('Pod', r.namespace, r.name);
      if (!pod || pod.metadata.uid !== r.uid) throw new StowageError('NotFound', `pods "${r.name}" not found`, { kind: 'pods', name: r.name });
      if (pod.spec?.nodeName !== node) throw new StowageError('Forbidden', `pod ${r.namespace}/${r.name} is not on node "${node}"`);
      if (pod.metadata.deletionTimestamp || isPodTerminated(pod)) return { pod, changed: false };
      const wanted = podClaims(pod).map((c) => c.volume);
      const ready = wanted.every((name) => r.volumes.some((v) => v.name === name && v.ready));
      const next = structuredClone(pod);
      next.status = podStatusFor(pod, ready, timestampNow());
      const saved = await tx.update(next, { subresource: 'status' });
      return { pod: saved, changed: saved.metadata.resourceVersion !== pod.metadata.resourceVersion };
    });
    for (const v of r.volumes) {
      if (!v.ready && v.message) await this.events.record(result.pod, 'Warning', reasons.failedMount, v.message);
    }
    await this.recordUsage(node, result.pod, r);
    return { phase: result.pod.status?.phase };
  }

  /**
   * The used bytes the agent measured on its own node's local volumes, kept on the PV
   * (domain/volume-usage.ts: at most once a minute per volume, only when changed). A volume
   * on another node, or one not bound through this pod's claim, is ignored.
   */
  private async recordUsage(node: string, pod: Pod, r: PodReport): Promise<void> {
    const ns = pod.metadata.namespace ?? '';
    for (const v of r.volumes) {
      if (!v.ready || v.usedBytes === undefined) continue;
      const ref = podClaims(pod).find((c) => c.volume === v.name);
      if (!ref) continue;
      const claim = await this.store.recent('PersistentVolumeClaim', ns, ref.claimName);
      const pvName: string = claim?.spec?.volumeName ?? '';
      if (!pvName) continue;
      const pv = await this.store.recent('PersistentVolume', undefined, pvName);
      if (!pv || pv.metadata.deletionTimestamp || volumeNode(pv) !== node || pv.spec?.claimRef?.uid !== claim?.metadata.uid) continue;
      // A pool volume's usage is its qgroup's, from the pool reports (node-pools.ts): a walk
      // of its files would differ a little and the two would overwrite each other.
      if (pv.metadata.annotations?.[annDynamicallyProvisioned] === btrfsProvisioner) continue;
      const update = usageUpdate(pv, { bytes: BigInt(v.usedBytes), partial: false }, Date.now(), USAGE_INTERVAL_MS);
      if (!update) continue;
      try {
        await this.store.update({ ...pv, metadata: { ...pv.metadata, annotations: withUsage(pv.metadata.annotations, update) } });
      } catch (err) {
        // A concurrent change of the volume: the next report measures again.
        if ((err as StowageError)?.code !== 'Conflict') throw err;
      }
    }
  }

  /** A Terminating pod whose volumes the agent has unpublished goes now (the kubelet's final delete). */
  async done(node: string, body: unknown): Promise<{ deleted: boolean }> {
    const b = isPlainObject(body) ? body : {};
    const namespace = text(b.namespace, 'namespace', 63);
    const name = text(b.name, 'name', 253);
    const uid = text(b.uid, 'uid', 64);
    const pod = await this.store.tryGet('Pod', namespace, name);
    if (!pod || pod.metadata.uid !== uid) return { deleted: true };
    if (pod.spec?.nodeName !== node) throw new StowageError('Forbidden', `pod ${namespace}/${name} is not on node "${node}"`);
    if (!pod.metadata.deletionTimestamp) throw new StowageError('Conflict', `pod ${namespace}/${name} is not being deleted`);
    try {
      const r = await this.store.delete('Pod', namespace, name, { gracePeriodSeconds: 0, preconditions: { uid } });
      return { deleted: r.deleted };
    } catch (err) {
      if ((err as StowageError)?.code === 'NotFound') return { deleted: true };
      throw err;
    }
  }
}
