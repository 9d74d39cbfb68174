// What names an object a user is about to delete (a storage class, a snapshot class, a
// backup target), for the delete dialog: counts per referring kind, a few names, the claims'
// phases, and whether the object is its kind's default. Only someone who may delete the
// object is told (the counts span every namespace).
import { isAllowed, type Principal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { isKind } from '../resources/of-kind';
import { isDefaultTarget } from '../resources/backup-target/strategy';
import { isDefaultClass } from '../resources/storage-class/strategy';
import { isDefaultSnapshotClass } from '../resources/volume-snapshot-class/strategy';
import type { ObjectStore } from '../store/object-store';
import { hasReferences, referencesTo, type ReferenceCount } from '../store/reference-queries';
import { forbidden, strategyOrThrow } from './object-access';

export interface Dependents {
  kind: string;
  name: string;
  /** The default of its kind: objects that name none use it today. */
  isDefault: boolean;
  references: ReferenceCount[];
}

export class DependentsService {
  constructor(private readonly store: ObjectStore) {}

  async of(p: Principal, kind: string, name: string): Promise<Dependents> {
    if (!hasReferences(kind)) throw new StowageError('BadRequest', `what depends on a ${kind} is not tracked`);
    const s = strategyOrThrow(kind);
    if (!isAllowed(p, 'delete', s.kind)) throw forbidden(p, 'delete', s, undefined, name);
    const obj = await this.store.tryGet(kind, '', name);
    if (!obj) throw new StowageError('NotFound', `${s.plural} "${name}" not found`, { kind: s.plural, name, group: s.group });
    const isDefault =
      (isKind(obj, 'StorageClass') && isDefaultClass(obj)) ||
      (isKind(obj, 'VolumeSnapshotClass') && isDefaultSnapshotClass(obj)) ||
      (isKind(obj, 'BackupTarget') && isDefaultTarget(obj));
    return { kind, name, isDefault, references: await referencesTo(this.store, kind, name) };
  }
}
