// Settling intent records (crash recovery on start, and a periodic sweep): every asset this
// node's plugins may have made is either adopted by its PV or removed, so a crash at any
// point of provisioning or deletion leaks nothing (what hurt others: in-flight
// provisioning kept only in memory, kubernetes-csi/external-provisioner #486).
//
//   record      PV exists              no PV
//   creating/   adopt (mark its uid)   claim still waits for it: leave it, its provisioning
//   created                            continues the asset; else remove the asset.
//   + pvUid     keep                   the PV was deleted with policy Retain: release the
//                                      record, keep the data
//   deleting    the deleter's          finish removing the asset
//
// A snapshot's record (kind snapshot, named after its VolumeSnapshotContent, written after
// the content and before the copy or the btrfs snapshot): kept while its content exists
// (the snapshotter finishes or deletes it); without its content, or being deleted, the
// snapshot is removed.
import type { AssetRecord } from '../../store/provisioned-assets';
import { isSnapshotRecord } from '../../provisioners/node-local';
import type { ProvisioningDeps } from './deps';

const PV = 'PersistentVolume';
const PVC = 'PersistentVolumeClaim';

// An agent-backed plugin's removal is done by the record's node agent. Settling never waits
// for that agent (`noWait`): the record is marked deleting and the answer is 'waiting'; the
// caller looks again later (provisioner.ts queues the record's own key), so a node that
// does not report holds up neither the start of the controllers nor any other key.

export type Settled = 'kept' | 'adopted' | 'removed' | 'released' | 'skipped' | 'waiting';

/** What settling records needs (the deleter settles them too). */
export type SettleDeps = Pick<ProvisioningDeps, 'store' | 'plugins' | 'assets' | 'log' | 'node'>;

/** Whether the claim the asset was made for still exists, unbound or bound to this PV. */
async function claimStillWants(d: SettleDeps, r: AssetRecord): Promise<boolean> {
  const ref = typeof r.details.claim === 'string' ? r.details.claim : '';
  const slash = ref.indexOf('/');
  if (slash < 0) return false;
  const claim = await d.store.tryGet(PVC, ref.slice(0, slash), ref.slice(slash + 1));
  if (!claim || claim.metadata.uid !== r.claimUid || claim.metadata.deletionTimestamp) return false;
  return !claim.spec?.volumeName || claim.spec.volumeName === r.pvName;
}

/** A record waiting on its agent is looked at again after half its time in that state: 1 s at first, 30 s at most. */
export function agentWaitRetryMs(r: Pick<AssetRecord, 'updatedAt'>, now = Date.now(), maxMs = 30_000): number {
  return Math.min(maxMs, Math.max(1000, Math.round((now - r.updatedAt.getTime()) / 2)));
}

export interface SettleOptions {
  /** Only records whose PV existed once, or that are being deleted (not in-flight provisioning). */
  onlyAfterPv?: boolean;
  /** An agent-backed removal is only asked for, not waited for ('waiting' until its agent reports it done). */
  noWait?: boolean;
}

type Plugin = NonNullable<ReturnType<SettleDeps['plugins']['get']>>;

/** Removes the asset and forgets its record; without waiting on an agent when `noWait`. */
async function removeAsset(d: SettleDeps, plugin: Plugin, r: AssetRecord, opts: SettleOptions): Promise<Settled> {
  if (opts.noWait && plugin.agentBacked) {
    const deleting = r.state === 'deleting' ? r : await d.assets.markDeleting(r);
    if (deleting.details.removed !== true) return 'waiting';
  }
  await plugin.deleteAsset(r);
  return 'removed';
}

export async function settleAsset(d: SettleDeps, r: AssetRecord, opts: SettleOptions = {}): Promise<Settled> {
  const plugin = d.plugins.get(r.plugin);
  // Records of another node are that node's controllers', except an agent-backed plugin's.
  if (!plugin || (r.node !== d.node && !plugin.agentBacked)) return 'skipped';
  if (isSnapshotRecord(r)) return settleSnapshot(d, r, plugin.agentBacked === true && opts.noWait === true);
  if (opts.onlyAfterPv && r.state !== 'deleting' && !r.details.pvUid) return 'skipped';
  const pv = await d.store.tryGet(PV, undefined, r.pvName);
  if (r.state === 'deleting') {
    if (pv) return 'kept';
    return removeAsset(d, plugin, r, opts);
  }
  if (pv) {
    const uid = pv.metadata.uid!;
    const mine = !r.claimUid || pv.spec?.claimRef?.uid === r.claimUid;
    if (mine && r.details.pvUid !== uid && (await d.assets.adopt(r.plugin, r.pvName, uid))) return 'adopted';
    return 'kept';
  }
  if (r.details.pvUid) {
    if (await d.assets.release(r)) {
      d.log.info({ pv: r.pvName, details: r.details }, 'the PV of a retained asset is gone; the asset stays, Stowage forgets it');
      return 'released';
    }
    return 'kept';
  }
  if (await claimStillWants(d, r)) return 'kept';
  return removeAsset(d, plugin, r, opts);
}

async function settleSnapshot(d: SettleDeps, r: AssetRecord, noWait: boolean): Promise<Settled> {
  const ops = d.plugins.get(r.plugin)?.snapshots;
  if (!ops) return 'skipped';
  if (r.state !== 'deleting' && (await d.store.tryGet('VolumeSnapshotContent', undefined, r.pvName))) return 'kept';
  if (noWait) {
    const deleting = r.state === 'deleting' ? r : await d.assets.markDeleting(r);
    if (deleting.details.removed !== true) return 'waiting';
  }
  return (await ops.deleteRecord(r)) === 'deleted' ? 'removed' : 'skipped';
}

export interface SweepReport {
  adopted: number;
  removed: number;
  released: number;
  failed: number;
  /** Records waiting for their node's agent (agent-backed removals, never waited for here). */
  waiting: AssetRecord[];
}

/**
 * Settles the records this process may settle (see settleAsset) untouched for `graceMs` (0 on
 * start: nothing is in flight). Agent-backed removals are asked for, not waited for: those
 * records come back in `waiting`.
 */
export async function sweepAssets(d: SettleDeps, graceMs: number): Promise<SweepReport> {
  const report: SweepReport = { adopted: 0, removed: 0, released: 0, failed: 0, waiting: [] };
  const cutoff = Date.now() - graceMs;
  for (const r of await d.assets.list()) {
    if (graceMs > 0 && r.updatedAt.getTime() > cutoff) continue;
    try {
      const s = await settleAsset(d, r, { noWait: true });
      if (s === 'adopted' || s === 'removed' || s === 'released') report[s]++;
      else if (s === 'waiting') report.waiting.push(r);
    } catch (err) {
      report.failed++;
      d.log.warn({ err, asset: r.id }, 'could not settle an intent record; will try again');
    }
  }
  const { waiting, ...counts } = report;
  if (counts.adopted + counts.removed + counts.released + counts.failed + waiting.length > 0) d.log.info({ ...counts, waiting: waiting.length }, 'intent records settled');
  return report;
}
