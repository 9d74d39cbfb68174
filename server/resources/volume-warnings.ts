// The warnings the apiserver returns with a create or update of a volume or claim (upstream
// pkg/api/persistentvolume/util.go and pkg/api/persistentvolumeclaim/util.go, the
// strategies' WarningsOnCreate / WarningsOnUpdate). Pure; kubectl prints them as
// "Warning: ...".
import type { PersistentVolume } from './persistent-volume/schema';
import type { PersistentVolumeClaim } from './persistent-volume-claim/schema';
import { betaStorageClassAnnotation } from './volume-fields';

const deprecatedStorageClassAnnotation = `metadata.annotations[${betaStorageClassAnnotation}]: deprecated since v1.8; use "storageClassName" attribute instead`;

export function persistentVolumeWarnings(pv: PersistentVolume): string[] {
  const warnings: string[] = [];
  if (pv.metadata?.annotations?.[betaStorageClassAnnotation] !== undefined) warnings.push(deprecatedStorageClassAnnotation);
  if (pv.spec?.persistentVolumeReclaimPolicy === 'Recycle') {
    warnings.push(
      'spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.',
    );
  }
  return warnings;
}

export function persistentVolumeClaimWarnings(pvc: PersistentVolumeClaim): string[] {
  return pvc.metadata?.annotations?.[betaStorageClassAnnotation] !== undefined ? [deprecatedStorageClassAnnotation] : [];
}
