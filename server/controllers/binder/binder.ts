// The binder controller (seed 004 "Matching and binding", seed 000 "Controller workflow
// for provisioning volumes"): one reconcile on the shared runtime for claims, volumes and
// StorageClasses, keyed pvc/<namespace>/<name>, pv/<name> and sc/<name>.
import type { Logger } from 'pino';
import type { ObjectStore } from '../../store/object-store';
import { keyPages, pendingClaimsOfClass, type KeyFilter } from '../../store/volume-queries';
import { BACKGROUND_IN_FLIGHT, keysByPage, type ControllerSpec, type ReconcileContext, type ReconcileResult } from '../runtime/controller';
import { isRowBusy } from '../runtime/controller-tx';
import type { EventRecorder } from '../../services/event-recorder';
import { TxBatcher } from '../runtime/tx-batcher';
import { bindPrefetcher } from './bind-prefetch';
import { syncClaim } from './claim-sync';
import { ClassCache, isDefaultClass } from './classes';
import type { BinderDeps } from './deps';
import { claimKey, keysFor, parseKey, volumeKey } from './keys';
import { syncVolume } from './volume-sync';

/** Provisioner names served by in-tree plugins when none are given (start.ts passes the registry's). */
export const inTreeProvisioners: ReadonlySet<string> = new Set<string>();

export interface BinderOptions {
  store: ObjectStore;
  log: Logger;
  /** Its Event recorder (runtime/recorders.ts, keyed by its component). */
  events: EventRecorder;
  /** Workers (default 256: most of a reconcile waits for its batch transaction, and more
   * workers make fuller batches when claims and volumes arrive in a burst). */
  concurrency?: number;
  /** How often Pending claims and unsettled volumes are looked at again (default 30 s). */
  resyncMs?: number;
  pendingGraceMs?: number;
  /** Most reconciles' writes per transaction (default 64). */
  maxBatch?: number;
  /** Write transactions in flight at once (default 2). */
  parallelTransactions?: number;
  inTreeProvisioners?: ReadonlySet<string>;
}

export const binderName = 'persistentvolume-binder';

async function syncClass(d: BinderDeps, ctx: ReconcileContext, name: string): Promise<void> {
  d.classes.invalidate();
  const sc = await d.classes.get(name);
  const waiting = await pendingClaimsOfClass(d.store, name, 10_000);
  if (sc && isDefaultClass(sc)) waiting.push(...(await pendingClaimsOfClass(d.store, null, 10_000)));
  for (const c of waiting) ctx.enqueue(claimKey(c.namespace, c.name));
}

export function binderSpec(opts: BinderOptions): ControllerSpec {
  const store = opts.store;
  const d: BinderDeps = {
    store,
    batcher: new TxBatcher(store, { maxBatch: opts.maxBatch ?? 64, parallel: opts.parallelTransactions ?? 2, prefetch: bindPrefetcher() }),
    events: opts.events,
    classes: new ClassCache(store),
    inTreeProvisioners: opts.inTreeProvisioners ?? inTreeProvisioners,
    pendingGraceMs: opts.pendingGraceMs ?? 1000,
    firstNoMatch: new Map(),
    now: () => new Date(),
  };
  /** Keys of the volumes, then the claims, that `volumes` and `claims` admit, a page at a time. */
  async function* keys(volumes: KeyFilter, claims: KeyFilter): AsyncGenerator<string[]> {
    yield* keysByPage(keyPages(store, 'PersistentVolume', volumes), (r) => volumeKey(r.name));
    yield* keysByPage(keyPages(store, 'PersistentVolumeClaim', claims), (r) => claimKey(r.namespace, r.name));
  }
  return {
    name: binderName,
    concurrency: opts.concurrency ?? 256,
    // Workers and connections for changes while a first pass or a resync round runs.
    backgroundConcurrency: BACKGROUND_IN_FLIGHT,
    watch: {
      kinds: ['PersistentVolumeClaim', 'PersistentVolume', 'StorageClass'],
      keysFor: (e) => {
        if (e.kind === 'StorageClass') d.classes.invalidate();
        return keysFor(e);
      },
    },
    listKeys: () => keys({ toSync: true }, {}),
    resync: {
      everyMs: opts.resyncMs ?? 30_000,
      listKeys: () => keys({ phases: ['Pending', 'Released', 'Failed'] }, { phases: ['Pending'] }),
    },
    reconcile: async (key: string, ctx: ReconcileContext): Promise<ReconcileResult | void> => {
      const k = parseKey(key);
      if (!k) return;
      try {
        if (k.kind === 'claim') return await syncClaim(d, ctx, k.namespace, k.name);
        if (k.kind === 'volume') return await syncVolume(d, ctx, k.name);
        return await syncClass(d, ctx, k.name);
      } catch (err) {
        // Another binder holds a row we need: it is acting on it; look again shortly.
        if (isRowBusy(err)) return { requeueAfter: 5 + Math.floor(Math.random() * 25) };
        throw err;
      }
    },
  };
}
