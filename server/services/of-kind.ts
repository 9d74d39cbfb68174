// Narrowing an object to its kind's type once its `kind` was checked at run time.
import type { isNodeReady } from '../domain/node-lifecycle';
import type { KindName, ObjectOf } from '../resources/kinds';
import type { Node } from '../resources/node/schema';
import type { KubeObject } from '../resources/types';

/**
 * Whether `o` is of `kind` (the store fills every object's kind), as a type guard. The
 * intersection narrows also to a kind without spec or status (StorageClass, Event ...),
 * to which a KubeObject is assignable as it is.
 */
export function isKind<K extends KindName>(o: KubeObject, kind: K): o is KubeObject & ObjectOf<K> {
  return o.kind === kind;
}

/**
 * A node as domain/node-lifecycle.ts reads it: its NodeCondition requires the type and
 * status the schema leaves optional (a condition without them matches no check there).
 */
export const asConditionedNode = <N extends Node | undefined>(n: N) => n as Parameters<typeof isNodeReady>[0] & N;

/** The objects of `kind` among `items` (all of them when the list was of that kind). */
export function ofKind<K extends KindName>(items: KubeObject[], kind: K): ObjectOf<K>[] {
  return items.filter((o): o is ObjectOf<K> => isKind(o, kind));
}
