// The claim half of the binder: upstream syncClaim / syncUnboundClaim / syncBoundClaim
// (pkg/controller/volume/persistentvolume/pv_controller.go), level-triggered. It reads the
// facts, lets `decide` (decide.ts) pick the step, and does it. Every write happens in a
// transaction that locks the rows and re-checks their resourceVersion, so a decision is
// never acted on a stale copy; the bind transaction gathers its facts under its locks and
// writes the binding it decides in the same commit.
import { claimClass, type MatchOptions } from '../../domain/matching';
import { claimRefKey } from '../../domain/claim-ref';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import { podsNamingClaim } from '../../store/consumer-queries';
import { podUsesClaim } from '../../domain/pod-claims';
import type { StorageClass } from '../../resources/storage-class/schema';
import type { ReconcileContext, ReconcileResult } from '../runtime/controller';
import type { ControllerTx } from '../runtime/controller-tx';
import { event } from '../runtime/event';
import { write } from '../runtime/write';
import { annSelectedNode } from '../../domain/well-known/annotations';
import { findMatchInStore, lockClaimForBinding, writeBinding } from './bind';
import type { BindHint } from './bind-prefetch';
import { decide, isBindCompleted, isDelayBindingProvisioning, mayTakeDefaultClass, type ClaimAction, type ClaimFacts, type LockedFacts } from './decide';
import type { BinderDeps } from './deps';
import { claimKey } from './keys';
import { keepPending } from './pending';
import { identityLabels } from '../../domain/node-lifecycle';

const PVC = 'PersistentVolumeClaim';
const PV = 'PersistentVolume';

export async function syncClaim(d: BinderDeps, ctx: ReconcileContext, namespace: string, name: string): Promise<ReconcileResult | void> {
  const claim = await d.store.recent(PVC, namespace, name);
  if (!claim) {
    d.firstNoMatch.delete(claimKey(namespace, name));
    return;
  }
  if (isBindCompleted(claim)) return syncBoundClaim(d, ctx, claim);
  return syncUnboundClaim(d, ctx, claim);
}

async function syncBoundClaim(d: BinderDeps, ctx: ReconcileContext, claim: PersistentVolumeClaim): Promise<void> {
  const volumeName: string | undefined = claim.spec?.volumeName || undefined;
  const volume = volumeName ? await d.store.recent(PV, undefined, volumeName) : undefined;
  const action = decide({ claim, volume, inTreeProvisioners: d.inTreeProvisioners });
  if (action.action === 'markLost') return markLost(d, ctx, claim, action.reason, action.message);
  if (action.action === 'bind') return finishBinding(d, ctx, claim, action.volume);
}

async function markLost(d: BinderDeps, ctx: ReconcileContext, claim: PersistentVolumeClaim, reason: string, message: string): Promise<void> {
  const next = structuredClone(claim);
  next.status = { ...next.status, phase: 'Lost' };
  delete next.status.accessModes;
  delete next.status.capacity;
  const saved = await write(d, ctx, (tx) => tx.update(next, { subresource: 'status' }));
  await event(d, saved, 'Warning', reason, message);
}

/** Writes what a bound claim's binding is missing, on both sides as read (else looks again). */
async function finishBinding(d: BinderDeps, ctx: ReconcileContext, claim: PersistentVolumeClaim, volume: PersistentVolume): Promise<void> {
  const done = await write(d, ctx, async (tx) => {
    const c = await tx.get(PVC, claim.metadata.namespace, claim.metadata.name!);
    const v = await tx.get(PV, undefined, volume.metadata.name!);
    if (!c || !v || c.metadata.resourceVersion !== claim.metadata.resourceVersion || v.metadata.resourceVersion !== volume.metadata.resourceVersion) {
      return false;
    }
    await writeBinding(tx, v, c);
    return true;
  });
  if (!done) ctx.enqueue(claimKey(claim.metadata.namespace ?? '', claim.metadata.name!));
}

/** Fills the newest default StorageClass into a claim created without a class. */
async function setDefaultClass(d: BinderDeps, ctx: ReconcileContext, claim: PersistentVolumeClaim, className: string): Promise<PersistentVolumeClaim | undefined> {
  return write(d, ctx, async (tx) => {
    const current = await tx.get(PVC, claim.metadata.namespace, claim.metadata.name!);
    if (!current || current.metadata.resourceVersion !== claim.metadata.resourceVersion) return undefined;
    return tx.update({ ...current, spec: { ...current.spec, storageClassName: className } });
  });
}

async function matchOptions(d: BinderDeps, claim: PersistentVolumeClaim, sc: StorageClass | undefined): Promise<MatchOptions> {
  if (sc?.volumeBindingMode !== 'WaitForFirstConsumer') return {};
  const nodeName = claim.metadata.annotations?.[annSelectedNode];
  const node = nodeName ? await d.store.recent('Node', undefined, nodeName) : undefined;
  return { delayBinding: true, node: node ? { name: nodeName!, labels: identityLabels(nodeName!, node.metadata.labels) } : undefined };
}

/** The claim's pods not yet placed on a node (and not terminated), by name, in name order. */
async function unscheduledPodsOf(d: BinderDeps, claim: PersistentVolumeClaim): Promise<string[]> {
  const namespace = claim.metadata.namespace ?? '';
  const name = claim.metadata.name!;
  // From memory when it can say (the pods indexed by the claims they name), else the query.
  const pods = (await d.store.recentByIndex('Pod', claimRefKey(namespace, name))) ?? (await podsNamingClaim(d.store, namespace, name, { unscheduled: true }));
  return pods.filter((p) => !p.spec?.nodeName && podUsesClaim(p, namespace, name)).map((p) => p.metadata?.name ?? '');
}

/** The facts of an unbound claim before its bind transaction (the default class filled in first, when it gets one). */
async function unboundFacts(d: BinderDeps, ctx: ReconcileContext, read: PersistentVolumeClaim): Promise<ClaimFacts> {
  const defaultClass = mayTakeDefaultClass(read) ? (await d.classes.defaultClass())?.metadata.name : undefined;
  const first = decide({ claim: read, defaultClass, inTreeProvisioners: d.inTreeProvisioners });
  // Written or not, the bind transaction comes next: it finds a claim changed meanwhile, and looks again.
  const claim = (first.action === 'setDefaultClass' ? await setDefaultClass(d, ctx, read, first.className) : undefined) ?? read;
  const cls = claimClass(claim);
  const storageClass = cls ? await d.classes.get(cls) : undefined;
  const opts = await matchOptions(d, claim, storageClass);
  const unscheduledPods = opts.delayBinding && !isDelayBindingProvisioning(claim) ? await unscheduledPodsOf(d, claim) : undefined;
  return { claim, defaultClass, storageClass, opts, unscheduledPods, inTreeProvisioners: d.inTreeProvisioners };
}

/**
 * A WaitForFirstConsumer claim that names no volume binds only to a volume reserved for it
 * (findMatchInStore). When memory says there is none, the bind transaction would lock the
 * claim to find nothing: the claim stays unbound (explained, or handed to provisioning by
 * keepPending's own guarded writes). A volume reserved for it later comes with a change of
 * the claim (placement's pre-bind annotates it in the same commit) or wakes it (keys.ts).
 */
async function nothingToBind(d: BinderDeps, claim: PersistentVolumeClaim, opts: MatchOptions): Promise<boolean> {
  if (!opts.delayBinding || claim.spec?.volumeName || claim.metadata.deletionTimestamp) return false;
  const reserved = await d.store.recentByIndex(PV, claimRefKey(claim.metadata.namespace ?? '', claim.metadata.name!));
  return reserved !== undefined && reserved.length === 0;
}

/** The claim locked, and the volume it names or the seed's match for it, read in the bind transaction. */
async function lockedFacts(tx: ControllerTx, claim: PersistentVolumeClaim, opts: MatchOptions): Promise<LockedFacts> {
  const { claim: c, reserved } = await lockClaimForBinding(tx, claim.metadata.namespace ?? '', claim.metadata.name!);
  if (!c || c.metadata.resourceVersion !== claim.metadata.resourceVersion) return { claim: c };
  const volumeName: string | undefined = c.spec?.volumeName || undefined;
  if (volumeName) return { claim: c, requested: await tx.get(PV, undefined, volumeName) };
  const { match, busy } = await findMatchInStore(tx, c, opts, reserved);
  return { claim: c, match, busy };
}

async function syncUnboundClaim(d: BinderDeps, ctx: ReconcileContext, read: PersistentVolumeClaim): Promise<ReconcileResult | void> {
  const facts = await unboundFacts(d, ctx, read);
  const { claim } = facts;
  const opts = facts.opts!;
  const hint: BindHint | undefined = claim.spec?.volumeName ? undefined : { bind: { claim, opts } };
  const action: ClaimAction = (await nothingToBind(d, claim, opts)) ? decide({ ...facts, locked: { claim } }) : await write(
    d,
    ctx,
    async (tx) => {
      const locked = await lockedFacts(tx, claim, opts);
      const a = decide({ ...facts, locked });
      if (a.action === 'bind') await writeBinding(tx, a.volume, locked.claim!);
      return a;
    },
    hint,
  );
  const key = claimKey(claim.metadata.namespace ?? '', claim.metadata.name!);
  switch (action.action) {
    case 'bind':
      d.firstNoMatch.delete(key);
      return;
    case 'retry':
      ctx.enqueue(key);
      return;
    case 'retrySoon':
      return { requeueAfter: 5 + Math.floor(Math.random() * 20) };
    case 'pending':
    case 'provision':
      return keepPending(d, ctx, claim, opts, action);
    case 'lookForVolume':
    case 'markLost':
    case 'none':
    case 'setDefaultClass':
      return;
  }
}
