// Provisioning one claim (seed 000 "In-tree provisioning"; upstream provisionClaimOperation
// and sig-storage-lib-external-provisioner's shouldProvision / provisionClaimOperation):
// level-triggered, it reads the claim as it is now and provisions only when the claim is
// still unbound, handed to an in-tree plugin (volume.kubernetes.io/storage-provisioner),
// its class exists and names that plugin, and its PV (pvc-<uid>) does not exist yet.
// Failures become ProvisioningFailed Events and are retried with the runtime's backoff.
import { claimClass } from '../../domain/matching';
import { maskValues, secretValues } from '../../domain/redaction';
import { provisionerSecretRef } from '../../domain/secret-references';
import { secretData } from '../../resources/secret/strategy';
import { failed, provisionOptionsFor, volumeNameFor, ProvisioningError, type ProvisionResult } from '../../provisioners/plugin';
import type { ProvisionerPlugin } from '../../provisioners/plugin';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { ReconcileContext, ReconcileResult } from '../runtime/controller';
import { event } from '../runtime/event';
import { write } from '../runtime/write';
import { errorText } from '../runtime/errors';
import type { ProvisioningDeps } from './deps';
import { reasons } from '../../domain/well-known/event-reasons';
import { ProvisioningRetry, saveVolume } from './save-volume';
import { decideDataSource, type DataSourceFacts } from './data-source';
import { protectCloneSource, releaseCloneSource } from './clone-protection';
import { forgetFinishedRestore, provisionRestore } from './restore';
import { dataSourceKind, dataSourceOf } from '../../domain/data-source';
import type { StorageClass } from '../../resources/storage-class/schema';
import { annBetaStorageProvisioner, annSelectedNode, annStorageProvisioner } from '../../domain/well-known/annotations';

const PVC = 'PersistentVolumeClaim';
const PV = 'PersistentVolume';

/** The in-tree plugin a claim was handed to, if any. */
export function pluginFor(d: ProvisioningDeps, claim: PersistentVolumeClaim): ProvisionerPlugin | undefined {
  const a = claim.metadata.annotations ?? {};
  const name = a[annStorageProvisioner] ?? a[annBetaStorageProvisioner];
  return name === undefined ? undefined : d.plugins.get(name);
}

/**
 * Reports a failure on the claim and throws, so the runtime retries with backoff. A claim
 * with a data source is worded as external-provisioner does (sig-storage-lib-external-provisioner
 * provisionVolumeErrorHandling: the error itself), others as the in-tree PV controller.
 */
async function fail(d: ProvisioningDeps, claim: PersistentVolumeClaim, className: string, error: unknown, secrets: string[] = []): Promise<never> {
  // The message goes to the claim's owner: no value of a secret parameter or Secret in it.
  const text = maskValues(errorText(error), secrets);
  const message = dataSourceKind(claim) !== undefined ? text : `Failed to provision volume with StorageClass "${className}": ${text}`;
  await event(d, claim, 'Warning', reasons.provisioningFailed, message);
  throw new ProvisioningRetry(message);
}

/** Upstream rescheduleProvisioning: drop the selected node so the scheduler picks another. */
async function reschedule(d: ProvisioningDeps, ctx: ReconcileContext, claim: PersistentVolumeClaim, className: string, error: Error): Promise<void> {
  if (!claim.metadata.annotations?.[annSelectedNode]) return fail(d, claim, className, error);
  await write(d, ctx, async (tx) => {
    const c = await tx.get(PVC, claim.metadata.namespace, claim.metadata.name!);
    if (!c || c.metadata.uid !== claim.metadata.uid || !c.metadata.annotations?.[annSelectedNode]) return;
    delete c.metadata.annotations[annSelectedNode];
    await tx.update(c);
  });
  await event(d, claim, 'Warning', reasons.provisioningFailed, `Failed to provision volume with StorageClass "${className}": ${error.message}; asking for another node`);
}

/** The objects a claim's data source names, as they are now. */
async function dataSourceFacts(d: ProvisioningDeps, claim: PersistentVolumeClaim, storageClass: StorageClass): Promise<DataSourceFacts> {
  const ns = claim.metadata.namespace;
  const name = dataSourceOf(claim)?.name ?? '';
  if (dataSourceKind(claim) === 'snapshot') {
    const snapshot = name ? await d.store.tryGet('VolumeSnapshot', ns, name) : undefined;
    const contentName = snapshot?.status?.boundVolumeSnapshotContentName;
    const content = contentName ? await d.store.tryGet('VolumeSnapshotContent', undefined, contentName) : undefined;
    return { claim, storageClass, snapshot, content };
  }
  const sourceClaim = name ? await d.store.tryGet(PVC, ns, name) : undefined;
  const pvName = sourceClaim?.spec?.volumeName;
  const sourceVolume = pvName ? await d.store.tryGet(PV, undefined, pvName) : undefined;
  return { claim, storageClass, sourceClaim, sourceVolume };
}

export async function provisionClaim(d: ProvisioningDeps, ctx: ReconcileContext, namespace: string, name: string): Promise<ReconcileResult | void> {
  const claim = await d.store.recent(PVC, namespace, name);
  if (!claim) return;
  const plugin = pluginFor(d, claim);
  if (!plugin) return; // not handed to provisioning, or to an external provisioner
  // A claim being cloned keeps its cloning protection while a clone of it is Pending; a clone provisioned releases its source.
  await releaseCloneSource(d, ctx, claim);
  if (claim.spec?.volumeName && dataSourceKind(claim) === 'clone') ctx.enqueue(`pvc/${namespace}/${dataSourceOf(claim)?.name ?? ''}`);
  if (claim.spec?.volumeName === volumeNameFor(claim)) await forgetFinishedRestore(d, claim, claim.spec.volumeName);
  if (claim.spec?.volumeName || claim.metadata.deletionTimestamp) return;
  const className = claimClass(claim);
  if (!className) return;
  const storageClass = await d.store.recent('StorageClass', undefined, className);
  if (!storageClass) return fail(d, claim, className, new Error(`storageclass.storage.k8s.io "${className}" not found`));
  // The class now names another provisioner: the binder hands the claim over again.
  if (storageClass.provisioner !== plugin.name) return;
  const selectedNode = claim.metadata.annotations?.[annSelectedNode];
  if (storageClass.volumeBindingMode === 'WaitForFirstConsumer' && !selectedNode) return;
  const pvName = volumeNameFor(claim);
  // Provisioned already (maybe by an attempt that crashed after saving): the binder binds it.
  if (await d.store.recent(PV, undefined, pvName)) return forgetFinishedRestore(d, claim, pvName);

  const options = provisionOptionsFor(claim, storageClass);
  const hidden = secretValues(storageClass.parameters);
  try {
    const ref = provisionerSecretRef(storageClass.parameters ?? {}, claim, pvName);
    if (ref) {
      const secret = await d.store.tryGet('Secret', ref.namespace, ref.name);
      if (!secret) throw new ProvisioningError(`the provisioner Secret "${ref.namespace}/${ref.name}" does not exist`);
      options.secrets = secretData(secret);
      hidden.push(...Object.values(options.secrets));
    }
  } catch (err) {
    return fail(d, claim, className, err, hidden);
  }
  const problems = plugin.validateParameters(options.parameters, claim, storageClass);
  if (problems.length > 0) return fail(d, claim, className, new ProvisioningError(problems.join('; ')), hidden);
  if (dataSourceKind(claim) === 'backup') {
    return provisionRestore(d, ctx, claim, storageClass, plugin, pvName, options, (err) => fail(d, claim, className, err, hidden));
  }
  if (dataSourceKind(claim) !== undefined) {
    if (!plugin.capabilities.snapshots) return fail(d, claim, className, new ProvisioningError(`${plugin.name} cannot populate a volume from a data source`), hidden);
    const facts = await dataSourceFacts(d, claim, storageClass);
    const source = decideDataSource(facts);
    if (!source.ok) return fail(d, claim, className, new ProvisioningError(source.message), hidden);
    if (facts.sourceClaim && source.source?.kind === 'volume') await protectCloneSource(d, ctx, facts.sourceClaim);
    options.source = source.source;
  }

  let result: ProvisionResult;
  try {
    result = await plugin.provision(options);
  } catch (err) {
    result = failed(err);
  }
  if (result.state === 'finished' && result.volume) {
    return saveVolume(d, ctx, claim, storageClass, plugin, pvName, result.volume);
  }
  const error = result.error ?? new Error(`${plugin.name} returned no volume`);
  switch (result.state) {
    case 'inBackground':
      d.log.debug({ claim: `${namespace}/${name}`, plugin: plugin.name }, 'provisioning continues in the background');
      return { requeueAfter: result.retryAfterMs ?? d.backgroundPollMs };
    case 'reschedule':
      return reschedule(d, ctx, claim, className, error);
    default:
      return fail(d, claim, className, error, hidden);
  }
}
