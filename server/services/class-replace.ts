// "Replace in place" of a StorageClass: the API forbids changing a class's provisioner,
// parameters, reclaim policy or binding mode, and claims and volumes name their class, so
// the class is deleted and created again under the same name with the changes, in ONE
// store transaction: nobody ever sees the name missing, and either both happen or neither.
// The original must still be at the version the preview showed (else Conflict, nothing
// written); the replacement goes through the kind's validation and the same admission as
// a create, and a dry run runs all of it (only the commit is left out). Admins only.
import { actorOfPrincipal } from '../domain/actor';
import { isAllowed, type Principal } from '../domain/authorization';
import { invalid, StowageError } from '../domain/errors';
import { isDefaultClass } from '../resources/storage-class/strategy';
import type { Admission, KubeObject } from '../resources/types';
import type { ObjectStore } from '../store/object-store';
import { lockStorageClasses } from '../store/storage-class-locks';
import { forbidden, strategyOrThrow } from './object-access';
import { annBetaIsDefaultClass, annIsDefaultClass } from '../domain/well-known/annotations';

const SC = 'StorageClass';

export interface ReplaceClassInput {
  /** The class to replace; the replacement keeps this name. */
  name: string;
  /** The original's resourceVersion the preview was made at. */
  resourceVersion: string;
  /** The changed class (its name, if any, must be `name`). */
  replacement: KubeObject;
  /** The replacement is the default class (every other default stops being one). */
  makeDefault: boolean;
  dryRun?: boolean;
}

export interface ReplaceClassResult {
  /** The class as created (in a dry run: as it would be). */
  class: KubeObject;
  /** What the transaction does (did), in order. */
  steps: string[];
  dryRun: boolean;
}

/**
 * The class to create: the replacement under `name`, without what the store gives a new
 * object (uid, versions, timestamps), with the default mark exactly when `makeDefault`.
 */
export function replacementOf(replacement: KubeObject, name: string, makeDefault: boolean): KubeObject {
  if (replacement?.kind !== SC) throw new StowageError('BadRequest', `the replacement must be a StorageClass, not ${JSON.stringify(replacement?.kind ?? null)}`);
  const given = replacement.metadata?.name;
  if (given !== undefined && given !== name) {
    throw new StowageError('BadRequest', `the replacement must keep the name ${name} (it names ${JSON.stringify(given)}); to make a class under another name, clone it`);
  }
  const next = structuredClone(replacement);
  const { uid: _u, resourceVersion: _rv, creationTimestamp: _c, generation: _g, deletionTimestamp: _d, deletionGracePeriodSeconds: _dg, managedFields: _m, ...meta } = next.metadata ?? {};
  const annotations: Record<string, string> = { ...(meta.annotations ?? {}) };
  delete annotations[annIsDefaultClass];
  delete annotations[annBetaIsDefaultClass];
  if (makeDefault) annotations[annIsDefaultClass] = 'true';
  next.metadata = { ...meta, name };
  if (Object.keys(annotations).length > 0) next.metadata.annotations = annotations;
  else delete next.metadata.annotations;
  return next;
}

/** The steps of a replacement, in the order the transaction takes them. */
export function replaceSteps(original: KubeObject, makeDefault: boolean, otherDefaults: string[]): string[] {
  const name = original.metadata.name ?? '';
  const steps = [
    `delete class ${name} (version ${original.metadata.resourceVersion})`,
    `create class ${name} with the changes (claims and volumes naming ${name} keep working)`,
  ];
  if (makeDefault) {
    steps.push(isDefaultClass(original) ? `${name} stays the default class` : `${name} becomes the default class`);
    for (const other of otherDefaults) steps.push(`${other} stops being a default class`);
  } else if (isDefaultClass(original)) {
    steps.push(`${name} stops being the default class`);
  }
  steps.push('all in one transaction: if any step fails, nothing is changed');
  return steps;
}

export class ClassReplaceService {
  constructor(
    private readonly store: ObjectStore,
    /** The admission a create of a class runs (ObjectService's), so the replacement meets the same checks. */
    private readonly admit: Admission = async () => [],
  ) {}

  /** Refuses (403) anyone but an admin who may delete and create classes, before anything is read or parsed. */
  authorize(p: Principal, name?: string): void {
    const s = strategyOrThrow(SC);
    for (const verb of ['delete', 'create', 'update'] as const) {
      if (p.role !== 'admin' || !isAllowed(p, verb, SC)) throw forbidden(p, verb, s, undefined, name);
    }
  }

  async replaceInPlace(p: Principal, input: ReplaceClassInput): Promise<ReplaceClassResult> {
    this.authorize(p, input.name);
    const next = replacementOf(input.replacement, input.name, input.makeDefault);
    const refused = await this.admit(next);
    if (refused.length > 0) throw invalid(SC, input.name, refused, 'storage.k8s.io');
    const dryRun = !!input.dryRun;
    return this.store.transact(
      async (tx) => {
        const original = await tx.get(SC, undefined, input.name);
        if (!original) throw new StowageError('NotFound', `storage class ${input.name} no longer exists`);
        if (original.metadata.resourceVersion !== input.resourceVersion) {
          throw new StowageError(
            'Conflict',
            `storage class ${input.name} changed since the preview (version ${input.resourceVersion} → ${original.metadata.resourceVersion}); preview again`,
          );
        }
        await tx.delete(SC, undefined, input.name, { preconditions: { uid: original.metadata.uid, resourceVersion: input.resourceVersion } });
        const created = await tx.create(next);
        const otherDefaults: string[] = [];
        if (input.makeDefault) {
          // Every class locked in name order (as the default switch does), so two moves
          // of the default at once cannot both win.
          for (const name of await lockStorageClasses(tx)) {
            if (name === input.name) continue;
            const sc = await tx.mustGet(SC, undefined, name);
            if (!isDefaultClass(sc)) continue;
            const annotations: Record<string, string> = { ...sc.metadata.annotations };
            delete annotations[annIsDefaultClass];
            delete annotations[annBetaIsDefaultClass];
            await tx.update({ ...sc, metadata: { ...sc.metadata, annotations } });
            otherDefaults.push(name);
          }
        }
        return { class: created, steps: replaceSteps(original, input.makeDefault, otherDefaults), dryRun };
      },
      { dryRun, actor: actorOfPrincipal(p) },
    );
  }
}
