// Taint keys upstream's node lifecycle sets and the scheduler honours, with upstream's meaning.

/** A node marked unschedulable (spec.unschedulable): no new pods. */
export const taintUnschedulable = 'node.kubernetes.io/unschedulable';
/** A node whose Ready condition is not True. */
export const taintNotReady = 'node.kubernetes.io/not-ready';
