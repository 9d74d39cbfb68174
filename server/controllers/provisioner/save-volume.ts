// Saving the PV of a freshly made asset (seed 000 in-tree steps 4-6 and out-of-tree step 5):
// the PV is created in one transaction that locks the claim and re-checks it, and that also
// marks the intent record adopted, so "PV saved" and "asset adopted" are one fact. A failed
// save is retried a few times; when it finally fails, or the claim went away meanwhile, the
// asset is deleted, so nothing is left without a PV.
import type { ProvisionedVolume, ProvisionerPlugin } from '../../provisioners/plugin';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../../resources/storage-class/schema';
import type { ReconcileContext } from '../runtime/controller';
import { isRowBusy } from '../runtime/controller-tx';
import { event } from '../runtime/event';
import { sleep } from '../../domain/sleep';
import { write } from '../runtime/write';
import { errorText } from '../runtime/errors';
import type { ProvisioningDeps } from './deps';
import { reasons } from '../../domain/well-known/event-reasons';
import { buildVolume } from './volume';

const PVC = 'PersistentVolumeClaim';
const PV = 'PersistentVolume';

type Outcome = 'created' | 'exists' | 'claimGone' | 'claimBoundElsewhere' | 'conflict';

/** Thrown to retry the claim with backoff after the failure was reported in an Event. */
export class ProvisioningRetry extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProvisioningRetry';
  }
}

async function saveOnce(d: ProvisioningDeps, ctx: ReconcileContext, claim: PersistentVolumeClaim, pv: PersistentVolume, plugin: string): Promise<Outcome> {
  const pvName = pv.metadata.name!;
  return write({ store: d.store, batcher: d.saves }, ctx, async (tx) => {
    const c = await tx.get(PVC, claim.metadata.namespace, claim.metadata.name!);
    if (!c || c.metadata.uid !== claim.metadata.uid || c.metadata.deletionTimestamp) return 'claimGone';
    if (c.spec?.volumeName && c.spec.volumeName !== pvName) return 'claimBoundElsewhere';
    const existing = await tx.get(PV, undefined, pvName);
    if (existing) return existing.spec?.claimRef?.uid === claim.metadata.uid ? 'exists' : 'conflict';
    const created = await tx.create(pv);
    if (!(await d.assets.adopt(plugin, pvName, created.metadata.uid!, tx))) {
      throw new Error(`the intent record of ${pvName} is gone or being deleted`);
    }
    // Committed with the volume, not in a transaction of its own.
    await d.events.recordIn(tx, claim, 'Normal', reasons.provisioningSucceeded, `Successfully provisioned volume ${pvName} using ${plugin}`);
    return 'created';
  });
}

/** Deletes an asset whose PV will not exist; a failure is logged and left to the sweep. */
async function deleteUnsaved(d: ProvisioningDeps, plugin: ProvisionerPlugin, pvName: string): Promise<boolean> {
  const record = await d.assets.get(plugin.name, pvName);
  if (!record) return true;
  try {
    await plugin.deleteAsset(record);
    return true;
  } catch (err) {
    d.log.warn({ err, pv: pvName }, 'could not delete an asset whose PV was not saved; the sweep will retry');
    return false;
  }
}

export async function saveVolume(
  d: ProvisioningDeps,
  ctx: ReconcileContext,
  claim: PersistentVolumeClaim,
  storageClass: StorageClass,
  plugin: ProvisionerPlugin,
  pvName: string,
  volume: ProvisionedVolume,
): Promise<void> {
  const pv = buildVolume(pvName, claim, storageClass, plugin.name, volume);
  const who = `${claim.metadata.namespace}/${claim.metadata.name}`;
  let lastError: unknown;
  let busy = 0;
  for (let attempt = 1; attempt <= d.saveAttempts; attempt++) {
    let outcome: Outcome;
    try {
      outcome = await saveOnce(d, ctx, claim, pv, plugin.name);
    } catch (err) {
      // The claim's row is being written right now (the binder): not a failed save.
      if (isRowBusy(err) && busy++ < 100 && !ctx.signal.aborted) {
        attempt--;
        await sleep(10 + Math.random() * 40, ctx.signal);
        continue;
      }
      lastError = err;
      d.log.warn({ err, pv: pvName, attempt }, 'saving a provisioned PV failed');
      // Stopping: keep the asset; its intent record lets the next leader finish the job.
      if (ctx.signal.aborted) throw err;
      if (attempt < d.saveAttempts) await sleep(d.saveIntervalMs, ctx.signal);
      continue;
    }
    switch (outcome) {
      case 'created':
        // Its Event was written with it (saveOnce).
        return;
      case 'exists':
        // An earlier attempt saved it (and adopted the asset in the same commit).
        return;
      case 'claimGone':
      case 'claimBoundElsewhere':
        d.log.info({ pv: pvName, claim: who, outcome }, 'the claim no longer wants this volume; deleting its asset');
        if (!(await deleteUnsaved(d, plugin, pvName))) throw new Error(`could not delete the unused asset of ${pvName}`);
        return;
      case 'conflict':
        throw new ProvisioningRetry(`a PersistentVolume named ${pvName} exists for another claim`);
    }
  }
  // Delete first, then tell: whoever reads the Event finds the asset gone (or a
  // ProvisioningCleanupFailed Event saying why not).
  const cleaned = await deleteUnsaved(d, plugin, pvName);
  await event(
    d,
    claim,
    'Warning',
    reasons.provisioningFailed,
    `Error creating provisioned PV object for claim ${who}: ${errorText(lastError)}. Deleting the volume.`,
  );
  if (!cleaned) {
    await event(d, claim, 'Warning', reasons.provisioningCleanupFailed, `Error cleaning provisioned volume for claim ${who}. Stowage retries.`);
  }
  throw new ProvisioningRetry(`could not save PV ${pvName}: ${errorText(lastError)}`);
}
