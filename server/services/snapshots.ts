// The dashboard's snapshot actions beyond the generic object ones: take a snapshot of a claim
// now, save a schedule for a claim (create or change every/keep), and make a
// VolumeSnapshotClass its driver's one default. Every write goes through ObjectService (the
// same authorization and validation as kubectl's), except the default move, which needs one
// transaction over several classes and authorizes itself first.
import { actorOfPrincipal } from '../domain/actor';
import { isAllowed, type Principal } from '../domain/authorization';
import { StowageError } from '../domain/errors';
import { annIsDefaultSnapshotClass } from '../domain/well-known/annotations';
import { SNAPSHOT_SCHEDULE_API_VERSION, type SnapshotSchedule } from '../resources/snapshot-schedule/schema';
import { SNAPSHOT_API_VERSION } from '../resources/snapshot-fields';
import type { VolumeSnapshot } from '../resources/volume-snapshot/schema';
import type { ObjectStore } from '../store/object-store';
import { forbidden, strategyOrThrow } from './object-access';
import type { ObjectService } from './objects';

export interface ScheduleInput {
  namespace: string;
  /** The schedule's name (created when absent). */
  name: string;
  claimName: string;
  every: string;
  keep: number;
  snapshotClassName?: string;
  suspend?: boolean;
  /** Each snapshot is also backed up (absent: no backups; an edit without it turns them off). */
  backup?: { targetName?: string; keep: number };
  /** When changing an existing schedule: the version the user saw (a conflict otherwise). */
  resourceVersion?: string;
  /**
   * The spec generation the user saw: when it is still the schedule's, changes since are
   * the controller's status only, and do not refuse the edit.
   */
  generation?: number;
}

export class SnapshotService {
  constructor(
    private readonly store: ObjectStore,
    private readonly objects: ObjectService,
  ) {}

  /** A snapshot of `claim` now, named after it with a generated suffix. */
  async take(p: Principal, namespace: string, claim: string, snapshotClassName?: string): Promise<VolumeSnapshot> {
    // The claim must be one the user may read (and exist): a clear 404 rather than a snapshot in error.
    await this.objects.get(p, 'PersistentVolumeClaim', namespace, claim);
    return this.objects.create(p, {
      apiVersion: SNAPSHOT_API_VERSION,
      kind: 'VolumeSnapshot' as const,
      metadata: { generateName: `${claim.slice(0, 200).replace(/[.-]+$/, '')}-`, namespace },
      spec: { source: { persistentVolumeClaimName: claim }, ...(snapshotClassName ? { volumeSnapshotClassName: snapshotClassName } : {}) },
    });
  }

  /** Creates the schedule, or changes its interval, count, class and suspension (its target stays). */
  async saveSchedule(p: Principal, input: ScheduleInput): Promise<SnapshotSchedule> {
    const spec = {
      every: input.every,
      keep: input.keep,
      target: { claimName: input.claimName },
      ...(input.snapshotClassName ? { snapshotClassName: input.snapshotClassName } : {}),
      ...(input.suspend ? { suspend: true } : {}),
      ...(input.backup ? { backup: { keep: input.backup.keep, ...(input.backup.targetName ? { targetName: input.backup.targetName } : {}) } } : {}),
    };
    if (input.resourceVersion === undefined) {
      return this.objects.create(p, { apiVersion: SNAPSHOT_SCHEDULE_API_VERSION, kind: 'SnapshotSchedule' as const, metadata: { name: input.name, namespace: input.namespace }, spec });
    }
    const current = await this.objects.get(p, 'SnapshotSchedule', input.namespace, input.name);
    const target = current.spec?.target ?? spec.target;
    const unchangedSpec = input.generation !== undefined && current.metadata.generation === input.generation;
    const resourceVersion = unchangedSpec ? current.metadata.resourceVersion : input.resourceVersion;
    return this.objects.update(p, { ...current, metadata: { ...current.metadata, resourceVersion }, spec: { ...spec, target } });
  }

  /**
   * `on`: makes `name` the one default class of its driver (upstream refuses to pick when a
   * driver has several), in one transaction; off: takes its mark away.
   */
  async setDefaultClass(p: Principal, name: string, on: boolean): Promise<{ defaults: string[] }> {
    const s = strategyOrThrow('VolumeSnapshotClass');
    if (!isAllowed(p, 'update', s.kind)) throw forbidden(p, 'update', s, undefined, name);
    const names = (await this.store.list('VolumeSnapshotClass')).items.map((c) => c.metadata.name ?? '').sort();
    if (!names.includes(name)) throw new StowageError('NotFound', `volumesnapshotclasses.snapshot.storage.k8s.io "${name}" not found`);
    return this.store.transact(
      async (tx) => {
        const target = await tx.mustGet(s.kind, undefined, name);
        const defaults: string[] = [];
        // Every class in one order, so two moves at once cannot both win.
        for (const n of names) {
          const c = n === name ? target : await tx.get(s.kind, undefined, n);
          if (!c || c.driver !== target.driver) continue;
          const isDefault = c.metadata.annotations?.[annIsDefaultSnapshotClass] === 'true';
          const shouldBe = n === name ? on : isDefault && !on;
          if (shouldBe) defaults.push(n);
          if (isDefault === shouldBe) continue;
          const annotations = { ...c.metadata.annotations };
          if (shouldBe) annotations[annIsDefaultSnapshotClass] = 'true';
          else delete annotations[annIsDefaultSnapshotClass];
          await tx.update({ ...c, metadata: { ...c.metadata, annotations } });
        }
        return { defaults };
      },
      { actor: actorOfPrincipal(p) },
    );
  }
}
