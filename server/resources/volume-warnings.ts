// The warnings the apiserver returns with a create or update of a volume or claim (upstream
// pkg/api/persistentvolume/util.go and pkg/api/persistentvolumeclaim/util.go, the
// strategies' WarningsOnCreate / WarningsOnUpdate). Pure; kubectl prints them as
// "Warning: ...".
import type { PersistentVolume } from './persistent-volume/schema';
import type { PersistentVolumeClaim } from './persistent-volume-claim/schema';
import { annBetaStorageClass } from '../domain/well-known/annotations';

const deprecatedStorageClassAnnotation = `metadata.annotations[${annBetaStorageClass}]: deprecated since v1.8; use "storageClassName" attribute instead`;

export function persistentVolumeWarnings(pv: PersistentVolume): string[] {
  const warnings: string[] = [];
  if (pv.metadata?.annotations?.[annBetaStorageClass] !== undefined) warnings.push(deprecatedStorageClassAnnotation);
  if (pv.spec?.persistentVolumeReclaimPolicy === 'Recycle') {
    warnings.push(
      'spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.',
    );
  }
  return warnings;
}

export function persistentVolumeClaimWarnings(pvc: PersistentVolumeClaim): string[] {
  return pvc.metadata?.annotations?.[annBetaStorageClass] !== undefined ? [deprecatedStorageClassAnnotation] : [];
}
