// The dashboard's view of local volumes: every entry each node's agent sees (eligible or
// not, with the reason), each disk's PV and cleanup job, a cluster roll-up, a PV's cleanup
// history, and the admin's retry/cancel of cleanups. Reads: admins and viewers; writes:
// admins. Outputs are shaped here, never raw rows.
import { isAllowed, type Principal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { isNodeReady, readyCondition } from '../domain/node-lifecycle';
import type { KubeObject } from '../resources/types';
import type { Node } from '../resources/node/schema';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { CleanupJob } from '../store/cleanup-jobs';
import type { DiskRow } from '../store/local-disks';
import type { ObjectStore } from '../store/object-store';
import type { NodeAgentService } from './node-agent';
import { ofKind } from '../resources/of-kind';
import { labelLocalNode } from '../domain/well-known/labels';
import { annDiskMissing, annNodeNotReporting } from '../domain/well-known/annotations';
import { copyOnNode, type NodeCopy } from '../domain/node-copies';
import { isDNS1123Subdomain } from '../domain/names';
import { volumesOnNode } from '../store/node-volumes';

export interface JobView {
  id: string;
  state: CleanupJob['state'];
  method: string;
  attempt: number;
  progress: CleanupJob['progress'];
  lastError: string | null;
  outputTail: string[];
  cancelRequested: boolean;
  nextAttemptAt: string;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  pvName: string;
}

export interface DiskView {
  className: string;
  entryName: string;
  hostPath: string;
  volumeMode: string;
  capacityBytes: string;
  eligible: boolean;
  reason: string | null;
  present: boolean;
  lastSeen: string;
  pvName: string;
  pv: { phase: string; claim?: string; uid: string; volumeMode: string; diskMissing: boolean; nodeNotReporting: boolean } | null;
  job: JobView | null;
  /** One word for the state line: discovered, available, bound, released, wiping, failed, quarantined, missing, ineligible. */
  stage: string;
}

/** A volume with a copy on a node, as the node's page lists it. */
export interface NodeVolumeView {
  pvName: string;
  phase: string;
  storageClass: string;
  capacityBytes: string | null;
  /** namespace/name of its claim, when bound. */
  claim?: string;
  copy: NodeCopy;
}

export interface NodeSummary {
  name: string;
  ready: boolean;
  lastHeartbeat: string | null;
  classes: { className: string; disks: number; eligible: number; available: number; bound: number }[];
  wiping: number;
  failed: number;
  quarantined: number;
}

function jobView(j: CleanupJob): JobView {
  return {
    id: j.id,
    state: j.state,
    method: j.method,
    attempt: j.attempt,
    progress: j.progress,
    lastError: j.lastError,
    outputTail: j.outputTail,
    cancelRequested: j.cancelRequested,
    nextAttemptAt: j.nextAttemptAt.toISOString(),
    createdAt: j.createdAt.toISOString(),
    updatedAt: j.updatedAt.toISOString(),
    finishedAt: j.finishedAt?.toISOString() ?? null,
    pvName: j.pvName,
  };
}

function stageOf(d: DiskRow, pv: PersistentVolume | undefined, job: CleanupJob | undefined): string {
  if (job?.state === 'running' || job?.state === 'queued') return 'wiping';
  if (job?.state === 'failed') return 'failed';
  if (job?.state === 'quarantined') return 'quarantined';
  if (!d.present) return 'missing';
  if (!d.eligible) return 'ineligible';
  if (!pv) return 'discovered';
  const phase = pv.status?.phase;
  if (phase === 'Bound') return 'bound';
  if (phase === 'Released' || phase === 'Failed') return 'released';
  return 'available';
}

export class LocalVolumeService {
  constructor(
    private readonly store: ObjectStore,
    private readonly agents: NodeAgentService,
  ) {}

  private canRead(p: Principal): void {
    if (!isAllowed(p, 'get', 'PersistentVolume')) throw new StowageError('Forbidden', `User "${p.name}" cannot see local disks`);
  }

  private canWrite(p: Principal): void {
    if (!isAllowed(p, 'update', 'PersistentVolume')) throw new StowageError('Forbidden', `User "${p.name}" cannot retry or cancel cleanups`);
  }

  /** One page (by name) of the volumes with a copy on `node`: pinned there, active there, or a replica there. */
  async nodeVolumes(p: Principal, nodeName: string, o: { offset: number; limit: number; replicasOnly?: boolean }): Promise<{ total: number; offset: number; items: NodeVolumeView[] }> {
    if (!isAllowed(p, 'list', 'PersistentVolume')) throw new StowageError('Forbidden', `User "${p.name}" cannot list volumes`);
    if (isDNS1123Subdomain(nodeName).length > 0) throw new StowageError('Invalid', `"${nodeName.slice(0, 80)}" is not a node name`);
    const page = await volumesOnNode(this.store, nodeName, o);
    const now = new Date();
    const items = page.rows.flatMap((r): NodeVolumeView[] => {
      const copy = copyOnNode(nodeName, r.pinnedNode, r.annotations, now);
      if (!copy || (o.replicasOnly && copy.role !== 'replica')) return []; // a substring match the annotation does not bear out
      return [
        {
          pvName: r.name,
          phase: r.phase ?? '',
          storageClass: r.storageClass ?? '',
          capacityBytes: r.capacityBytes,
          ...(r.claimNamespace && r.claimName ? { claim: `${r.claimNamespace}/${r.claimName}` } : {}),
          copy,
        },
      ];
    });
    return { total: page.total, offset: o.offset, items };
  }

  async nodeDisks(p: Principal, nodeName: string): Promise<{ node: NodeSummary | null; disks: DiskView[] }> {
    this.canRead(p);
    const [disks, jobs, node, pvs] = await Promise.all([
      this.agents.disks.listForNode(nodeName),
      this.agents.jobs.listForNode(nodeName, { openOnly: true }),
      this.store.tryGet('Node', undefined, nodeName),
      this.store.list('PersistentVolume', { labelSelector: `${labelLocalNode}=${nodeName}` }).catch(() => ({ items: [] as KubeObject[] })),
    ]);
    const pvByName = new Map(ofKind(pvs.items, 'PersistentVolume').map((v) => [v.metadata.name!, v]));
    const jobByPath = new Map(jobs.map((j) => [j.hostPath, j]));
    const views = disks.map((d): DiskView => {
      const pv = pvByName.get(d.pvName);
      const job = jobByPath.get(d.hostPath);
      const ref = pv?.spec?.claimRef;
      return {
        className: d.className,
        entryName: d.entryName,
        hostPath: d.hostPath,
        volumeMode: d.volumeMode,
        capacityBytes: d.capacityBytes,
        eligible: d.eligible,
        reason: d.reason,
        present: d.present,
        lastSeen: d.lastSeen.toISOString(),
        pvName: d.pvName,
        pv: pv
          ? {
              phase: pv.status?.phase ?? '',
              ...(ref?.name ? { claim: `${ref.namespace}/${ref.name}` } : {}),
              uid: pv.metadata.uid ?? '',
              volumeMode: pv.spec?.volumeMode ?? 'Filesystem',
              diskMissing: pv.metadata.annotations?.[annDiskMissing] === 'true',
              nodeNotReporting: pv.metadata.annotations?.[annNodeNotReporting] === 'true',
            }
          : null,
        job: job ? jobView(job) : null,
        stage: stageOf(d, pv, job),
      };
    });
    return { node: node ? this.summaryOf(node, disks, jobs, pvByName) : null, disks: views };
  }

  private summaryOf(node: Node, disks: DiskRow[], jobs: CleanupJob[], pvs: Map<string, PersistentVolume>): NodeSummary {
    const classes = new Map<string, NodeSummary['classes'][number]>();
    for (const d of disks) {
      if (!d.present) continue;
      const c = classes.get(d.className) ?? { className: d.className, disks: 0, eligible: 0, available: 0, bound: 0 };
      c.disks++;
      if (d.eligible) c.eligible++;
      const phase = pvs.get(d.pvName)?.status?.phase;
      if (phase === 'Available') c.available++;
      if (phase === 'Bound') c.bound++;
      classes.set(d.className, c);
    }
    return {
      name: node.metadata.name!,
      ready: isNodeReady(node),
      lastHeartbeat: readyCondition(node)?.lastHeartbeatTime ?? null,
      classes: [...classes.values()],
      wiping: jobs.filter((j) => j.state === 'running' || j.state === 'queued').length,
      failed: jobs.filter((j) => j.state === 'failed').length,
      quarantined: jobs.filter((j) => j.state === 'quarantined').length,
    };
  }

  /** One row per node: disks per class, wiping, failed, quarantined, reporting or not. */
  async rollup(p: Principal): Promise<NodeSummary[]> {
    this.canRead(p);
    const nodes = ofKind((await this.store.list('Node')).items, 'Node');
    const out: NodeSummary[] = [];
    for (const n of nodes.slice(0, 500)) {
      const name = n.metadata.name!;
      const [disks, jobs, pvs] = await Promise.all([
        this.agents.disks.listForNode(name),
        this.agents.jobs.listForNode(name, { openOnly: true }),
        this.store.list('PersistentVolume', { labelSelector: `${labelLocalNode}=${name}` }).catch(() => ({ items: [] as KubeObject[] })),
      ]);
      out.push(this.summaryOf(n, disks, jobs, new Map(ofKind(pvs.items, 'PersistentVolume').map((v) => [v.metadata.name!, v]))));
    }
    return out;
  }

  /** A local PV's disk, node and cleanup history. */
  async volumeHistory(p: Principal, pvName: string): Promise<{ disk: { node: string; hostPath: string; className: string; present: boolean; eligible: boolean } | null; jobs: JobView[] }> {
    this.canRead(p);
    const [disk, jobs] = await Promise.all([this.agents.disks.byPvName(pvName), this.agents.jobs.historyOfPv(pvName)]);
    return {
      disk: disk ? { node: disk.nodeName, hostPath: disk.hostPath, className: disk.className, present: disk.present, eligible: disk.eligible } : null,
      jobs: jobs.map(jobView),
    };
  }

  /** Failed and quarantined cleanups on every node, for the reclaim center. */
  async stuckJobs(p?: Principal): Promise<JobView[]> {
    if (p) this.canRead(p);
    return (await this.agents.jobs.listStuck()).map(jobView);
  }

  async retry(p: Principal, jobId: string): Promise<JobView> {
    this.canWrite(p);
    const j = await this.agents.jobs.retry(jobId);
    if (!j) throw new StowageError('Conflict', 'only a failed or quarantined cleanup can be retried');
    return jobView(j);
  }

  async cancel(p: Principal, jobId: string): Promise<JobView> {
    this.canWrite(p);
    const j = await this.agents.jobs.cancel(jobId);
    if (!j) throw new StowageError('Conflict', 'only a queued, running or failed cleanup can be cancelled');
    return jobView(j);
  }
}
