// "Claim nearly full": when a Bound volume's used bytes (written by whoever measures it:
// the host-path plugin, the btrfs pools' agents, the local-volume agents) reach the
// threshold an administrator set, the claim gets one Warning event, VolumeNearlyFull, with
// used and capacity; the volume remembers the crossing (annotation stowage.io/nearly-full)
// so later usage reports write nothing until usage falls below the mark again. The decision
// is domain/nearly-full.ts; this reads the state, records the event, then the mark (a crash
// in between repeats the event once, which the recorder counts on the same Event).
import type { Logger } from 'pino';
import { nearlyFullAction, nearlyFullMessage, reasonVolumeNearlyFull } from '../../domain/nearly-full';
import { quantityFromJSON, quantityToBytes } from '../../domain/quantity';
import { usageOf } from '../../domain/volume-usage';
import { annNearlyFull, annUsedBytes } from '../../domain/well-known/annotations';
import { isKind } from '../../resources/of-kind';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { EventRecorder } from '../../services/event-recorder';
import type { SettingsService } from '../../services/settings';
import { measuredVolumeNames } from '../../store/capacity-queries';
import type { ChangeEvent } from '../../store/change-feed';
import type { ObjectStore } from '../../store/object-store';
import type { ControllerSpec, ReconcileContext } from '../runtime/controller';
import { write } from '../runtime/write';

export const nearlyFullName = 'claim-nearly-full';

export interface NearlyFullDeps {
  store: ObjectStore;
  settings: Pick<SettingsService, 'nearlyFullPercent'>;
  events: Pick<EventRecorder, 'record'>;
  log?: Logger;
}

export type NearlyFullOutcome = 'warned' | 'cleared' | 'unchanged';

const bytesOf = (q: unknown) => {
  const v = quantityFromJSON(q);
  return v ? quantityToBytes(v) : undefined;
};

/** The claim a volume is Bound to, when it exists and is bound back (uid checked when known). */
async function boundClaim(store: ObjectStore, pv: PersistentVolume) {
  const ref = pv.spec?.claimRef;
  if (pv.status?.phase !== 'Bound' || !ref?.name || !ref.namespace) return undefined;
  const claim = await store.recent('PersistentVolumeClaim', ref.namespace, ref.name);
  if (!claim || !isKind(claim, 'PersistentVolumeClaim') || (ref.uid && claim.metadata.uid !== ref.uid)) return undefined;
  return claim.spec?.volumeName === pv.metadata.name ? claim : undefined;
}

/** Looks at one volume: warns its claim on the way past the threshold, forgets the crossing below it. */
export async function syncNearlyFull(d: NearlyFullDeps, ctx: ReconcileContext, name: string): Promise<NearlyFullOutcome> {
  const found = await d.store.recent('PersistentVolume', undefined, name);
  if (!found || !isKind(found, 'PersistentVolume')) return 'unchanged';
  const pv = found;
  const claim = pv.metadata.deletionTimestamp ? undefined : await boundClaim(d.store, pv);
  const usage = claim ? usageOf(pv) : undefined;
  const capacity = bytesOf(claim?.status?.capacity?.storage) ?? bytesOf(pv.spec?.capacity?.storage);
  const threshold = await d.settings.nearlyFullPercent();
  const marked = pv.metadata.annotations?.[annNearlyFull] !== undefined;
  const action = nearlyFullAction({ usedBytes: usage?.bytes, capacityBytes: capacity, thresholdPercent: threshold, marked });
  if (action === 'none') return 'unchanged';
  if (action === 'warn') await d.events.record(claim!, 'Warning', reasonVolumeNearlyFull, nearlyFullMessage(usage!.bytes, capacity!, threshold));
  return write(d, ctx, async (tx) => {
    const fresh = await tx.get('PersistentVolume', undefined, name);
    if (!fresh || fresh.metadata.uid !== pv.metadata.uid) return 'unchanged';
    const annotations = { ...fresh.metadata.annotations };
    if (action === 'warn') annotations[annNearlyFull] = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    else delete annotations[annNearlyFull];
    await tx.update({ ...fresh, metadata: { ...fresh.metadata, annotations } });
    return action === 'warn' ? 'warned' : 'cleared';
  });
}

/** Volumes whose change may cross the mark: measured ones, and marked ones. */
function relevant(e: ChangeEvent): boolean {
  const a = e.object.metadata.annotations ?? {};
  return e.type !== 'DELETED' && (a[annUsedBytes] !== undefined || a[annNearlyFull] !== undefined);
}

export function nearlyFullSpec(d: NearlyFullDeps, o: { resyncMs?: number } = {}): ControllerSpec {
  return {
    name: nearlyFullName,
    concurrency: 2,
    // A volume's usage and phase changes arrive as its own changes; a threshold change
    // (a setting, not an object) is seen at the next resync.
    watch: { kinds: ['PersistentVolume'], keysFor: (e) => (relevant(e) ? [`pv/${e.name}`] : []) },
    listKeys: async () => (await measuredVolumeNames(d.store)).map((n) => `pv/${n}`),
    resync: { everyMs: o.resyncMs ?? 60_000 },
    reconcile: async (key, ctx) => {
      if (key.startsWith('pv/')) await syncNearlyFull(d, ctx, key.slice(3));
    },
  };
}
