// Narrowing an object to its kind's type once its `kind` was checked at run time. Used by
// the server and the dashboard alike.
import type { KindName, ObjectOf } from './kinds';
import type { KubeObject } from './types';

/**
 * Whether `obj` is of `kind` (the store fills every object's kind), as a type guard. The
 * literal kind in the narrowed type matters for kinds whose other fields are all optional
 * (StorageClass, Event ...): any object is structurally one of those.
 */
export function isKind<K extends KindName>(obj: { kind: string }, kind: K): obj is ObjectOf<K> & { kind: K } {
  return obj.kind === kind;
}

/** The objects of `kind` among `items` (all of them when the list was of that kind). */
export function ofKind<K extends KindName>(items: KubeObject[], kind: K): (KubeObject & ObjectOf<K>)[] {
  return items.filter((o): o is KubeObject & ObjectOf<K> => isKind(o, kind));
}
