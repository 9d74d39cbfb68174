// The reclaim center: volumes and claims an admin may want back (Released, Failed, on a
// node that is gone, claims no pod used for N days, failed cleanups), a preview of exactly
// what each action changes, and the actions themselves. The rules are the pure
// server/domain/reclaim.ts; every write is authorized by ObjectService and made with the
// resourceVersion the preview showed, so an action previewed on an object that changed
// since fails with a conflict instead of acting. Each applied action records a Normal
// Event on its object, naming the actor, in the write's own transaction. What the center
// lists is reclaim-overview.ts; the facts the rules read, reclaim-facts.ts.
import { logger } from './logger';
import { actorOfPrincipal } from '../domain/actor';
import { isAllowed, type Principal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { claimVerdict, reclaimEvent, volumeVerdict, type ClaimAction, type ReclaimVerdict, type VolumeAction } from '../domain/reclaim';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import { isKind } from '../resources/of-kind';
import { EventRecorder } from './event-recorder';
import type { LocalVolumeService, JobView } from './local-volumes';
import type { ListService } from './lists';
import type { ObjectService } from './objects';
import { claimFacts, label, parseClaimName, volumeFacts } from './reclaim-facts';
import { reclaimOverview, type ReclaimOverview } from './reclaim-overview';
import { reclaimCenterComponent } from '../domain/well-known/components';

const PV = 'PersistentVolume';
const PVC = 'PersistentVolumeClaim';
export const MAX_RECLAIM_BATCH = 200;
/** The lists' bulk actions take up to this many rows. */
const MAX_BULK_NAMES = 500;

export interface ReclaimTarget {
  kind: 'PersistentVolume' | 'PersistentVolumeClaim';
  namespace?: string;
  name: string;
  action: VolumeAction | ClaimAction;
  /** pre-bind: the claim, as namespace/name. */
  claim?: string;
}

export interface PreviewRow extends ReclaimTarget {
  /** The version the preview was computed on; pass it back to apply. */
  resourceVersion: string;
  allowed: boolean;
  changes: string[];
  reason?: string;
}

export interface ApplyResult {
  done: string[];
  skipped: { name: string; reason: string }[];
}

export class ReclaimService {
  constructor(
    private readonly objects: ObjectService,
    private readonly lists: ListService,
    private readonly localVolumes: LocalVolumeService,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private get store() {
    return this.objects.store;
  }

  private mayRead(p: Principal): void {
    if (!isAllowed(p, 'list', PV) || !isAllowed(p, 'list', PVC)) {
      throw new StowageError('Forbidden', `User "${p.name}" cannot see the reclaim center: it needs to list volumes and claims in every namespace`);
    }
  }

  /** Everything the center lists; `unusedDays`: claims no pod used for at least that many days. */
  async overview(p: Principal, opts: { unusedDays: number }): Promise<ReclaimOverview> {
    this.mayRead(p);
    return reclaimOverview({ objects: this.objects, lists: this.lists, localVolumes: this.localVolumes, now: this.now }, p, opts);
  }

  /** What each target's action would change now, or why it may not; nothing is written. */
  async preview(p: Principal, targets: ReclaimTarget[]): Promise<PreviewRow[]> {
    this.mayRead(p);
    if (targets.length > MAX_RECLAIM_BATCH) throw new StowageError('BadRequest', `at most ${MAX_RECLAIM_BATCH} objects at once`);
    const out: PreviewRow[] = [];
    for (const t of targets) {
      const judged = await this.judge(p, t);
      if ('missing' in judged) {
        out.push({ ...t, resourceVersion: '', allowed: false, changes: [], reason: judged.missing });
        continue;
      }
      const { obj, verdict } = judged;
      out.push({
        ...t,
        resourceVersion: obj.metadata.resourceVersion!,
        allowed: verdict.allowed,
        changes: verdict.allowed ? verdict.changes : [],
        ...(verdict.allowed ? {} : { reason: verdict.reason }),
      });
    }
    return out;
  }

  private async judge(p: Principal, t: ReclaimTarget): Promise<{ obj: PersistentVolume | PersistentVolumeClaim; verdict: ReclaimVerdict } | { missing: string }> {
    const ns = t.kind === PVC ? t.namespace : undefined;
    if (t.kind === PVC && !ns) return { missing: 'a claim needs its namespace' };
    const gone = { missing: `${t.kind === PV ? 'volume' : 'claim'} ${label(t)} no longer exists` };
    if (t.kind === PV) {
      const pv = await unlessNotFound(this.objects.get(p, PV, undefined, t.name));
      if (!pv) return gone;
      if (!(['make-available', 'pre-bind', 'recycle', 'delete'] as string[]).includes(t.action)) return { missing: `unknown volume action "${t.action}"` };
      return { obj: pv, verdict: volumeVerdict(t.action, await volumeFacts(this.store, pv, t.claim)) };
    }
    const claim = await unlessNotFound(this.objects.get(p, PVC, ns, t.name));
    if (!claim) return gone;
    if (t.action !== 'delete') return { missing: `unknown claim action "${t.action}"` };
    return { obj: claim, verdict: claimVerdict('delete', await claimFacts(this.store, claim)) };
  }

  /**
   * Applies previewed actions. Each item carries the resourceVersion of its preview: an
   * object that changed since is left alone with a conflict. The rules are checked again
   * on the current state; every write goes through ObjectService as the principal.
   */
  async apply(p: Principal, items: (ReclaimTarget & { resourceVersion: string })[]): Promise<ApplyResult> {
    if (items.length > MAX_RECLAIM_BATCH) throw new StowageError('BadRequest', `at most ${MAX_RECLAIM_BATCH} objects at once`);
    const result: ApplyResult = { done: [], skipped: [] };
    for (const item of items) {
      try {
        await this.applyOne(p, item);
        result.done.push(label(item));
      } catch (e) {
        if (!(e instanceof StowageError) || e.code === 'InternalError') throw e;
        result.skipped.push({ name: label(item), reason: e.message });
      }
    }
    return result;
  }

  private async applyOne(p: Principal, item: ReclaimTarget & { resourceVersion: string }): Promise<void> {
    const verb = item.action === 'delete' ? 'delete' : 'update';
    this.objects.authorize(p, verb, item.kind, item.kind === PVC ? item.namespace : undefined, item.name);
    const judged = await this.judge(p, item);
    if ('missing' in judged) throw new StowageError('NotFound', judged.missing);
    const { obj, verdict } = judged;
    const stale = (current: string | undefined) =>
      new StowageError('Conflict', `${label(item)} changed since the preview (version ${item.resourceVersion} → ${current}); preview again`);
    if (obj.metadata.resourceVersion !== item.resourceVersion) throw stale(obj.metadata.resourceVersion);
    if (!verdict.allowed) throw new StowageError('Conflict', verdict.reason);
    const ns = item.kind === PVC ? item.namespace : undefined;
    const actor = actorOfPrincipal(p);
    // The write and its Event in one transaction: both or neither, so the object's timeline
    // never shows an action without its Event, nor an Event of an action that was refused.
    // The write is made on the store's transaction rather than through ObjectService, whose
    // methods each open their own transaction; ObjectService.authorize ran above, and for
    // these writes ObjectService adds nothing else (volumes are admins' alone, so no
    // redaction to restore; deletes have no admission), while the store still applies the
    // kind's validation. The stored object is read again under its row lock and must still
    // be at the previewed version.
    await this.store.transact(
      async (tx) => {
        const current = await tx.get(item.kind, ns, item.name);
        if (!current) throw new StowageError('NotFound', `${item.kind === PV ? 'volume' : 'claim'} ${label(item)} no longer exists`);
        if (current.metadata.resourceVersion !== item.resourceVersion) throw stale(current.metadata.resourceVersion);
        // The recorder queues its Event on this transaction (its runner is the transaction
        // itself), so the Event commits with the change or not at all. Its involvedObject
        // names the version the action was applied to.
        const events = new EventRecorder(this.store, reclaimCenterComponent, logger, (fn) => fn(tx));
        if (item.action === 'delete') {
          const { object } = await tx.delete(item.kind, ns, item.name, { preconditions: { uid: current.metadata.uid, resourceVersion: item.resourceVersion } });
          const e = reclaimEvent(actor, { action: 'delete', before: current, after: object });
          await events.record(current, 'Normal', e.reason, e.message);
          return;
        }
        // Only a volume has actions other than delete (judge refused any other), and a
        // stored volume has the spec its validation requires.
        if (!isKind(current, PV)) throw new StowageError('BadRequest', `unknown claim action "${item.action}"`);
        const next = structuredClone(current);
        if (item.action === 'make-available') {
          delete next.spec!.claimRef;
        } else if (item.action === 'pre-bind') {
          const ref = parseClaimName(item.claim)!;
          next.spec!.claimRef = { kind: PVC, apiVersion: 'v1', namespace: ref.namespace, name: ref.name };
        } else if (item.action === 'recycle') {
          next.spec!.persistentVolumeReclaimPolicy = 'Delete';
        }
        const after = await tx.update(next);
        const e = reclaimEvent(actor, { action: item.action, before: current, after });
        await events.record(current, 'Normal', e.reason, e.message);
      },
      { actor },
    );
  }

  /**
   * The Volumes list's bulk "Make Available": each named volume is judged and, when the
   * rules allow, changed at the version it was judged at, through the same path as the
   * center's previewed actions; the others are left alone with why.
   */
  async makeAvailable(p: Principal, names: string[]): Promise<ApplyResult> {
    this.objects.authorize(p, 'update', PV);
    if (names.length > MAX_BULK_NAMES) throw new StowageError('BadRequest', `at most ${MAX_BULK_NAMES} volumes at once`);
    const result: ApplyResult = { done: [], skipped: [] };
    for (const name of names) {
      const [row] = await this.preview(p, [{ kind: PV, name, action: 'make-available' }]);
      if (!row.allowed) {
        result.skipped.push({ name, reason: row.reason ?? 'not allowed' });
        continue;
      }
      const applied = await this.apply(p, [{ kind: PV, name, action: 'make-available', resourceVersion: row.resourceVersion }]);
      result.done.push(...applied.done);
      result.skipped.push(...applied.skipped);
    }
    return result;
  }

  /** The existing retry of a failed or quarantined cleanup. */
  retryCleanup(p: Principal, jobId: string): Promise<JobView> {
    return this.localVolumes.retry(p, jobId);
  }
}

/** The object `read` answers, or undefined when there is none (NotFound). */
async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  return read.catch((e) => {
    if (e instanceof StowageError && e.code === 'NotFound') return undefined;
    throw e;
  });
}
