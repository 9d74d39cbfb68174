// The Namespace strategy (core/v1): shape, defaults, validation (ValidateNamespace),
// what create and update reset (pkg/registry/core/namespace/strategy.go) and the table.
import type { FieldError } from '../../domain/errors';
import { ageOf } from '../../domain/duration';
import { isQualifiedName } from '../../domain/names';
import { ageColumn, column, nameColumn, noColumns } from '../columns';
import { child, invalid, notSupported } from '../field-errors';
import { keepAllButStatus, keepSystemMetadata, shapeErrors, stripNulls, validateKubeFinalizerNames, validateObjectMeta, validateObjectMetaUpdate, validateTypeMeta, keepStatus } from '../metadata';
import type { Strategy } from '../types';
import { labelMetadataName } from '../../domain/well-known/labels';
import { namespaceFinalizer } from '../../domain/namespace-lifecycle';
import { namespaceSchema, type Namespace } from './schema';

export const namespacePhases = ['Active', 'Terminating'] as const;

/** The finalizer the namespace lifecycle owns; added on create as upstream does. */
export const kubernetesFinalizer = namespaceFinalizer;

function validateNamespace(ns: Namespace): FieldError[] {
  const errs = [
    ...validateTypeMeta(ns, 'v1', 'Namespace'),
    ...validateObjectMeta(ns.metadata, { namespaced: false, name: 'dns-label' }),
  ];
  const finalizers: string[] = ns.spec?.finalizers ?? [];
  finalizers.forEach((f, i) => {
    for (const msg of isQualifiedName(f)) errs.push(invalid(child('spec.finalizers', i), f, msg));
  });
  errs.push(...validateKubeFinalizerNames(finalizers, 'spec.finalizers'));
  const phase = ns.status?.phase;
  if (phase && !(namespacePhases as readonly string[]).includes(phase)) {
    errs.push(notSupported('status.phase', phase, namespacePhases));
  } else if (phase) {
    // ValidateNamespaceStatusUpdate: the phase follows the deletionTimestamp (a Terminating namespace cannot be revived).
    const deleting = Boolean(ns.metadata?.deletionTimestamp);
    if (deleting && phase !== 'Terminating') errs.push(invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"));
    if (!deleting && phase !== 'Active') errs.push(invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty"));
  }
  return errs;
}

export const namespaceStrategy: Strategy<Namespace> = {
  kind: 'Namespace',
  group: '',
  version: 'v1',
  apiVersion: 'v1',
  plural: 'namespaces',
  singular: 'namespace',
  shortNames: ['ns'],
  namespaced: false,
  hasStatus: true,
  fieldSelectors: {
    'status.phase': (ns) => ns.status?.phase ?? '',
    // Legacy alias of metadata.name that upstream still honours.
    name: (ns) => ns.metadata?.name ?? '',
  },

  validateShape: (obj) => shapeErrors(namespaceSchema, obj),
  schema: namespaceSchema,

  applyDefaults(ns) {
    stripNulls(ns);
    const name = ns.metadata?.name;
    if (name) {
      ns.metadata.labels ??= {};
      ns.metadata.labels[labelMetadataName] = name;
    }
    ns.status ??= {};
    if (!ns.status.phase) ns.status.phase = 'Active';
  },

  prepareForCreate(ns) {
    ns.status = { phase: 'Active' };
    ns.spec ??= {};
    const finalizers: string[] = ns.spec.finalizers ?? [];
    if (!finalizers.includes(kubernetesFinalizer)) ns.spec.finalizers = [...finalizers, kubernetesFinalizer];
  },

  prepareForUpdate(next, prev) {
    keepSystemMetadata(next, prev);
    // spec.finalizers change only through the finalize subresource upstream.
    if (prev.spec === undefined) delete next.spec;
    else next.spec = structuredClone(prev.spec);
    keepStatus(next, prev);
  },

  prepareForStatusUpdate: keepAllButStatus,

  // pkg/registry/core/namespace/storage: a delete marks the namespace Terminating; it goes
  // once spec.finalizers (changed only through /finalize) and metadata.finalizers are empty.
  // Upstream's namespace registry has no DeleteCollection (discovery lists no such verb).
  noDeleteCollection: true,
  kindFinalizers: {
    of: (ns) => ns.spec?.finalizers ?? [],
    markDeleting(ns) {
      ns.status = { ...(ns.status ?? {}), phase: 'Terminating' };
    },
    prepareForFinalize(next, prev) {
      // Only spec.finalizers change (upstream namespaceFinalizeStrategy); a stale
      // resourceVersion sent still fails as a conflict.
      const finalizers: string[] = next.spec?.finalizers ?? [];
      keepAllButStatus(next, prev);
      keepStatus(next, prev);
      next.spec = { ...(next.spec ?? {}), finalizers };
    },
  },

  validate: validateNamespace,
  validateUpdate: (next, prev) => validateObjectMetaUpdate(next.metadata, prev.metadata),

  columns: (ns) => ({ ...noColumns(), phase: ns.status?.phase ?? null }),

  table: {
    columns: [nameColumn, column('Status', 'The status of the namespace'), ageColumn],
    row: (ns, now) => [ns.metadata?.name ?? '', ns.status?.phase ?? '', ageOf(ns.metadata?.creationTimestamp, now)],
  },
};
