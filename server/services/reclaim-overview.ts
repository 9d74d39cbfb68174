// The reclaim center's overview: volumes and claims an admin may want back (Released,
// Failed, on a node that is gone, claims no pod used for N days, failed cleanups), each
// with the actions the rules (server/domain/reclaim.ts) allow on it now. Read only; the
// actions are reclaim.ts's.
import { isAllowed, type Principal } from '../domain/authorization';
import { isNodeReady } from '../domain/node-lifecycle';
import { podClaimNames } from '../domain/pod-claims';
import {
  claimUsage,
  claimVerdict,
  daysSince,
  nodeGoneReason,
  usageSearchStart,
  volumeNode,
  volumeVerdict,
  type ClaimAction,
  type ReclaimVerdict,
  type VolumeAction,
} from '../domain/reclaim';
import { annDynamicallyProvisioned } from '../domain/well-known/annotations';
import type { Node } from '../resources/node/schema';
import { ofKind } from '../resources/of-kind';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { Pod } from '../resources/pod/schema';
import type { ObjectStore } from '../store/object-store';
import { claimsCreatedBefore, podsWithClaims, podUseFromHistory, volumesPinnedOutside } from '../store/reclaim-queries';
import type { ListService } from './lists';
import type { JobView, LocalVolumeService } from './local-volumes';
import type { ObjectService } from './objects';
import { claimFacts, volumeFacts } from './reclaim-facts';

const PV = 'PersistentVolume';

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

/** What the overview reads through. */
export interface OverviewDeps {
  objects: ObjectService;
  lists: ListService;
  localVolumes: LocalVolumeService;
  now: () => Date;
}

function state(v: ReclaimVerdict): ActionState {
  return v.allowed ? { allowed: true } : { allowed: false, reason: v.reason };
}

/** A volume's row: what it is, why it is listed, and the actions the rules allow on it now. */
async function volumeRow(store: ObjectStore, pv: PersistentVolume, categories: ReclaimCategory[], nodeProblem: string | null, podsByClaim: Map<string, Pod[]>): Promise<ReclaimVolume> {
  const facts = await volumeFacts(store, pv, undefined, podsByClaim);
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

/**
 * Everything the center lists; `unusedDays`: claims no pod used for at least that many
 * days. The caller checked that `p` may see the center.
 */
export async function reclaimOverview(d: OverviewDeps, p: Principal, opts: { unusedDays: number }): Promise<ReclaimOverview> {
  const store = d.objects.store;
  const unusedDays = Math.min(3650, Math.max(0, Math.floor(opts.unusedDays)));
  const now = d.now();
  const [releasedPage, nodes] = await Promise.all([
    d.lists.page(p, { kind: PV, fields: { phase: ['Released', 'Failed'] }, sort: { key: 'name', dir: 'asc' }, limit: 500 }),
    store.list('Node'),
  ]);
  const nodeItems = ofKind(nodes.items, 'Node');
  const nodeByName = new Map<string, Node>(nodeItems.map((n) => [n.metadata.name!, n]));
  const readyNodes = nodeItems.filter((n) => isNodeReady(n)).map((n) => n.metadata.name!);
  const rows = new Map<string, { pv: PersistentVolume; categories: ReclaimCategory[]; nodeProblem: string | null }>();
  for (const pv of ofKind(releasedPage.items, PV)) {
    rows.set(pv.metadata.name!, { pv, categories: [pv.status?.phase === 'Failed' ? 'failed' : 'released'], nodeProblem: null });
  }
  for (const pv of await volumesPinnedOutside(store, readyNodes)) {
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
  for (const pod of await podsWithClaims(store)) {
    for (const name of podClaimNames(pod)) {
      const key = `${pod.metadata.namespace}/${name}`;
      const list = podsByClaim.get(key);
      if (list) list.push(pod);
      else podsByClaim.set(key, [pod]);
    }
  }
  const volumes: ReclaimVolume[] = [];
  for (const r of [...rows.values()].sort((a, b) => a.pv.metadata.name!.localeCompare(b.pv.metadata.name!))) {
    volumes.push(await volumeRow(store, r.pv, r.categories, r.nodeProblem, podsByClaim));
  }

  const claims: ReclaimClaim[] = [];
  const cutoff = new Date(now.getTime() - unusedDays * 86_400_000);
  const candidates = await claimsCreatedBefore(store, cutoff);
  // Pods deleted since are gone from the store but not from the history: one query finds
  // every candidate's newest pod use there.
  const fromHistory = await podUseFromHistory(
    store,
    candidates.map((c) => ({ namespace: c.metadata.namespace!, name: c.metadata.name! })),
    usageSearchStart(now, unusedDays),
  );
  // The search stopped at its bound before reaching the window's start: a claim with no
  // use found may have one the search did not reach, so it is not offered as unused.
  const windowSearched = fromHistory.complete || (fromHistory.searchedFrom !== null && Date.parse(fromHistory.searchedFrom) <= cutoff.getTime());
  for (const c of candidates) {
    const key = `${c.metadata.namespace}/${c.metadata.name}`;
    const facts = await claimFacts(store, c, podsByClaim.get(key) ?? []);
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

  const cleanups = isAllowed(p, 'get', PV) ? await d.localVolumes.stuckJobs() : [];
  return { volumes, claims, cleanups, unusedDays, usageSearchedFrom: fromHistory.searchedFrom, usageComplete: windowSearched };
}
