// The backup actions beyond the generic object ones: the names and readiness of the backup
// targets, for anyone who may make a backup (BackupTarget itself is the admins': its path is
// not a developer's business), and a verify request on a backup (an annotation the backup
// controller answers). Every write goes through ObjectService, with its authorization.
import { visibleNamespaces, type Principal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import type { KubeObject } from '../resources/types';
import type { ObjectStore } from '../store/object-store';
import { strategyOrThrow } from './object-access';
import type { ObjectService } from './objects';
import { annVerifyRequested } from '../domain/well-known/annotations';

/** The annotation a verify request sets on a VolumeBackup: the time it was asked. */
export const verifyRequestedAnnotation = annVerifyRequested;

/** A target as anyone who may back up may learn it. */
export interface TargetChoice {
  name: string;
  ready: boolean;
  default: boolean;
}

/** The fields of a BackupTarget this service reads (the kind's schema owns the rest). */
interface TargetLike extends KubeObject {
  spec?: { default?: boolean };
  status?: { conditions?: { type: string; status: string }[] };
}

/** Names, readiness and the default mark of the targets; never their paths. By name. Pure. */
export function targetChoices(targets: KubeObject[]): TargetChoice[] {
  return (targets as TargetLike[])
    .filter((t) => !t.metadata.deletionTimestamp)
    .map((t) => ({
      name: t.metadata.name ?? '',
      ready: t.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
      default: t.spec?.default === true,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Whether the principal may make a backup somewhere (and so may learn the targets' names). Pure. */
export function mayBackUpSomewhere(p: Principal): boolean {
  const ns = visibleNamespaces(p, 'create', 'VolumeBackup');
  return ns === 'all' || ns.length > 0;
}

export class BackupService {
  constructor(
    private readonly store: ObjectStore,
    private readonly objects: ObjectService,
  ) {}

  async targetChoices(p: Principal): Promise<TargetChoice[]> {
    if (!mayBackUpSomewhere(p)) throw new StowageError('Forbidden', `${p.name} may not make backups, so may not list backup targets`);
    // Read past the kind's admin-only rule on purpose: only names and readiness leave.
    return targetChoices((await this.store.list(strategyOrThrow('BackupTarget').kind)).items);
  }

  /**
   * Asks the controller to verify a backup (read every chunk back and check its hash): the
   * annotation's value is the time of the request; the answer is the backup's events and
   * conditions. Only a Completed backup can be verified.
   */
  async requestVerify(p: Principal, namespace: string, name: string, now: Date = new Date()): Promise<KubeObject> {
    const b = (await this.objects.get(p, 'VolumeBackup', namespace, name)) as KubeObject & { status?: { phase?: string } };
    if (b.status?.phase !== 'Completed') throw new StowageError('Conflict', `volume backup ${namespace}/${name} is ${b.status?.phase ?? 'Pending'}; only a Completed backup can be verified`);
    const annotations = { ...(b.metadata.annotations ?? {}), [verifyRequestedAnnotation]: now.toISOString() };
    return this.objects.update(p, { ...b, metadata: { ...b.metadata, annotations } });
  }
}
