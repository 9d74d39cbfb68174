// The first reads of a whole batch of bindings in three round trips instead of two per
// claim. Before a batch transaction runs its reconciles one after another, the claims it
// is about to bind are locked together (with the volumes reserved for them), the
// candidates of every claim that needs only a free volume are read in one statement, each
// claim is given the volume it would get were the claims bound one at a time
// (domain/batch-assign.ts), and those volumes are locked together. Each reconcile then
// finds its claim and its volume already locked in the transaction and checks and writes
// them exactly as before (bind.ts). Nothing here decides a binding: a reconcile that
// finds no prepared volume, or one a previous reconcile of the batch wrote, looks for one
// itself, as it always did, so the prefetch only saves round trips.
import { accessModeGroups, claimClass, requestedStorage, type MatchOptions } from '../../domain/matching';
import { assignInOrder, candidateLimits } from '../../domain/batch-assign';
import { quantityToBytes } from '../../domain/quantity';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import { candidateVolumes, lockAvailableVolumes, lockClaimsWithReservations, lockVolumes, type CandidateAsk } from '../../store/volume-queries';
import type { ControllerTx } from '../runtime/controller-tx';

/** What a claim's reconcile tells the batch before it runs: the claim as read, and how it matches. */
export interface BindHint {
  bind: { claim: PersistentVolumeClaim; opts: MatchOptions };
}

export function isBindHint(h: unknown): h is BindHint {
  return typeof h === 'object' && h !== null && 'bind' in h;
}

/** What a volume's reconcile tells the batch: it will read and write this volume. */
export interface VolumeHint {
  volume: string;
}

export function isVolumeHint(h: unknown): h is VolumeHint {
  return typeof h === 'object' && h !== null && 'volume' in h;
}

interface Prepared {
  /** Claims locked by the prefetch, with the volumes reserved for each. */
  reserved: Map<string, string[]>;
  /** The volume (locked) each claim would take in its closest access-mode group. */
  choice: Map<string, { group: number; volume: string }>;
}

const prepared = new WeakMap<ControllerTx, Prepared>();
const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

/**
 * The batcher's prefetch for one binder. Its batches run side by side, so each leaves out
 * the volumes the others chose (their rows still look Available to a plain read, and a
 * batch that chose them too would find them taken); choosing is one at a time, so two
 * batches never choose the same volume. Returns what to run when the batch's transaction
 * has ended.
 */
export function bindPrefetcher(): (tx: ControllerTx, hints: unknown[]) => Promise<() => void> {
  const held = new Set<string>();
  let choosing: Promise<unknown> = Promise.resolve();
  return async (tx, hints) => {
    const chosen: string[] = [];
    await prefetchBindings(tx, hints, {
      held,
      choose: (pick) => {
        const turn = choosing.then(() =>
          pick().then((names) => {
            for (const v of names) {
              held.add(v);
              chosen.push(v);
            }
          }),
        );
        choosing = turn.catch(() => {});
        return turn;
      },
    });
    return () => {
      for (const v of chosen) held.delete(v);
    };
  };
}

/** How one batch's choice is kept apart from its siblings'. */
export interface PrefetchSiblings {
  /** Volumes sibling batches chose: never chosen again. */
  held: ReadonlySet<string>;
  /** Runs `pick` (which chooses and locks volumes, returning their names) when no sibling is choosing. */
  choose(pick: () => Promise<string[]>): Promise<void>;
}

const alone: PrefetchSiblings = { held: new Set(), choose: async (pick) => void (await pick()) };

/**
 * Locks the volumes the batch's volume reconciles will write (one statement: a batch of
 * new volumes made Available would otherwise lock them one round trip at a time), then the
 * hinted claims and the volumes they would take (none a sibling batch chose), in three
 * statements. A volume another transaction holds is left out: its reconcile finds it
 * busy, as it would alone.
 */
export async function prefetchBindings(tx: ControllerTx, hints: unknown[], siblings: PrefetchSiblings = alone): Promise<void> {
  const volumes = [...new Set(hints.filter(isVolumeHint).map((h) => h.volume))].filter((v) => !tx.hasPending('PersistentVolume', undefined, v));
  for (const v of await lockVolumes(tx, volumes)) tx.remember(v.object);
  const binds = hints.filter(isBindHint).map((h) => h.bind);
  if (binds.length === 0) return;
  const p: Prepared = { reserved: new Map(), choice: new Map() };
  prepared.set(tx, p);

  const seen = new Set<string>();
  const refs: { namespace: string; name: string }[] = [];
  for (const b of binds) {
    const ref = { namespace: b.claim.metadata.namespace ?? '', name: b.claim.metadata.name! };
    const k = keyOf(ref.namespace, ref.name);
    if (seen.has(k) || tx.hasPending('PersistentVolumeClaim', ref.namespace, ref.name)) continue;
    seen.add(k);
    refs.push(ref);
  }
  const rows = await lockClaimsWithReservations(tx, refs);
  const locked = new Map<string, PersistentVolumeClaim>();
  for (const r of rows) {
    const k = keyOf(r.claim.metadata.namespace ?? '', r.claim.metadata.name!);
    tx.remember(r.claim);
    p.reserved.set(k, r.reserved);
    locked.set(k, r.claim); // rows of kind PVC
  }

  // Claims that need only a free volume: unchanged since read, nothing reserved or asked
  // for by name, no selector, bound at once (no node to fit).
  const wanted: { key: string; group: number; shape: string; ask: CandidateAsk }[] = [];
  const asked = new Set<string>();
  for (const b of binds) {
    const k = keyOf(b.claim.metadata.namespace ?? '', b.claim.metadata.name!);
    const c = locked.get(k);
    if (!c || c.metadata.resourceVersion !== b.claim.metadata.resourceVersion || asked.has(k)) continue;
    if ((p.reserved.get(k) ?? []).length > 0 || c.spec?.volumeName || c.spec?.selector != null) continue;
    if (b.opts.delayBinding || b.opts.node) continue;
    const group = accessModeGroups(c.spec?.accessModes ?? [])[0];
    if (group === undefined) continue;
    const storageClass = claimClass(c);
    const volumeMode = c.spec?.volumeMode ?? 'Filesystem';
    asked.add(k);
    wanted.push({
      key: k,
      group,
      shape: `${storageClass}\u0000${volumeMode}\u0000${group}`,
      ask: { storageClass, volumeMode, accessModes: group, minBytes: quantityToBytes(requestedStorage(c)).toString(), limit: 0 },
    });
  }
  if (wanted.length === 0) return;
  const limits = candidateLimits(wanted.map((w) => w.shape));
  await siblings.choose(async () => {
    const lists = await candidateVolumes(
      tx,
      wanted.map((w, i) => ({ ...w.ask, limit: limits[i] })),
      [...siblings.held],
    );
    const picks = assignInOrder(lists.map((l) => l.map((v) => v.name)));
    // Volumes another process took or holds since the candidates were read are not
    // locked; their claims look for a volume themselves.
    const locked = new Set<string>();
    for (const v of await lockAvailableVolumes(tx, picks.filter((n): n is string => n !== undefined))) {
      tx.remember(v);
      locked.add(v.metadata.name!);
    }
    wanted.forEach((w, i) => {
      const v = picks[i];
      if (v !== undefined && locked.has(v)) p.choice.set(w.key, { group: w.group, volume: v });
    });
    return [...locked];
  });
}

/** The volumes reserved for a claim the prefetch locked (undefined: it did not lock it). */
export function prefetchedReservations(tx: ControllerTx, namespace: string, name: string): string[] | undefined {
  return prepared.get(tx)?.reserved.get(keyOf(namespace, name));
}

/**
 * Volumes the prefetch chose for claims of the batch other than this one: a claim that
 * looks for a volume itself leaves them to their claims (else one claim without a
 * prepared volume would take the next claim's, that one the one after, and so on).
 */
export function prefetchedForOthers(tx: ControllerTx, namespace: string, name: string): string[] {
  const p = prepared.get(tx);
  if (!p) return [];
  const own = keyOf(namespace, name);
  const out: string[] = [];
  for (const [k, c] of p.choice) if (k !== own) out.push(c.volume);
  return out;
}

/** The locked volume the prefetch chose for a claim in an access-mode group, if any. */
export function prefetchedVolume(tx: ControllerTx, namespace: string, name: string, group: number): string | undefined {
  const c = prepared.get(tx)?.choice.get(keyOf(namespace, name));
  return c && c.group === group ? c.volume : undefined;
}
