// A node as the node-lifecycle rules read it.
import type { isNodeReady } from '../domain/node-lifecycle';
import type { Node } from '../resources/node/schema';

/**
 * A node as domain/node-lifecycle.ts reads it: its NodeCondition requires the type and
 * status the schema leaves optional (a condition without them matches no check there).
 */
export const asConditionedNode = <N extends Node | undefined>(n: N) => n as Parameters<typeof isNodeReady>[0] & N;
