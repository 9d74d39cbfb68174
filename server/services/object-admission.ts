// The checks ObjectService runs on a user's write before the store's own (shape, defaults,
// validation, quota): what a non-admin may not change on a claim and the redactions they
// send back, a backup's target and the one default target, and upstream's resize
// admission of a claim.
import type { Principal } from '../domain/authorization';
import { controllerOwnedChanges, keepControllerOwned } from '../domain/claim-ownership';
import { StowageError, type FieldError } from '../domain/errors';
import { restoreRedacted } from '../domain/redaction';
import { admitBackupTarget, secondDefaultProblem } from '../resources/backup-target/default-target';
import { isKind } from '../resources/of-kind';
import { isExpansion, resizeClassName, resizeRefusal } from '../resources/persistent-volume-claim/resize';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { KubeObject, Strategy } from '../resources/types';
import type { ObjectStore } from '../store/object-store';
import { readerOf } from './object-access';

/** Non-admin writes: redactions sent back keep stored values; controller-owned parts stay theirs. */
export async function guardWrite(p: Principal, s: Strategy, obj: KubeObject, prevOrCreate: KubeObject | 'create'): Promise<void> {
  if (p.role === 'admin') return;
  const prev = prevOrCreate === 'create' ? undefined : prevOrCreate;
  if (prev) restoreRedacted(readerOf(p), obj, prev);
  if (!isKind(obj, 'PersistentVolumeClaim')) return;
  const prevClaim = prev && isKind(prev, 'PersistentVolumeClaim') ? prev : undefined;
  if (prevClaim) keepControllerOwned(obj, prevClaim);
  const problems = controllerOwnedChanges(obj, prevClaim);
  if (problems.length > 0) {
    const what = `${s.plural} "${obj.metadata?.name ?? ''}" is forbidden: User "${p.name}" may not change what the controllers own: ${problems.join('; ')}`;
    throw new StowageError('Forbidden', what, { kind: s.plural, name: obj.metadata?.name, group: s.group });
  }
}

/** A backup's target (the default when it names none; refused when there is none), and one default target. */
export async function admitBackups(store: ObjectStore, obj: KubeObject): Promise<FieldError[]> {
  if (isKind(obj, 'VolumeBackup')) return admitBackupTarget(obj, await store.current('BackupTarget'));
  if (isKind(obj, 'BackupTarget')) return secondDefaultProblem(obj, await store.current('BackupTarget'));
  return [];
}

/** Upstream's PersistentVolumeClaimResize admission: growing needs a Bound claim of an expandable class. */
export async function admitResize(store: ObjectStore, s: Strategy, obj: PersistentVolumeClaim): Promise<void> {
  const name = obj.metadata?.name;
  if (typeof name !== 'string' || !name) return;
  const prev = await store.tryGet('PersistentVolumeClaim', obj.metadata?.namespace, name);
  if (!prev || !isExpansion(obj, prev)) return;
  // An unbound claim's spec change is refused by validation (Invalid), as upstream.
  if (prev.status?.phase !== 'Bound') return;
  const className = resizeClassName(prev);
  const sc = className ? await store.tryGet('StorageClass', undefined, className) : undefined;
  const refusal = resizeRefusal(obj, prev, sc);
  if (refusal) throw new StowageError('Forbidden', `${s.plural} "${name}" is forbidden: ${refusal}`, { kind: s.plural, name, group: s.group });
}
