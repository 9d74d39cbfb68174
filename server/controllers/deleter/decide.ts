// What the deleter does with a volume (seed 000 "Controller workflow for deleting volumes",
// upstream isVolumeReleased and sig-storage-lib-external-provisioner shouldDelete). Pure.
import { isVolumeReleased } from '../../domain/volume-release';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import { annDynamicallyProvisioned } from '../../domain/well-known/annotations';
import { pvControllerFinalizer } from '../../domain/well-known/finalizers';
import { inTreeProvisionerPrefix, isLocalVolumeProvisioner } from '../../domain/well-known/provisioners';

export type DeleterAction = { action: 'none'; why: string } | { action: 'delete' } | { action: 'dropFinalizer'; why: string };

/**
 * `inTree`: the volume's provisioned-by names one of Stowage's plugins. Volumes of external
 * provisioners are theirs to delete (seed 000: "If the deleter is not known to Kubernetes,
 * it does not do anything").
 */
export function deleterAction(pv: PersistentVolume, claim: PersistentVolumeClaim | undefined, inTree: boolean): DeleterAction {
  if (!pv.metadata.annotations?.[annDynamicallyProvisioned]) return { action: 'none', why: 'not dynamically provisioned' };
  // Local volumes are the local-volume manager's: wiped by their node's agent first.
  if (isLocalVolumeProvisioner(pv.metadata.annotations[annDynamicallyProvisioned])) return { action: 'none', why: 'a local volume: the local-volume manager reclaims it' };
  if (!inTree) return { action: 'none', why: 'provisioned by an external provisioner, which deletes it' };
  const finalizers = pv.metadata.finalizers ?? [];
  const guarded = finalizers.includes(pvControllerFinalizer);
  const policy = pv.spec?.persistentVolumeReclaimPolicy;
  if (policy !== 'Delete') {
    // Retain (or Recycle) now: the asset outlives the PV, so nothing may hold the PV for it.
    return guarded ? { action: 'dropFinalizer', why: `reclaim policy is ${policy}` } : { action: 'none', why: `reclaim policy is ${policy}` };
  }
  if (pv.metadata.deletionTimestamp && !guarded) return { action: 'none', why: 'its asset was deleted already' };
  const phase = pv.status?.phase;
  if (phase !== 'Released' && phase !== 'Failed') return { action: 'none', why: `phase is ${phase ?? 'unset'}` };
  if (!isVolumeReleased(pv, claim)) return { action: 'none', why: 'its claim still uses it' };
  return { action: 'delete' };
}

export type VolumeDeleterChoice =
  | { deleter: 'inTree'; plugin: string }
  | { deleter: 'external'; provisioner: string }
  | { deleter: 'none'; message: string };

/**
 * Upstream findDeletablePlugin (pv_controller.go): who deletes a Released volume whose
 * reclaim policy is Delete. The plugin named by pv.kubernetes.io/provisioned-by when it is
 * one of ours; any other name outside kubernetes.io/ belongs to an external provisioner,
 * which deletes it itself; otherwise nobody can, and the volume goes Failed with the
 * message upstream writes.
 */
export function chooseDeleter(pv: PersistentVolume, inTree: ReadonlySet<string>): VolumeDeleterChoice {
  const name = pv.metadata.annotations?.[annDynamicallyProvisioned];
  if (name) {
    if (inTree.has(name)) return { deleter: 'inTree', plugin: name };
    if (!name.startsWith(inTreeProvisionerPrefix)) return { deleter: 'external', provisioner: name };
    return { deleter: 'none', message: `no deletable volume plugin matched name: ${name}` };
  }
  return { deleter: 'none', message: `error getting deleter volume plugin for volume "${pv.metadata.name}": no deletable volume plugin matched` };
}
