// Which StorageClass is the default (upstream pkg/volume/util GetDefaultClass), and the
// DefaultStorageClass admission of claims (plugin/pkg/admission/storage/storageclass/setdefault).
// Pure.
import type { PersistentVolumeClaim } from '../persistent-volume-claim/schema';
import type { StorageClass } from './schema';
import { isDefaultClass } from './strategy';
import { annBetaStorageClass } from '../../domain/well-known/annotations';

/** Of several defaults the newest wins; equal creation times go by name, ascending. */
export function newestDefault(classes: StorageClass[]): StorageClass | undefined {
  let best: StorageClass | undefined;
  for (const sc of classes.filter(isDefaultClass)) {
    if (!best) {
      best = sc;
      continue;
    }
    const a = String(sc.metadata.creationTimestamp ?? '');
    const b = String(best.metadata.creationTimestamp ?? '');
    if (a > b || (a === b && String(sc.metadata.name) < String(best.metadata.name))) best = sc;
  }
  return best;
}

/**
 * A claim created without a class (neither spec.storageClassName, even "", nor the beta
 * annotation) gets the default class's name, in place. Returns whether it did.
 */
export function admitDefaultClass(claim: PersistentVolumeClaim, classes: StorageClass[]): boolean {
  if (!mayTakeDefaultClass(claim)) return false;
  const def = newestDefault(classes);
  if (!def) return false;
  claim.spec = { ...(claim.spec ?? {}), storageClassName: def.metadata.name };
  return true;
}

/** Whether the admission would look for a default class for this claim (it names none). */
export function mayTakeDefaultClass(claim: PersistentVolumeClaim): boolean {
  if (claim.metadata?.annotations?.[annBetaStorageClass] !== undefined) return false;
  return claim.spec?.storageClassName === undefined || claim.spec?.storageClassName === null;
}
