// Publishing, the storage half of a kubelet: for each pod placed on this node, each claim
// volume appears under the pod's own directory,
//   <podsDir>/<pod uid>/volumes/<volume name>
// as a bind mount of the volume's host directory (read-only when the pod asks), or, for a
// Block volume, a link to its device node. Where mounting is refused (no privilege), a
// Filesystem volume is linked instead and the report says so. A pod being deleted, a volume
// the pod no longer names, and a directory of a pod that is gone are unpublished: unmount,
// then remove entry by entry, never recursively, so a volume's data is never touched.
//
// Passes may overlap (the agent begins one for each new answer of the server without
// waiting for the last to end): each pod's steps take turns with those of other passes,
// and only a pod the newest pass does not name has its directory swept as left over.
import path from 'node:path';
import type { AgentPod, PodReport, PodVolume, VolumeReport } from '../contracts/agent';
import type { PublishOs } from './publish-os';
import { inParallel } from '../domain/in-parallel';

const UID_RE = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;
/** Pods published side by side in a pass. */
const PODS_AT_ONCE = 8;
const VOLUME_RE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

export interface SyncResult {
  /** One report per pod that is not being deleted. */
  reports: PodReport[];
  /** Pods being deleted whose volumes are all unpublished now. */
  unpublished: { namespace: string; name: string; uid: string }[];
  /** What could not be done this pass (tried again on the next). */
  errors: string[];
}

/** The kubelet's words for a volume that cannot be set up. */
export function failedMount(v: PodVolume, why: string): string {
  return `MountVolume.SetUp failed for volume "${v.pvName ?? v.name}" : ${why}`;
}

/** How long a measured usage is reused before the volume is measured again (a walk of a plain directory is not free). */
export const usageRefreshMs = 60_000;

/**
 * How long a pod whose volumes were all published is trusted to stay so while the server
 * asks for the same volumes (as a kubelet's volume manager keeps its actual state of the
 * world in memory): passes in between only measure usage. After it, the pod's volumes are
 * looked at on disk again, so one unmounted behind the agent's back comes back.
 */
export const verifyEveryMs = 10_000;

export class Publisher {
  /** Last measurement per host path: used bytes (undefined: not measurable) and when. */
  private readonly usage = new Map<string, { at: number; bytes: bigint | undefined }>();
  /** Measurements under way (beside the passes), per host path. */
  private readonly measuring = new Map<string, Promise<void>>();
  /** Pods found fully published: the volumes asked for, when that was looked at, and the reports. */
  private readonly verified = new Map<string, { volumes: string; at: number; reports: VolumeReport[] }>();
  /** Per pod uid, the last of its steps begun: overlapping passes take turns per pod. */
  private readonly turns = new Map<string, Promise<void>>();
  /** The pods the newest pass names (passes begin in the order of the server's answers). */
  private newest = new Set<string>();

  constructor(
    private readonly os: PublishOs,
    readonly podsDir: string,
    private readonly refreshMs = usageRefreshMs,
    private readonly verifyMs = verifyEveryMs,
  ) {}

  volumeDir(uid: string, name: string): string {
    return path.join(this.podsDir, uid, 'volumes', name);
  }

  /**
   * One pass: make the node's published volumes match `pods`. `onReport` hears each pod's
   * report as soon as that pod is done (its caller can send it while the others are worked on).
   */
  async sync(pods: AgentPod[], onReport?: (report: PodReport) => void): Promise<SyncResult> {
    const out: SyncResult = { reports: [], unpublished: [], errors: [] };
    const known = new Set<string>();
    const valid = pods.filter((pod) => {
      if (UID_RE.test(pod.uid)) return true;
      out.errors.push(`pod ${pod.namespace}/${pod.name}: unusable uid`);
      return false;
    });
    for (const pod of valid) known.add(pod.uid);
    this.newest = known;
    // Pods side by side (each pod's own steps in order): a pass over many pods is not one
    // file-system round after another.
    await inParallel(valid, PODS_AT_ONCE, (pod) => this.inTurn(pod.uid, async () => {
      try {
        if (pod.deleting) {
          this.verified.delete(pod.uid);
          await this.unpublishPod(pod.uid);
          out.unpublished.push({ namespace: pod.namespace, name: pod.name, uid: pod.uid });
          return;
        }
        const asked = JSON.stringify(pod.volumes);
        const kept = this.verified.get(pod.uid);
        let published: VolumeReport[];
        if (kept && kept.volumes === asked && Date.now() - kept.at < this.verifyMs) {
          published = kept.reports;
        } else {
          this.verified.delete(pod.uid);
          const at = Date.now();
          const wanted = new Set(pod.volumes.map((v) => v.name));
          for (const name of await this.os.readdir(path.join(this.podsDir, pod.uid, 'volumes'))) {
            if (!wanted.has(name)) await this.unpublishEntry(path.join(this.podsDir, pod.uid, 'volumes', name));
          }
          published = [];
          for (const v of pod.volumes) published.push(await this.publishVolume(pod.uid, v));
          if (published.every((r) => r.ready)) this.verified.set(pod.uid, { volumes: asked, at, reports: published });
        }
        const volumes = pod.volumes.map((v, i) => this.withUsage(v, published[i]));
        const report = { namespace: pod.namespace, name: pod.name, uid: pod.uid, volumes };
        out.reports.push(report);
        onReport?.(report);
      } catch (err) {
        out.errors.push(`pod ${pod.namespace}/${pod.name}: ${(err as Error).message}`);
      }
    }));
    for (const uid of this.verified.keys()) if (!this.newest.has(uid)) this.verified.delete(uid);
    for (const uid of await this.os.readdir(this.podsDir)) {
      if (known.has(uid) || this.newest.has(uid)) continue;
      await this.inTurn(uid, async () => {
        if (this.newest.has(uid)) return; // named again by a pass begun meanwhile
        try {
          await this.unpublishPod(uid);
        } catch (err) {
          out.errors.push(`leftover pod directory ${uid}: ${(err as Error).message}`);
        }
      });
    }
    return out;
  }

  /** Runs `step` after the pod's steps begun before it (by this pass or another). */
  private inTurn(uid: string, step: () => Promise<void>): Promise<void> {
    const mine = (this.turns.get(uid) ?? Promise.resolve()).then(step, step);
    const last: Promise<void> = mine
      .catch(() => {}) // the caller hears it; the next step runs regardless
      .finally(() => {
        if (this.turns.get(uid) === last) this.turns.delete(uid);
      });
    this.turns.set(uid, last);
    return mine;
  }

  /**
   * A published filesystem volume's report with its used bytes as last measured: its
   * filesystem's on a mount point, its contents' on a plain directory (measured at most once
   * a minute, within a budget). The measuring runs beside the pass, never before the report:
   * a new volume is reported ready at once, and its usage goes with the next report.
   */
  private withUsage(v: PodVolume, r: VolumeReport): VolumeReport {
    if (!r.ready || v.volumeMode !== 'Filesystem' || !v.hostPath || !this.os.usedBytes) return r;
    const last = this.usage.get(v.hostPath);
    if (!last || Date.now() - last.at >= this.refreshMs) this.measure(v.hostPath);
    return last?.bytes === undefined ? r : { ...r, usedBytes: last.bytes.toString() };
  }

  private measure(hostPath: string): void {
    if (this.measuring.has(hostPath)) return;
    const at = Date.now();
    const done = (async () => {
      let bytes: bigint | undefined;
      try {
        bytes = await this.os.usedBytes!(hostPath);
      } catch {
        bytes = undefined;
      }
      if (this.usage.size >= 10_000) this.usage.clear();
      this.usage.set(hostPath, { at, bytes });
    })().finally(() => this.measuring.delete(hostPath));
    this.measuring.set(hostPath, done);
  }

  /** Resolves once the usage measurements under way now have ended. */
  async measured(): Promise<void> {
    await Promise.all([...this.measuring.values()]);
  }

  private async publishVolume(uid: string, v: PodVolume): Promise<VolumeReport> {
    const fail = (why: string): VolumeReport => ({ name: v.name, ready: false, message: failedMount(v, why) });
    if (!VOLUME_RE.test(v.name)) return fail(`volume name "${v.name}" is not a DNS label`);
    if (v.waiting || !v.hostPath) return fail(v.waiting ?? 'the volume has no host path');
    const src = v.hostPath;
    // The API accepts a relative spec.local.path, as upstream does; it never resolves against our cwd.
    if (!src.startsWith('/')) return fail(`path "${src}" is not an absolute path`);
    const srcKind = await this.os.kind(src);
    if (!srcKind) {
      return { name: v.name, ready: false, message: `MountVolume.NewMounter initialization failed for volume "${v.pvName ?? v.name}" : path "${src}" does not exist` };
    }
    const target = this.volumeDir(uid, v.name);
    if (v.volumeMode === 'Block') {
      if (srcKind !== 'block') return fail(`path "${src}" is not a block device`);
      if ((await this.os.lkind(target)) === 'symlink' && (await this.os.readlink(target)) === src) {
        return { name: v.name, ready: true, message: 'device link' };
      }
      await this.unpublishEntry(target);
      await this.os.mkdirp(path.dirname(target));
      await this.os.symlink(src, target);
      return { name: v.name, ready: true, message: 'device link' };
    }
    if (srcKind !== 'directory') return fail(`path "${src}" is not a directory`);
    const have = await this.os.lkind(target);
    if (have === 'directory' && (await this.os.isMountPoint(target))) return { name: v.name, ready: true, message: 'bind mount' };
    if (have === 'symlink' && (await this.os.readlink(target)) === src) return { name: v.name, ready: true, message: 'symlink' };
    await this.unpublishEntry(target);
    await this.os.mkdirp(target);
    try {
      await this.os.bindMount(src, target, v.readOnly);
      return { name: v.name, ready: true, message: 'bind mount' };
    } catch (err) {
      await this.os.removeOne(target);
      await this.os.symlink(src, target);
      return { name: v.name, ready: true, message: `symlink (bind mount refused: ${(err as Error).message})` };
    }
  }

  /** Unmounts and removes everything published here; returns what could not be. */
  async unpublishAll(): Promise<string[]> {
    this.verified.clear();
    const errors: string[] = [];
    for (const uid of await this.os.readdir(this.podsDir)) {
      try {
        await this.unpublishPod(uid);
      } catch (err) {
        errors.push(`pod directory ${uid}: ${(err as Error).message}`);
      }
    }
    return errors;
  }

  /** Unmounts (when mounted) and removes one published entry. */
  private async unpublishEntry(target: string): Promise<void> {
    const kind = await this.os.lkind(target);
    if (!kind) return;
    if (kind === 'directory' && (await this.os.isMountPoint(target))) await this.os.unmount(target);
    await this.os.removeOne(target);
  }

  private async unpublishPod(uid: string): Promise<void> {
    if (!UID_RE.test(uid)) return;
    const dir = path.join(this.podsDir, uid);
    const volumes = path.join(dir, 'volumes');
    for (const name of await this.os.readdir(volumes)) await this.unpublishEntry(path.join(volumes, name));
    await this.os.removeOne(volumes);
    await this.os.removeOne(dir);
  }
}
