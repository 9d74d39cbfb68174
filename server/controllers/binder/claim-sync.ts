// The claim half of the binder: upstream syncClaim / syncUnboundClaim / syncBoundClaim
// (pkg/controller/volume/persistentvolume/pv_controller.go), level-triggered. Decisions
// are taken on the claim as read; every write happens in a transaction that locks the rows
// and re-checks their resourceVersion, so a decision is never acted on a stale copy.
import { isDeepStrictEqual } from 'node:util';
import { checkRequestedVolume, claimClass, claimHasClass, isVolumeBoundToClaim, type MatchOptions } from '../../domain/matching';
import type { KubeObject } from '../../resources/types';
import type { ReconcileContext, ReconcileResult } from '../runtime/controller';
import { annBindCompleted, annBindingExplanation, annSelectedNode } from '../../domain/well-known/annotations';
import { conditionBindable } from '../../domain/well-known/conditions';
import { reasons } from '../../domain/well-known/event-reasons';
import { findMatchInStore, lockClaimForBinding, writeBinding } from './bind';
import type { BindHint } from './bind-prefetch';
import { event, write, type BinderDeps } from './deps';
import { claimKey } from './keys';
import { keepPending } from './pending';

const PVC = 'PersistentVolumeClaim';
const PV = 'PersistentVolume';

export async function syncClaim(d: BinderDeps, ctx: ReconcileContext, namespace: string, name: string): Promise<ReconcileResult | void> {
  const claim = await d.store.tryGet(PVC, namespace, name);
  if (!claim) {
    d.firstNoMatch.delete(claimKey(namespace, name));
    return;
  }
  if (claim.metadata.annotations?.[annBindCompleted] === undefined) return syncUnboundClaim(d, ctx, claim);
  return syncBoundClaim(d, ctx, claim);
}

/** Fills the newest default StorageClass into a claim created without a class. */
async function assignDefaultClass(d: BinderDeps, ctx: ReconcileContext, claim: KubeObject): Promise<KubeObject | undefined> {
  if (claimHasClass(claim) || claim.spec?.volumeName) return undefined;
  const def = await d.classes.defaultClass();
  if (!def) return undefined;
  return write(d, ctx, async (tx) => {
    const current = await tx.get(PVC, claim.metadata.namespace, claim.metadata.name!);
    if (!current || current.metadata.resourceVersion !== claim.metadata.resourceVersion) return undefined;
    return tx.update({ ...current, spec: { ...current.spec, storageClassName: def.metadata.name } });
  });
}

async function matchOptions(d: BinderDeps, claim: KubeObject, sc: KubeObject | undefined): Promise<MatchOptions> {
  if (sc?.volumeBindingMode !== 'WaitForFirstConsumer') return {};
  const nodeName = claim.metadata.annotations?.[annSelectedNode];
  const node = nodeName ? await d.store.tryGet('Node', undefined, nodeName) : undefined;
  return { delayBinding: true, node: node ? { name: nodeName!, labels: node.metadata.labels ?? {} } : undefined };
}

type Outcome =
  | { kind: 'bound' }
  | { kind: 'changed' }
  | { kind: 'none' }
  | { kind: 'busy' }
  | { kind: 'requested'; situation: Parameters<typeof keepPending>[2]['requested'] };

async function syncUnboundClaim(d: BinderDeps, ctx: ReconcileContext, read: KubeObject): Promise<ReconcileResult | void> {
  const key = claimKey(read.metadata.namespace ?? '', read.metadata.name!);
  const withClass = read.metadata.deletionTimestamp ? undefined : await assignDefaultClass(d, ctx, read);
  const claim = withClass ?? read;
  const cls = claimClass(claim);
  const sc = cls ? await d.classes.get(cls) : undefined;
  const opts = await matchOptions(d, claim, sc);
  const volumeName: string | undefined = claim.spec?.volumeName || undefined;

  const outcome: Outcome = await write(d, ctx, async (tx) => {
    const { claim: c, reserved } = await lockClaimForBinding(tx, claim.metadata.namespace ?? '', claim.metadata.name!);
    if (!c || c.metadata.resourceVersion !== claim.metadata.resourceVersion) return { kind: 'changed' };
    if (!volumeName) {
      // [upstream unit test set 1] the user did not care which volume.
      const { match, busy } = await findMatchInStore(tx, c, opts, reserved);
      if (!match) return { kind: busy ? 'busy' : 'none' };
      await writeBinding(tx, match.volume, c);
      return { kind: 'bound' };
    }
    // [upstream unit test set 2] the user asked for a specific volume.
    const v = await tx.get(PV, undefined, volumeName);
    if (!v) return { kind: 'requested', situation: { situation: { kind: 'volumeNotFound', volumeName } } };
    if (!v.spec?.claimRef) {
      const problems = checkRequestedVolume(c, v);
      if (problems.length > 0) {
        const message = `Cannot bind to requested volume "${volumeName}": ${problems[0]}`;
        return {
          kind: 'requested',
          situation: { situation: { kind: 'volumeMismatch', volumeName, problems }, event: { type: 'Warning', reason: reasons.volumeMismatch, message } },
        };
      }
      await writeBinding(tx, v, c);
      return { kind: 'bound' };
    }
    if (isVolumeBoundToClaim(v, c)) {
      await writeBinding(tx, v, c);
      return { kind: 'bound' };
    }
    const other = `${v.spec.claimRef.namespace ?? ''}/${v.spec.claimRef.name ?? ''}`;
    const failed = { type: 'Warning' as const, reason: reasons.failedBinding, message: `volume "${volumeName}" already bound to a different claim.` };
    return { kind: 'requested', situation: { situation: { kind: 'volumeBoundElsewhere', volumeName, claim: other }, event: failed } };
  }, volumeName ? undefined : ({ bind: { claim, opts } } satisfies BindHint));

  switch (outcome.kind) {
    case 'bound':
      d.firstNoMatch.delete(key);
      return;
    case 'changed':
      ctx.enqueue(key);
      return;
    case 'busy':
      // Matching volumes exist but other binders hold them right now: look again soon.
      return { requeueAfter: 5 + Math.floor(Math.random() * 20) };
    case 'none':
      // A claim on its way out still binds (so its volume is released properly), but it is
      // not explained or handed to provisioning any more.
      if (read.metadata.deletionTimestamp) return;
      return keepPending(d, ctx, { claim, storageClass: sc, opts });
    case 'requested':
      if (read.metadata.deletionTimestamp) return;
      return keepPending(d, ctx, { claim, storageClass: sc, opts, requested: outcome.situation });
  }
}

/** Whether both sides already say everything a binding says (then nothing is written). */
function bindingComplete(volume: KubeObject, claim: KubeObject): boolean {
  const ref = volume.spec?.claimRef;
  return (
    volume.status?.phase === 'Bound' &&
    ref?.uid === claim.metadata.uid &&
    ref?.name === claim.metadata.name &&
    claim.spec?.volumeName === volume.metadata.name &&
    claim.status?.phase === 'Bound' &&
    claim.status?.capacity !== undefined &&
    isDeepStrictEqual(claim.status?.accessModes, volume.spec?.accessModes) &&
    claim.metadata.annotations?.[annBindingExplanation] === undefined &&
    !(claim.status?.conditions ?? []).some((c: any) => c?.type === conditionBindable)
  );
}

async function markLost(d: BinderDeps, ctx: ReconcileContext, claim: KubeObject, reason: string, message: string): Promise<void> {
  if (claim.status?.phase === 'Lost') return;
  const next = structuredClone(claim);
  next.status = { ...next.status, phase: 'Lost' };
  delete next.status.accessModes;
  delete next.status.capacity;
  const saved = await write(d, ctx, (tx) => tx.update(next, { subresource: 'status' }));
  await event(d, saved, 'Warning', reason, message);
}

async function syncBoundClaim(d: BinderDeps, ctx: ReconcileContext, claim: KubeObject): Promise<void> {
  const volumeName: string | undefined = claim.spec?.volumeName || undefined;
  if (!volumeName) {
    return markLost(d, ctx, claim, reasons.claimLost, 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
  }
  const volume = await d.store.tryGet(PV, undefined, volumeName);
  if (!volume) {
    return markLost(d, ctx, claim, reasons.claimLost, 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
  }
  const ref = volume.spec?.claimRef;
  if (ref && ref.uid !== claim.metadata.uid) {
    return markLost(d, ctx, claim, reasons.claimMisbound, 'Two claims are bound to the same volume, this one is bound incorrectly');
  }
  // The volume is unbound (bind it again) or bound to this claim (finish what is missing).
  if (bindingComplete(volume, claim)) return;
  const done = await write(d, ctx, async (tx) => {
    const c = await tx.get(PVC, claim.metadata.namespace, claim.metadata.name!);
    const v = await tx.get(PV, undefined, volumeName);
    if (!c || !v || c.metadata.resourceVersion !== claim.metadata.resourceVersion || v.metadata.resourceVersion !== volume.metadata.resourceVersion) {
      return false;
    }
    await writeBinding(tx, v, c);
    return true;
  });
  if (!done) ctx.enqueue(claimKey(claim.metadata.namespace ?? '', claim.metadata.name!));
}
