// A claim the binder could not bind: hand it to provisioning when a class applies (seed
// 000 "Controller workflow for provisioning volumes", upstream provisionClaim), keep it
// Pending, and keep the explanation of why on it: the annotation
// stowage.io/binding-explanation and the condition Bindable=False. Both are written only
// when they change, and Events go out only then.
import { isDeepStrictEqual } from 'node:util';
import { explain, parseExplanation, sameExplanation, serializeExplanation, type Situation } from '../../domain/binding-explanation';
import { accessModesToBits } from '../../domain/access-modes';
import { claimClass, claimHasClass, requestedStorage, type MatchOptions } from '../../domain/matching';
import { quantityToBytes } from '../../domain/quantity';
import type { KubeObject } from '../../resources/types';
import { nearVolumes } from '../../store/volume-queries';
import type { ReconcileContext, ReconcileResult } from '../runtime/controller';
import type { EventType } from '../../services/event-recorder';
import { annBetaStorageProvisioner, annBindingExplanation, annStorageProvisioner } from '../../domain/well-known/annotations';
import { conditionBindable } from '../../domain/well-known/conditions';
import { reasons } from '../../domain/well-known/event-reasons';
import { inTreeProvisionerPrefix, noProvisioner } from '../../domain/well-known/provisioners';
import { event, write, type BinderDeps } from './deps';
import { claimKey } from './keys';

export interface PendingInput {
  claim: KubeObject;
  /** The claim's StorageClass, when it names one that exists. */
  storageClass?: KubeObject;
  opts: MatchOptions;
  /** Set when the claim names its volume: what is wrong with it, and the event to send. */
  requested?: { situation: Situation; event?: { type: EventType; reason: string; message: string } };
}

interface Decision {
  situation: Situation;
  provisioner?: string;
  events: { type: EventType; reason: string; message: string }[];
}

function externalProvisioningMessage(provisioner: string): string {
  return (
    `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. ` +
    'If volume creation is delayed, please verify that the provisioner is running and correctly registered.'
  );
}

/** Upstream's ProvisioningFailed text for a claim with a data source on a non-CSI plugin. */
export function dataSourceRefusal(plugin: string): string {
  return `plugin "${plugin}" is not a CSI plugin. Only CSI plugin can provision a claim with a datasource`;
}

/** Upstream syncUnboundClaim's "no volume found" branch, as a decision. */
async function decide(d: BinderDeps, input: PendingInput): Promise<Decision> {
  if (input.requested) return { situation: input.requested.situation, events: input.requested.event ? [input.requested.event] : [] };
  const { claim, storageClass: sc, opts } = input;
  const cls = claimClass(claim);
  if (opts.delayBinding && !opts.node) {
    return {
      situation: { kind: 'waitForFirstConsumer', className: cls },
      events: [{ type: 'Normal', reason: reasons.waitForFirstConsumer, message: 'waiting for first consumer to be created before binding' }],
    };
  }
  if (cls !== '') {
    if (!sc) {
      return {
        situation: { kind: 'classNotFound', className: cls },
        events: [{ type: 'Warning', reason: reasons.provisioningFailed, message: `storageclass.storage.k8s.io "${cls}" not found` }],
      };
    }
    const provisioner: string = sc.provisioner ?? '';
    if (d.inTreeProvisioners.has(provisioner)) {
      // Upstream provisionClaimOperation: only CSI drivers (external here) populate volumes.
      if (claim.spec?.dataSource || claim.spec?.dataSourceRef) {
        return {
          situation: { kind: 'cannotProvision', className: cls, provisioner },
          events: [{ type: 'Warning', reason: reasons.provisioningFailed, message: dataSourceRefusal(provisioner) }],
        };
      }
      return { situation: { kind: 'waitingForProvisioner', className: cls, provisioner }, provisioner, events: [] };
    }
    if (provisioner === noProvisioner || provisioner.startsWith(inTreeProvisionerPrefix)) {
      return {
        situation: { kind: 'cannotProvision', className: cls, provisioner },
        events: [{ type: 'Warning', reason: reasons.provisioningFailed, message: `no volume plugin matched name: ${provisioner}` }],
      };
    }
    return {
      situation: { kind: 'waitingForProvisioner', className: cls, provisioner },
      provisioner,
      events: [{ type: 'Normal', reason: reasons.externalProvisioning, message: externalProvisioningMessage(provisioner) }],
    };
  }
  const noClass = !claimHasClass(claim) && !(await d.classes.defaultClass());
  return {
    situation: noClass ? { kind: 'noDefaultClass' } : { kind: 'noMatch' },
    events: [{ type: 'Normal', reason: reasons.failedBinding, message: 'no persistent volumes available for this claim and no storage class is set' }],
  };
}

/** Keeps the claim Pending with its explanation (and provisioner annotations). */
export async function keepPending(d: BinderDeps, ctx: ReconcileContext, input: PendingInput): Promise<ReconcileResult | void> {
  const { claim, opts } = input;
  const key = claimKey(claim.metadata.namespace ?? '', claim.metadata.name!);
  const decision = await decide(d, input);
  const handOver = decision.provisioner !== undefined && claim.metadata.annotations?.[annStorageProvisioner] !== decision.provisioner;
  const previous = parseExplanation(claim.metadata.annotations?.[annBindingExplanation]);
  if (!handOver && !previous && d.pendingGraceMs > 0) {
    const now = d.now().getTime();
    const first = d.firstNoMatch.get(key);
    if (first === undefined) d.firstNoMatch.set(key, now);
    const waited = first === undefined ? 0 : now - first;
    // Look again soon, then less often, until the grace is over.
    if (waited < d.pendingGraceMs) return { requeueAfter: Math.min(d.pendingGraceMs - waited, Math.max(50, waited)) };
  }
  d.firstNoMatch.delete(key);

  const near = input.requested
    ? []
    : await nearVolumes(d.store, {
        storageClass: claimClass(claim),
        volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
        accessModes: accessModesToBits(claim.spec?.accessModes ?? []),
        minBytes: quantityToBytes(requestedStorage(claim)).toString(),
        limit: 4,
      });
  const { reason, explanation } = explain(claim, decision.situation, near, d.now(), opts);
  const changed = !sameExplanation(previous, explanation);
  const kept = changed ? explanation : previous!;

  const next = structuredClone(claim);
  const annotations: Record<string, string> = (next.metadata.annotations ??= {});
  if (decision.provisioner !== undefined) {
    annotations[annStorageProvisioner] = decision.provisioner;
    annotations[annBetaStorageProvisioner] = decision.provisioner;
  }
  annotations[annBindingExplanation] = serializeExplanation(kept);
  const status = { ...(next.status ?? {}), phase: 'Pending' };
  delete status.accessModes;
  delete status.capacity;
  const others = (status.conditions ?? []).filter((c: any) => c?.type !== conditionBindable);
  const old = (claim.status?.conditions ?? []).find((c: any) => c?.type === conditionBindable);
  const condition = {
    type: conditionBindable,
    status: 'False',
    reason,
    message: kept.summary,
    lastTransitionTime: old?.status === 'False' ? old.lastTransitionTime : kept.evaluatedAt,
  };
  status.conditions = [...others, condition];
  next.status = status;
  if (isDeepStrictEqual(next.metadata, claim.metadata) && isDeepStrictEqual(next.status, claim.status)) {
    // Upstream emits its "still waiting" events on every sync; the recorder counts repeats.
    for (const e of decision.events) await event(d, claim, e.type, e.reason, e.message);
    return;
  }

  const saved = await write(d, ctx, async (tx) => {
    const current = await tx.get('PersistentVolumeClaim', claim.metadata.namespace, claim.metadata.name!);
    if (!current || current.metadata.resourceVersion !== claim.metadata.resourceVersion) return undefined;
    return tx.updateAll(next);
  });
  if (!saved) {
    // The claim changed while we looked: look again with what it is now.
    ctx.enqueue(key);
    return;
  }
  for (const e of decision.events) await event(d, saved, e.type, e.reason, e.message);
}
