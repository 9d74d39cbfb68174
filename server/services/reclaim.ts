// The reclaim center: volumes and claims an admin may want back (Released, Failed, on a
// node that is gone, claims no pod used for N days, failed cleanups), a preview of exactly
// what each action changes, and the actions themselves. The rules are the pure
// server/domain/reclaim.ts; every write is authorized by ObjectService and made with the
// resourceVersion the preview showed, so an action previewed on an object that changed
// since fails with a conflict instead of acting. Each applied action records a Normal
// Event on its object, naming the actor, in the write's own transaction.
import { logger } from './logger';
import { actorOfPrincipal } from '../domain/actor';
import { isAllowed, type Principal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { isNodeReady } from '../domain/node-lifecycle';
import {
  claimUsage,
  claimVerdict,
  daysSince,
  nodeGoneReason,
  reclaimEvent,
  usageSearchStart,
  volumeNode,
  volumeVerdict,
  type ClaimAction,
  type ReclaimVerdict,
  type VolumeAction,
} from '../domain/reclaim';
import { podClaimNames, podsUsingClaim } from '../domain/pod-claims';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { Node } from '../resources/node/schema';
import type { Pod } from '../resources/pod/schema';
import { isKind, ofKind } from '../resources/of-kind';
import { claimsCreatedBefore, podsNamingClaim, podsWithClaims, podUseFromHistory, volumesPinnedOutside } from '../store/reclaim-queries';
import { EventRecorder } from './event-recorder';
import type { LocalVolumeService, JobView } from './local-volumes';
import type { ListService } from './lists';
import type { ObjectService } from './objects';
import { annDynamicallyProvisioned } from '../domain/well-known/annotations';
import { reclaimCenterComponent } from '../domain/well-known/components';

const PV = 'PersistentVolume';
const PVC = 'PersistentVolumeClaim';
export const MAX_RECLAIM_BATCH = 200;
/** The lists' bulk actions take up to this many rows. */
const MAX_BULK_NAMES = 500;

export type ReclaimCategory = 'released' | 'failed' | 'node-gone' | 'unused';

export interface ActionState {
  allowed: boolean;
  reason?: string;
}

export interface ReclaimVolume {
  name: string;
  resourceVersion: string;
  categories: ReclaimCategory[];
  phase: string;
  reclaimPolicy: string;
  storageClass: string;
  capacity: string;
  claim: string | null;
  node: string | null;
  nodeProblem: string | null;
  provisionedBy: string | null;
  actions: Record<VolumeAction, ActionState>;
}

export interface ReclaimClaim {
  namespace: string;
  name: string;
  resourceVersion: string;
  phase: string;
  volume: string | null;
  storageClass: string;
  request: string;
  /** When a pod last used the claim, else its creation (see lastUseKnown). */
  lastUsed: string;
  /** A pod's use is known (in the store or in the history); false: lastUsed is the creation. */
  lastUseKnown: boolean;
  unusedDays: number;
  actions: Record<ClaimAction, ActionState>;
}

export interface ReclaimOverview {
  volumes: ReclaimVolume[];
  claims: ReclaimClaim[];
  cleanups: JobView[];
  unusedDays: number;
  /** The pod history searched for claims' uses starts here (null: no candidate claim). */
  usageSearchedFrom: string | null;
  /** false: the history search hit its bound inside the window, and unused claims are not listed. */
  usageComplete: boolean;
}

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

const label = (t: { namespace?: string; name: string }) => (t.namespace ? `${t.namespace}/${t.name}` : t.name);

function state(v: ReclaimVerdict): ActionState {
  return v.allowed ? { allowed: true } : { allowed: false, reason: v.reason };
}

function parseClaimName(s: string | undefined): { namespace: string; name: string } | undefined {
  if (!s) return undefined;
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(s.trim());
  if (!m || m[1].length > 63 || m[3].length > 253) return undefined;
  return { namespace: m[1], name: m[3] };
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

  /** Facts of a volume's decision: the claim its claimRef names and the pods using it. */
  private async volumeFacts(pv: PersistentVolume, claimName?: string, podsByClaim?: Map<string, Pod[]>) {
    const ref = pv.spec?.claimRef;
    const claim = ref?.name ? await this.store.tryGet(PVC, ref.namespace ?? 'default', ref.name) : undefined;
    const ns = claim?.metadata.namespace ?? '';
    const cn = claim?.metadata.name ?? '';
    const naming = claim ? (podsByClaim ? (podsByClaim.get(`${ns}/${cn}`) ?? []) : await podsNamingClaim(this.store, ns, cn)) : [];
    const claimPods = podsUsingClaim(naming, ns, cn);
    const targetRef = parseClaimName(claimName);
    const target = targetRef ? await this.store.tryGet(PVC, targetRef.namespace, targetRef.name) : undefined;
    return { pv, claim, claimPods, target, targetName: targetRef ? label(targetRef) : claimName?.trim() || undefined };
  }

  /** `known`: the pods naming the claim when the caller read them already (the overview reads them all at once). */
  private async claimFacts(claim: PersistentVolumeClaim, known?: Pod[]) {
    const pods = known ?? (await podsNamingClaim(this.store, claim.metadata.namespace!, claim.metadata.name!));
    return { claim, pods: podsUsingClaim(pods, claim.metadata.namespace!, claim.metadata.name!), podObjects: pods };
  }

  private async volumeRow(pv: PersistentVolume, categories: ReclaimCategory[], nodeProblem: string | null, podsByClaim: Map<string, Pod[]>): Promise<ReclaimVolume> {
    const facts = await this.volumeFacts(pv, undefined, podsByClaim);
    const ref = pv.spec?.claimRef;
    const actions = Object.fromEntries(
      (['make-available', 'pre-bind', 'recycle', 'delete'] as const).map((a) => {
        // pre-bind needs a claim name; judge it without one, minus that refusal.
        const v = volumeVerdict(a, a === 'pre-bind' ? { ...facts, targetName: '-', target: undefined } : facts);
        if (a === 'pre-bind' && !v.allowed && v.reason.startsWith('claim - ')) return [a, { allowed: true }];
        return [a, state(v)];
      }),
    ) as Record<VolumeAction, ActionState>;
    return {
      name: pv.metadata.name!,
      resourceVersion: pv.metadata.resourceVersion!,
      categories,
      phase: pv.metadata.deletionTimestamp ? 'Terminating' : (pv.status?.phase ?? 'Pending'),
      reclaimPolicy: pv.spec?.persistentVolumeReclaimPolicy ?? 'Retain',
      storageClass: pv.spec?.storageClassName ?? '',
      capacity: String(pv.spec?.capacity?.storage ?? ''),
      claim: ref?.name ? `${ref.namespace ?? 'default'}/${ref.name}` : null,
      node: volumeNode(pv) ?? null,
      nodeProblem,
      provisionedBy: pv.metadata.annotations?.[annDynamicallyProvisioned] ?? null,
      actions,
    };
  }

  /** Everything the center lists; `unusedDays`: claims no pod used for at least that many days. */
  async overview(p: Principal, opts: { unusedDays: number }): Promise<ReclaimOverview> {
    this.mayRead(p);
    const unusedDays = Math.min(3650, Math.max(0, Math.floor(opts.unusedDays)));
    const now = this.now();
    const [releasedPage, nodes] = await Promise.all([
      this.lists.page(p, { kind: PV, fields: { phase: ['Released', 'Failed'] }, sort: { key: 'name', dir: 'asc' }, limit: 500 }),
      this.store.list('Node'),
    ]);
    const nodeItems = ofKind(nodes.items, 'Node');
    const nodeByName = new Map<string, Node>(nodeItems.map((n) => [n.metadata.name!, n]));
    const readyNodes = nodeItems.filter((n) => isNodeReady(n)).map((n) => n.metadata.name!);
    const rows = new Map<string, { pv: PersistentVolume; categories: ReclaimCategory[]; nodeProblem: string | null }>();
    for (const pv of ofKind(releasedPage.items, PV)) {
      rows.set(pv.metadata.name!, { pv, categories: [pv.status?.phase === 'Failed' ? 'failed' : 'released'], nodeProblem: null });
    }
    for (const pv of await volumesPinnedOutside(this.store, readyNodes)) {
      const node = volumeNode(pv);
      if (!node) continue;
      const problem = nodeGoneReason(node, nodeByName.get(node), isNodeReady(nodeByName.get(node)));
      if (!problem) continue;
      const row = rows.get(pv.metadata.name!) ?? { pv, categories: [], nodeProblem: null };
      row.categories.push('node-gone');
      row.nodeProblem = problem;
      rows.set(pv.metadata.name!, row);
    }
    // One read of the pods that name claims, grouped by namespace/claim, instead of a query per row.
    const podsByClaim = new Map<string, Pod[]>();
    for (const pod of await podsWithClaims(this.store)) {
      for (const name of podClaimNames(pod)) {
        const key = `${pod.metadata.namespace}/${name}`;
        const list = podsByClaim.get(key);
        if (list) list.push(pod);
        else podsByClaim.set(key, [pod]);
      }
    }
    const volumes: ReclaimVolume[] = [];
    for (const r of [...rows.values()].sort((a, b) => a.pv.metadata.name!.localeCompare(b.pv.metadata.name!))) {
      volumes.push(await this.volumeRow(r.pv, r.categories, r.nodeProblem, podsByClaim));
    }

    const claims: ReclaimClaim[] = [];
    const cutoff = new Date(now.getTime() - unusedDays * 86_400_000);
    const candidates = await claimsCreatedBefore(this.store, cutoff);
    // Pods deleted since are gone from the store but not from the history: one query finds
    // every candidate's newest pod use there.
    const fromHistory = await podUseFromHistory(
      this.store,
      candidates.map((c) => ({ namespace: c.metadata.namespace!, name: c.metadata.name! })),
      usageSearchStart(now, unusedDays),
    );
    // The search stopped at its bound before reaching the window's start: a claim with no
    // use found may have one the search did not reach, so it is not offered as unused.
    const windowSearched = fromHistory.complete || (fromHistory.searchedFrom !== null && Date.parse(fromHistory.searchedFrom) <= cutoff.getTime());
    for (const c of candidates) {
      const key = `${c.metadata.namespace}/${c.metadata.name}`;
      const facts = await this.claimFacts(c, podsByClaim.get(key) ?? []);
      const seen = fromHistory.last.get(key);
      const usage = claimUsage(c, facts.podObjects.filter((pod) => (pod.metadata.namespace ?? '') === c.metadata.namespace), seen ? new Date(seen) : undefined, now);
      const days = daysSince(usage.last, now);
      if (facts.pods.length > 0 || usage.last.getTime() > cutoff.getTime() || !windowSearched) continue;
      claims.push({
        namespace: c.metadata.namespace!,
        name: c.metadata.name!,
        resourceVersion: c.metadata.resourceVersion!,
        phase: c.metadata.deletionTimestamp ? 'Terminating' : (c.status?.phase ?? 'Pending'),
        volume: c.spec?.volumeName || null,
        storageClass: c.spec?.storageClassName ?? '',
        request: String(c.spec?.resources?.requests?.storage ?? ''),
        lastUsed: usage.last.toISOString(),
        lastUseKnown: usage.used,
        unusedDays: days,
        actions: { delete: state(claimVerdict('delete', facts)) },
      });
    }

    const cleanups = isAllowed(p, 'get', PV) ? await this.stuckCleanups() : [];
    return { volumes, claims, cleanups, unusedDays, usageSearchedFrom: fromHistory.searchedFrom, usageComplete: windowSearched };
  }

  private async stuckCleanups(): Promise<JobView[]> {
    return this.localVolumes.stuckJobs();
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
      return { obj: pv, verdict: volumeVerdict(t.action, await this.volumeFacts(pv, t.claim)) };
    }
    const claim = await unlessNotFound(this.objects.get(p, PVC, ns, t.name));
    if (!claim) return gone;
    if (t.action !== 'delete') return { missing: `unknown claim action "${t.action}"` };
    return { obj: claim, verdict: claimVerdict('delete', await this.claimFacts(claim)) };
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
