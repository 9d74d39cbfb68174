// The namespace lifecycle as upstream has it, as pure rules: which namespaces may never be
// deleted and the refusals' wording (plugin/pkg/admission/namespace/lifecycle), and the
// status conditions the namespace controller reports while it empties a Terminating
// namespace (pkg/controller/namespace/deletion/status_condition_utils.go).
import { qualifiedResource, StowageError } from './errors';

/** Upstream's immortal namespaces: a delete of one is refused. */
export const immortalNamespaces: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

/** The finalizer (in a namespace's spec.finalizers) the namespace controller owns. */
export const namespaceFinalizer = 'kubernetes';

/** Upstream's StatusCause type of a create refused in a Terminating namespace. */
export const namespaceTerminatingCause = 'NamespaceTerminating';

/** `namespaces "default" is forbidden: this namespace may not be deleted`, or undefined. */
export function immortalDeleteRefusal(name: string): StowageError | undefined {
  if (!immortalNamespaces.has(name)) return undefined;
  return new StowageError('Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`, { kind: 'namespaces', name });
}

/** Upstream's lifecycle admission: a create in a Terminating namespace is Forbidden, with a NamespaceTerminating cause. */
export function terminatingCreateRefusal(resource: string, group: string, name: string, namespace: string): StowageError {
  return new StowageError(
    'Forbidden',
    `${qualifiedResource(resource, group)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
    {
      kind: resource,
      name,
      ...(group ? { group } : {}),
      causes: [{ reason: namespaceTerminatingCause, message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
    },
  );
}

export type NamespaceConditionType =
  | 'NamespaceDeletionDiscoveryFailure'
  | 'NamespaceDeletionGroupVersionParsingFailure'
  | 'NamespaceDeletionContentFailure'
  | 'NamespaceContentRemaining'
  | 'NamespaceFinalizersRemaining';

/** The condition types the controller maintains, in upstream's order. */
export const namespaceConditionTypes: readonly NamespaceConditionType[] = [
  'NamespaceDeletionDiscoveryFailure',
  'NamespaceDeletionGroupVersionParsingFailure',
  'NamespaceDeletionContentFailure',
  'NamespaceContentRemaining',
  'NamespaceFinalizersRemaining',
];

const okMessages: Record<NamespaceConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: 'All resources successfully discovered',
  NamespaceDeletionGroupVersionParsingFailure: 'All legacy kube types successfully parsed',
  NamespaceDeletionContentFailure: 'All content successfully deleted, may be waiting on finalization',
  NamespaceContentRemaining: 'All content successfully removed',
  NamespaceFinalizersRemaining: 'All content-preserving finalizers finished',
};

const okReasons: Record<NamespaceConditionType, string> = {
  NamespaceDeletionDiscoveryFailure: 'ResourcesDiscovered',
  NamespaceDeletionGroupVersionParsingFailure: 'ParsedGroupVersions',
  NamespaceDeletionContentFailure: 'ContentDeleted',
  NamespaceContentRemaining: 'ContentRemoved',
  NamespaceFinalizersRemaining: 'ContentHasNoFinalizers',
};

export interface NamespaceCondition {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- names upstream's values for the reader; any string is kept as read
  status: 'True' | 'False' | string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** What one pass over a Terminating namespace found still there, and what it failed to delete. */
export interface ContentTally {
  /** Objects remaining per resource, keyed `plural.group` ("persistentvolumeclaims." in the core group, as upstream prints it). */
  remaining: Record<string, number>;
  /** Remaining objects per finalizer they carry. */
  finalizers: Record<string, number>;
  /** One message per resource whose deletion failed. */
  errors: string[];
}

export function emptyTally(): ContentTally {
  return { remaining: {}, finalizers: {}, errors: [] };
}

/** Counts one remaining object of `plural` in `group` (with its finalizers) into the tally. */
export function countRemaining(t: ContentTally, plural: string, group: string, finalizers: readonly string[] | undefined): void {
  const key = `${plural}.${group}`;
  t.remaining[key] = (t.remaining[key] ?? 0) + 1;
  for (const f of finalizers ?? []) t.finalizers[f] = (t.finalizers[f] ?? 0) + 1;
}

export function hasRemaining(t: ContentTally): boolean {
  return Object.values(t.remaining).some((n) => n > 0);
}

/** The failing conditions a tally calls for (upstream ProcessContentTotals and makeDeleteContentCondition). */
export function failingConditions(t: ContentTally, now: string): NamespaceCondition[] {
  const out: NamespaceCondition[] = [];
  if (t.errors.length > 0) {
    const msgs = [...t.errors].sort();
    out.push({
      type: 'NamespaceDeletionContentFailure',
      status: 'True',
      lastTransitionTime: now,
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${msgs.length} remaining: ${msgs.join(', ')}`,
    });
  }
  const resources = Object.entries(t.remaining)
    .filter(([, n]) => n > 0)
    .map(([r, n]) => `${r} has ${n} resource instances`)
    .sort();
  if (resources.length > 0) {
    out.push({ type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: now, reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${resources.join(', ')}` });
  }
  const finalizers = Object.entries(t.finalizers)
    .filter(([, n]) => n > 0)
    .map(([f, n]) => `${f} in ${n} resource instances`)
    .sort();
  if (finalizers.length > 0) {
    out.push({
      type: 'NamespaceFinalizersRemaining',
      status: 'True',
      lastTransitionTime: now,
      reason: 'SomeFinalizersRemain',
      message: `Some content in the namespace has finalizers remaining: ${finalizers.join(', ')}`,
    });
  }
  return out;
}

/**
 * The namespace's conditions after a pass (upstream updateConditions): every maintained type
 * is present, failing as the tally says or else its "ok" variant; a condition keeps its
 * lastTransitionTime unless its status flips. Other condition types are kept as they are.
 */
export function nextConditions(old: readonly NamespaceCondition[], t: ContentTally, now: string): { conditions: NamespaceCondition[]; changed: boolean } {
  const failing = failingConditions(t, now);
  const conditions = old.map((c) => ({ ...c }));
  let changed = false;
  for (const type of namespaceConditionTypes) {
    const want = failing.find((c) => c.type === type) ?? { type, status: 'False', lastTransitionTime: now, reason: okReasons[type], message: okMessages[type] };
    const had = conditions.find((c) => c.type === type);
    if (!had) {
      conditions.push(want);
      changed = true;
    } else if (had.status !== want.status || had.message !== want.message || had.reason !== want.reason) {
      if (had.status !== want.status) had.lastTransitionTime = now;
      had.status = want.status;
      had.reason = want.reason;
      had.message = want.message;
      changed = true;
    }
  }
  return { conditions, changed };
}

/** What the namespace controller does next for one namespace (upstream namespacedResourcesDeleter.Delete). */
export type NamespaceStep =
  /** Not being deleted (or gone): nothing to do. */
  | { kind: 'none' }
  /** Finalized (spec.finalizers empty): delete the namespace object itself. */
  | { kind: 'delete' }
  /** Another party's finalizer holds it; ours is gone: wait for them. */
  | { kind: 'wait-for-others' }
  /** Delete the content (pods first, then the rest once no pod remains), report, and finalize when nothing remains. */
  | { kind: 'empty' };

export interface NamespaceFacts {
  exists: boolean;
  deletionTimestamp?: string;
  specFinalizers: readonly string[];
}

export function decideNamespace(f: NamespaceFacts): NamespaceStep {
  if (!f.exists || !f.deletionTimestamp) return { kind: 'none' };
  if (f.specFinalizers.length === 0) return { kind: 'delete' };
  if (!f.specFinalizers.includes(namespaceFinalizer)) return { kind: 'wait-for-others' };
  return { kind: 'empty' };
}

/**
 * Upstream's OrderedNamespaceDeletion: pods go first, and the other content only once no pod
 * remains, so that volumes are unpublished before their claims are deleted.
 */
export function deleteOthersNow(podsRemaining: number): boolean {
  return podsRemaining === 0;
}

/** Upstream's estimate of how long remaining content takes: the longest pod grace, else 15 s per finalizer wait. */
export function remainingEstimateSeconds(podGraces: readonly number[], anyFinalizers: boolean): number {
  const pods = podGraces.length > 0 ? Math.max(...podGraces) : 0;
  return Math.max(pods, anyFinalizers ? 15 : 0);
}

export interface RemainingContent {
  /** Objects still in the namespace, by resource (plural, group) and count. */
  resources: { resource: string; group: string; count: number }[];
  /** The finalizers they still carry, with counts. */
  finalizers: { finalizer: string; count: number }[];
  /** Why deleting content failed, when it did. */
  failure?: string;
}

/**
 * What a Terminating namespace still holds, read back from the controller's conditions (for
 * the dashboard): the inverse of failingConditions' messages.
 */
export function remainingOf(conditions: readonly NamespaceCondition[] | null | undefined): RemainingContent {
  const find = (type: NamespaceConditionType) => (conditions ?? []).find((c) => c.type === type && c.status === 'True');
  const listed = (message: string | undefined, prefix: string) =>
    message?.startsWith(prefix) ? message.slice(prefix.length).split(', ').filter(Boolean) : [];
  const resources = listed(find('NamespaceContentRemaining')?.message, 'Some resources are remaining: ').flatMap((part) => {
    const m = /^([^.\s]+)\.(\S*) has (\d+) resource instances$/.exec(part);
    return m ? [{ resource: m[1], group: m[2], count: Number(m[3]) }] : [];
  });
  const finalizers = listed(find('NamespaceFinalizersRemaining')?.message, 'Some content in the namespace has finalizers remaining: ').flatMap((part) => {
    const m = /^(\S+) in (\d+) resource instances$/.exec(part);
    return m ? [{ finalizer: m[1], count: Number(m[2]) }] : [];
  });
  const failure = find('NamespaceDeletionContentFailure')?.message;
  return { resources, finalizers, ...(failure ? { failure } : {}) };
}
