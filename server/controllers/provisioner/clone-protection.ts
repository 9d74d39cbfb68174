// upstream external-provisioner's cloning protection: the claim being cloned gets the
// finalizer provisioner.storage.kubernetes.io/cloning-protection before its data is copied,
// so deleting it waits; the finalizer goes once no claim of its namespace is still Pending
// with it as data source (upstream CloningProtectionController).
import { dataSourceKind, dataSourceOf } from '../../domain/data-source';
import { pvcCloneFinalizer } from '../../domain/well-known/finalizers';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { ReconcileContext } from '../runtime/controller';
import { write } from '../runtime/write';
import type { ProvisioningDeps } from './deps';

const PVC = 'PersistentVolumeClaim';

/** Claims of the source's namespace still being cloned from it: Pending, their data source this claim. Pure. */
export function pendingClones(source: PersistentVolumeClaim, claims: readonly PersistentVolumeClaim[]): string[] {
  return claims
    .filter((c) => c.metadata.namespace === source.metadata.namespace && c.status?.phase !== 'Bound' && dataSourceKind(c) === 'clone' && dataSourceOf(c)?.name === source.metadata.name)
    .map((c) => c.metadata.name ?? '');
}

async function changeFinalizer(d: ProvisioningDeps, ctx: ReconcileContext, source: PersistentVolumeClaim, add: boolean): Promise<void> {
  await write(d, ctx, async (t) => {
    const c = await t.get(PVC, source.metadata.namespace, source.metadata.name ?? '');
    if (!c || c.metadata.uid !== source.metadata.uid) return;
    const has = (c.metadata.finalizers ?? []).includes(pvcCloneFinalizer);
    if (has === add || (add && c.metadata.deletionTimestamp)) return;
    c.metadata.finalizers = add ? [...(c.metadata.finalizers ?? []), pvcCloneFinalizer] : c.metadata.finalizers!.filter((f) => f !== pvcCloneFinalizer);
    await t.update(c);
  });
}

/** Before a clone copies the source claim's data (upstream setCloneFinalizer). */
export async function protectCloneSource(d: ProvisioningDeps, ctx: ReconcileContext, source: PersistentVolumeClaim): Promise<void> {
  if (!(source.metadata.finalizers ?? []).includes(pvcCloneFinalizer)) await changeFinalizer(d, ctx, source, true);
}

/** The source's finalizer goes once nothing is being cloned from it. */
export async function releaseCloneSource(d: ProvisioningDeps, ctx: ReconcileContext, source: PersistentVolumeClaim): Promise<void> {
  if (!(source.metadata.finalizers ?? []).includes(pvcCloneFinalizer)) return;
  const claims = (await d.store.list(PVC, { namespace: source.metadata.namespace })).items;
  if (pendingClones(source, claims).length === 0) await changeFinalizer(d, ctx, source, false);
}
