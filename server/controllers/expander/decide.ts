// Volume expansion (the external-resizer protocol, done in-tree), as pure decisions: how
// many bytes a claim asks to grow to, and the claim status of each stage.
import { bytesToQuantity, formatQuantity, quantityFromJSON, quantityToBytes } from '../../domain/quantity';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';

export const conditionResizing = 'Resizing';
export const conditionFsResizePending = 'FileSystemResizePending';
export const conditionControllerResizeError = 'ControllerResizeError';
const stageConditions = [conditionResizing, conditionFsResizePending, conditionControllerResizeError];

export const fsResizePendingMessage = 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.';

const bytesOf = (v: unknown): bigint | undefined => {
  const q = quantityFromJSON(v);
  return q === undefined ? undefined : quantityToBytes(q);
};

/** The size a Bound claim asks to grow to (bytes), or undefined when it has what it asks. */
export function expansionWanted(claim: PersistentVolumeClaim): bigint | undefined {
  if (claim.status?.phase !== 'Bound' || claim.metadata?.deletionTimestamp || !claim.spec?.volumeName) return undefined;
  const want = bytesOf(claim.spec?.resources?.requests?.storage);
  const have = bytesOf(claim.status?.capacity?.storage) ?? 0n;
  return want !== undefined && want > have ? want : undefined;
}

/** The quantity to show for `bytes`: the claim's own spelling when it is exactly that. */
export function capacityQuantity(claim: PersistentVolumeClaim, bytes: bigint): string {
  const asked = claim.spec?.resources?.requests?.storage;
  return bytesOf(asked) === bytes && typeof asked === 'string' ? asked : formatQuantity(bytesToQuantity(bytes));
}

export type Stage =
  | { kind: 'resizing' }
  | { kind: 'failed'; message: string }
  | { kind: 'fsPending' }
  | { kind: 'done'; capacity: string };

/** The claim's status for a stage (a new object; conditions of other stages removed). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the claim status as an open object: conditions of every stage, written back as read
export function statusFor(claim: PersistentVolumeClaim, stage: Stage, now: string): Record<string, any> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above: a copy of the claim's open status
  const status: Record<string, any> = structuredClone(claim.status ?? {});
  const keep = (Array.isArray(status.conditions) ? status.conditions : []).filter((c) => !stageConditions.includes(c?.type));
  const cond = (type: string, message?: string) => ({ type, status: 'True', lastProbeTime: now, lastTransitionTime: now, ...(message ? { message } : {}) });
  const requested = claim.spec?.resources?.requests?.storage;
  switch (stage.kind) {
    case 'resizing':
      status.allocatedResources = { ...(status.allocatedResources ?? {}), storage: requested };
      status.allocatedResourceStatuses = { ...(status.allocatedResourceStatuses ?? {}), storage: 'ControllerResizeInProgress' };
      status.conditions = [...keep, cond(conditionResizing)];
      break;
    case 'failed':
      status.allocatedResources = { ...(status.allocatedResources ?? {}), storage: requested };
      status.allocatedResourceStatuses = { ...(status.allocatedResourceStatuses ?? {}), storage: 'ControllerResizeInProgress' };
      status.conditions = [...keep, cond(conditionResizing), cond(conditionControllerResizeError, stage.message)];
      break;
    case 'fsPending':
      status.allocatedResourceStatuses = { ...(status.allocatedResourceStatuses ?? {}), storage: 'NodeResizePending' };
      status.conditions = [...keep, cond(conditionFsResizePending, fsResizePendingMessage)];
      break;
    case 'done': {
      status.capacity = { ...(status.capacity ?? {}), storage: stage.capacity };
      const { storage: _s, ...otherStatuses } = status.allocatedResourceStatuses ?? {};
      if (Object.keys(otherStatuses).length > 0) status.allocatedResourceStatuses = otherStatuses;
      else delete status.allocatedResourceStatuses;
      if (keep.length > 0) status.conditions = keep;
      else delete status.conditions;
      break;
    }
  }
  return status;
}
