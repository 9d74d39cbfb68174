// In-use protection at creation (upstream admission plugin StorageObjectInUseProtection):
// every claim gets kubernetes.io/pvc-protection and every volume
// kubernetes.io/pv-protection, so deleting one that is in use only marks it; the
// pvc-protection and pv-protection controllers remove the finalizers when it is free.
import { pvcProtectionFinalizer, pvProtectionFinalizer } from '../domain/well-known/finalizers';
import type { KubeObject } from './types';

/** The in-use protection finalizer of each protected kind. */
export const protectionFinalizerOf = {
  PersistentVolumeClaim: pvcProtectionFinalizer,
  PersistentVolume: pvProtectionFinalizer,
} as const;
const finalizerOf: Record<string, string> = protectionFinalizerOf;

/** Adds the kind's protection finalizer to an object about to be created (in place). */
export function admitProtection(obj: KubeObject): void {
  const f = finalizerOf[obj?.kind];
  if (!f || !obj.metadata || typeof obj.metadata !== 'object') return;
  const list = obj.metadata.finalizers;
  if (list === undefined || list === null) obj.metadata.finalizers = [f];
  else if (Array.isArray(list) && !list.includes(f)) obj.metadata.finalizers = [...list, f];
}
