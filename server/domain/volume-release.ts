// Whether a volume's claim has let go of it (upstream isVolumeReleased,
// pkg/controller/volume/persistentvolume/pv_controller.go). Pure. The deleter and the
// local-volume manager both reclaim only such volumes.
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';

/**
 * The volume's claim (by its uid) is gone, or that claim is now bound to another volume.
 * A volume reserved by name only (no uid) is not released.
 */
export function isVolumeReleased(pv: PersistentVolume, claim: PersistentVolumeClaim | undefined): boolean {
  const ref = pv.spec?.claimRef;
  if (!ref || !ref.uid) return false;
  if (claim && claim.metadata.uid === ref.uid) {
    return !!claim.spec?.volumeName && claim.spec.volumeName !== pv.metadata.name;
  }
  return true;
}
