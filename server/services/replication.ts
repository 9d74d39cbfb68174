// Replicated pool volumes for admins: what draining a node would move (a preview), the
// drain itself (the node is cordoned, and each replicated volume whose active copy is there
// is asked to move to its best replica: a final transfer once the claim's pods have left the
// node, then the switch, so nothing is lost), and uncordon. The replication controller does
// the moves; this only records the ask (the volume's intent record's `moveTo`).
import { isAllowed, type Principal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { isDNS1123Subdomain } from '../domain/names';
import { isNodeReady } from '../domain/node-lifecycle';
import { isPodTerminated, podClaimNames } from '../domain/pod-claims';
import { behindSeconds, readReplication, type ReplicaView } from '../domain/replication';
import { btrfsProvisioner } from '../domain/well-known/provisioners';
import type { Node } from '../resources/node/schema';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { ObjectStore } from '../store/object-store';
import { AssetStore } from '../store/provisioned-assets';

/** One volume a drain concerns. */
export interface DrainVolume {
  pvName: string;
  /** namespace/name of its claim, when bound. */
  claim?: string;
  /** The replica it moves to (the most recent in-sync one), when it can move. */
  to?: string;
  /** That replica's data age now (s). */
  behindSeconds?: number;
  /** Why it cannot move (not replicated, no in-sync replica). */
  stays?: string;
}

export interface DrainPlan {
  node: string;
  /** Already cordoned (spec.unschedulable). */
  cordoned: boolean;
  moves: DrainVolume[];
  stays: DrainVolume[];
  /** Pods on the node using the volumes that move: each move waits until they are gone. */
  podsToStop: { namespace: string; name: string; claims: string[] }[];
}

export class ReplicationService {
  private readonly assets: AssetStore;

  constructor(private readonly store: ObjectStore) {
    this.assets = new AssetStore(store);
  }

  private mustAdmin(p: Principal, what: string): void {
    if (!isAllowed(p, 'update', 'Node') || !isAllowed(p, 'update', 'PersistentVolume')) throw new StowageError('Forbidden', `User "${p.name}" cannot ${what}: it needs to update nodes and volumes`);
  }

  private async nodeOf(node: string): Promise<Node> {
    if (isDNS1123Subdomain(node).length > 0) throw new StowageError('Invalid', `"${node.slice(0, 80)}" is not a node name`);
    const n = await this.store.tryGet('Node', undefined, node);
    if (!n) throw new StowageError('NotFound', `nodes "${node}" not found`, { kind: 'nodes', name: node });
    return n;
  }

  /** What draining `node` would do: the volumes that move (and where), those that stay, the pods to stop first. */
  async drainPreview(p: Principal, node: string): Promise<DrainPlan> {
    this.mustAdmin(p, 'drain nodes');
    const n = await this.nodeOf(node);
    const records = await this.assets.list({ plugin: btrfsProvisioner, node, states: ['created', 'creating'] });
    const volumes = await this.store.tryGetMany('PersistentVolume', records.filter((r) => !r.pvName.startsWith('snapcontent-')).map((r) => ({ name: r.pvName })));
    const now = new Date();
    const nodes = new Map((await this.store.list('Node', {})).items.map((x) => [x.metadata.name ?? '', x]));
    const moves: DrainVolume[] = [];
    const stays: DrainVolume[] = [];
    const claims = new Map<string, string>();
    for (const pv of volumes.values()) {
      const ref = pv.spec?.claimRef;
      const claim = ref?.namespace && ref.name ? `${ref.namespace}/${ref.name}` : undefined;
      const base = { pvName: pv.metadata.name ?? '', ...(claim ? { claim } : {}) };
      const to = bestReplica(pv, now, (x) => isNodeReady(nodes.get(x)));
      if (!to) {
        stays.push({ ...base, stays: readReplication(pv.metadata.annotations) ? 'no replica on a Ready node holds a snapshot yet' : 'not replicated: its only copy is on this node' });
        continue;
      }
      moves.push({ ...base, to: to.node, ...(behindSeconds(to, now) !== undefined ? { behindSeconds: behindSeconds(to, now) } : {}) });
      if (claim) claims.set(claim, pv.metadata.name ?? '');
    }
    const pods = await this.store.onNode('Pod', node, 10_000);
    const podsToStop = pods
      .filter((pod) => !isPodTerminated(pod))
      .map((pod) => ({ namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', claims: podClaimNames(pod).filter((c) => claims.has(`${pod.metadata.namespace ?? ''}/${c}`)) }))
      .filter((x) => x.claims.length > 0);
    return { node, cordoned: n.spec?.unschedulable === true, moves: moves.sort(byName), stays: stays.sort(byName), podsToStop };
  }

  /** Cordons `node` and asks each movable volume to move; `dryRun` checks everything and changes nothing. */
  async drain(p: Principal, node: string, o: { dryRun?: boolean } = {}): Promise<DrainPlan> {
    const plan = await this.drainPreview(p, node);
    if (o.dryRun) return plan;
    await this.setUnschedulable(node, true);
    for (const m of plan.moves) {
      const record = await this.assets.get(btrfsProvisioner, m.pvName);
      if (record && record.node === node && record.state === 'created') await this.assets.setDetails(record, { moveTo: m.to, moveSeq: null });
    }
    return { ...plan, cordoned: true };
  }

  /** Makes `node` schedulable again (moves already done stay done). */
  async uncordon(p: Principal, node: string): Promise<{ node: string; cordoned: false }> {
    this.mustAdmin(p, 'uncordon nodes');
    await this.nodeOf(node);
    await this.setUnschedulable(node, false);
    return { node, cordoned: false };
  }

  private async setUnschedulable(node: string, on: boolean): Promise<void> {
    // Read and written under the row's lock: a heartbeat between the two cannot be lost.
    await this.store.transact(async (tx) => {
      const n = await tx.get('Node', undefined, node);
      if (!n) throw new StowageError('NotFound', `nodes "${node}" not found`, { kind: 'nodes', name: node });
      if ((n.spec?.unschedulable === true) === on) return;
      n.spec = { ...(n.spec ?? {}), unschedulable: on };
      await tx.update(n);
    });
  }
}

const byName = (a: DrainVolume, b: DrainVolume) => a.pvName.localeCompare(b.pvName);

/** The replica a move goes to: Ready, holding a snapshot, the most recent one. */
function bestReplica(pv: PersistentVolume, now: Date, ready: (node: string) => boolean): ReplicaView | undefined {
  const r = readReplication(pv.metadata.annotations);
  if (!r) return undefined;
  return r.replicas
    .filter((x) => x.lastSyncTime && (x.state === 'InSync' || x.state === 'Behind') && ready(x.node))
    .sort((a, b) => (behindSeconds(a, now) ?? Infinity) - (behindSeconds(b, now) ?? Infinity) || a.node.localeCompare(b.node))[0];
}
