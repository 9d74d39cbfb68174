// What a create and an update do to the object they write, before it is queued (upstream's
// rest.BeforeCreate and BeforeUpdate): the system-owned metadata, the kind's defaults and
// validation, generation, and whether an update changes anything at all. No I/O: the
// transaction (store-tx.ts) reads what these rules need and queues what they answer.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { conflict, invalid, notFound, StowageError } from '../domain/errors';
import type { KubeObject, ObjectMeta, Strategy } from '../resources/types';
import type { UpdateOptions } from './write-options';

const GENERATE_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

export function nowRfc3339(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Upstream's generateName: a name of the given prefix and five random characters, when none is given. */
export function fillGeneratedName(meta: ObjectMeta): void {
  if (!meta.name && meta.generateName) {
    let suffix = '';
    for (let i = 0; i < 5; i++) suffix += GENERATE_CHARS[Math.floor(Math.random() * GENERATE_CHARS.length)];
    meta.name = meta.generateName + suffix;
  }
}

/**
 * A new object as it is stored: fresh uid, creation time and generation, no version or
 * deletion marks, the kind's apiVersion and defaults; throws Invalid when validation fails.
 */
export function prepareCreate(s: Strategy, obj: KubeObject): void {
  const meta = obj.metadata;
  meta.uid = randomUUID();
  meta.creationTimestamp = nowRfc3339();
  meta.generation = 1;
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  // managedFields are kept as given: server-side apply records its manager at creation.
  if (Array.isArray(meta.managedFields) && meta.managedFields.length === 0) delete meta.managedFields;
  obj.apiVersion = s.apiVersion;
  s.applyDefaults(obj);
  s.prepareForCreate(obj);
  const errors = s.validate(obj);
  if (errors.length > 0) throw invalid(s.kind, meta.name, errors, s.group);
}

/** Everything but metadata and status: what `generation` counts changes of. */
function specPart(o: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
  return rest;
}

function comparable(o: KubeObject): KubeObject {
  const { resourceVersion: _rv, ...meta } = o.metadata;
  return { ...o, metadata: meta };
}

/** An update's preconditions on the stored object: its resourceVersion and uid, when given. */
function checkPreconditions(s: Strategy, meta: ObjectMeta, prev: KubeObject): void {
  const name = meta.name ?? '';
  if (meta.resourceVersion && meta.resourceVersion !== prev.metadata.resourceVersion) {
    throw conflict(s.kind, name, s.plural, s.group);
  }
  if (meta.uid && meta.uid !== prev.metadata.uid) {
    throw new StowageError(
      'Conflict',
      `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${prev.metadata.uid}`,
      { kind: s.plural, name, ...(s.group ? { group: s.group } : {}) },
    );
  }
}

/** System-owned metadata always comes from the stored object. */
function keepSystemMetadata(s: Strategy, next: KubeObject, prev: KubeObject): void {
  next.metadata.uid = prev.metadata.uid;
  next.metadata.creationTimestamp = prev.metadata.creationTimestamp;
  next.metadata.namespace = prev.metadata.namespace;
  if (!s.namespaced) delete next.metadata.namespace;
  next.metadata.generation = prev.metadata.generation ?? 1;
  next.metadata.resourceVersion = prev.metadata.resourceVersion;
  // managedFields: a write that leaves them out keeps the stored ones (as upstream);
  // an empty list clears them.
  if (next.metadata.managedFields === undefined) {
    if (prev.metadata.managedFields !== undefined) next.metadata.managedFields = prev.metadata.managedFields;
  } else if (Array.isArray(next.metadata.managedFields) && next.metadata.managedFields.length === 0) {
    delete next.metadata.managedFields;
  }
  if (prev.metadata.deletionTimestamp) {
    next.metadata.deletionTimestamp = prev.metadata.deletionTimestamp;
    next.metadata.deletionGracePeriodSeconds = prev.metadata.deletionGracePeriodSeconds;
  } else {
    delete next.metadata.deletionTimestamp;
    delete next.metadata.deletionGracePeriodSeconds;
  }
  if (next.metadata.generateName === undefined && prev.metadata.generateName) {
    next.metadata.generateName = prev.metadata.generateName;
  }
}

/**
 * `next` made ready to replace `prev` (changed in place): the preconditions checked, the
 * subresource's rules applied, system-owned metadata taken from `prev`, defaults, validation
 * and generation. Answers the change to queue: MODIFIED, or DELETED for an object being
 * deleted whose last finalizer went; undefined when nothing changed.
 */
export function prepareUpdate(
  s: Strategy,
  next: KubeObject,
  prev: KubeObject,
  opts: UpdateOptions,
): { type: 'MODIFIED' | 'DELETED'; object: KubeObject } | undefined {
  const meta = next.metadata;
  checkPreconditions(s, meta, prev);
  next.apiVersion = s.apiVersion;
  if (opts.subresource === 'status') {
    next.metadata = { ...prev.metadata };
    s.prepareForStatusUpdate(next, prev);
  } else if (opts.subresource === 'finalize') {
    if (!s.kindFinalizers) throw notFound(s.kind, meta.name ?? '', s.plural, s.group);
    s.kindFinalizers.prepareForFinalize(next, prev);
  } else {
    s.prepareForUpdate(next, prev);
  }
  keepSystemMetadata(s, next, prev);
  s.applyDefaults(next);
  const errors = [...s.validate(next), ...s.validateUpdate(next, prev)];
  if (errors.length > 0) throw invalid(s.kind, meta.name, errors, s.group);
  if (!isDeepStrictEqual(specPart(next), specPart(prev))) next.metadata.generation = (next.metadata.generation ?? 1) + 1;
  if (isDeepStrictEqual(comparable(next), comparable(prev))) return undefined;
  // Finalizers gone from an object being deleted: it goes, unless it is still in its grace period.
  const graceLeft = (next.metadata.deletionGracePeriodSeconds ?? 0) > 0;
  const held = (next.metadata.finalizers ?? []).length > 0 || (s.kindFinalizers?.of(next) ?? []).length > 0;
  const type = next.metadata.deletionTimestamp && !held && !graceLeft ? 'DELETED' : 'MODIFIED';
  return { type, object: next };
}
