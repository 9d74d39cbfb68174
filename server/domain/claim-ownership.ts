// Which parts of a claim belong to the controllers, not to its developer. Upstream lets a
// user pre-bind a claim (spec.volumeName) or set the binder's annotations, because a
// namespace there is no security boundary for volumes; in Stowage it is: a developer who
// names a volume could take another team's disk. Pure: no I/O.
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import {
  annBetaStorageProvisioner,
  annBindCompleted,
  annBindingExplanation,
  annBoundByController,
  annSelectedNode,
  annStorageProvisioner,
} from './well-known/annotations';

/** Written by the binder and provisioner only (upstream component-helpers/storage/volume). */
export const CONTROLLER_ANNOTATIONS: readonly string[] = [
  annBindCompleted,
  annBoundByController,
  annStorageProvisioner,
  annBetaStorageProvisioner,
  annBindingExplanation,
  // Placement picks the node from the pod that uses the claim; a developer naming a node
  // by hand could steer a volume onto a node their pods may not use.
  annSelectedNode,
];

/** A JSON object's own fields, or none: the functions here are total over any shape sent. */
function fields(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/**
 * What a non-admin may not change on a claim: one sentence per problem, empty when the
 * write is theirs to make. `prev` is undefined on create.
 */
export function controllerOwnedChanges(next: PersistentVolumeClaim, prev: PersistentVolumeClaim | undefined): string[] {
  const problems: string[] = [];
  const volumeName = fields(next.spec).volumeName || '';
  const prevVolumeName = fields(prev?.spec).volumeName || '';
  if (volumeName !== prevVolumeName) {
    problems.push(
      prevVolumeName
        ? 'spec.volumeName is set by the binder and cannot be changed'
        : `spec.volumeName: only an administrator may pre-bind a claim to a volume ("${String(volumeName)}")`,
    );
  }
  const after = fields(fields(next.metadata).annotations);
  const before = fields(fields(prev?.metadata).annotations);
  for (const key of CONTROLLER_ANNOTATIONS) {
    if (after[key] !== before[key]) problems.push(`metadata.annotations[${key}] is written by the controllers only`);
  }
  return problems;
}

/**
 * A developer's replace (`kubectl replace`, a PUT of their own manifest) that leaves out
 * what the controllers wrote keeps it: absent controller annotations and an absent
 * spec.volumeName are carried over from the stored claim. Changes `next` in place.
 */
export function keepControllerOwned(next: PersistentVolumeClaim, prev: PersistentVolumeClaim): void {
  const stored = fields(fields(prev.metadata).annotations);
  const meta: unknown = next.metadata;
  // A body of another shape is left as it is: validation refuses it, as for any role.
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return;
  for (const key of CONTROLLER_ANNOTATIONS) {
    if (stored[key] === undefined) continue;
    const sent: unknown = (next.metadata.annotations ??= {});
    if (sent === null || typeof sent !== 'object' || Array.isArray(sent)) break;
    if (!Object.hasOwn(sent, key)) (sent as Record<string, unknown>)[key] = stored[key];
  }
  const spec: unknown = next.spec;
  const prevVolumeName = fields(prev.spec).volumeName;
  if (!prevVolumeName || spec === null || typeof spec !== 'object' || Array.isArray(spec)) return;
  if (!fields(spec).volumeName) (spec as Record<string, unknown>).volumeName = prevVolumeName;
}
