// What the garbage collector does with an object that has owners (upstream
// pkg/controller/garbagecollector attemptToDeleteItem, background propagation). Pure.
//
// Each ownerReference is classified against the object that now has the owner's name:
//   solid         it exists with the referenced uid;
//   dangling      nothing has that name, or something with another uid (a new object of the
//                 same name is not the owner), or a namespaced owner missing from the
//                 dependent's namespace;
//   unresolvable  a kind Stowage does not serve, or a namespaced owner named by a
//                 cluster-scoped dependent: upstream cannot resolve it either, and never
//                 deletes for it.
// The dependent goes only when every owner is dangling; with some solid owners left, the
// dangling references are removed (as upstream) and the dependent stays.

export type OwnerState = 'solid' | 'dangling' | 'unresolvable';

export type GcDecision =
  | { action: 'none'; why: string }
  | { action: 'delete'; why: string }
  | { action: 'dropReferences'; uids: string[] };

export interface OwnerFacts {
  uid: string;
  state: OwnerState;
}

export function decideDependent(being: { deleting: boolean }, owners: OwnerFacts[]): GcDecision {
  if (owners.length === 0) return { action: 'none', why: 'no owners' };
  if (being.deleting) return { action: 'none', why: 'already being deleted' };
  if (owners.some((o) => o.state === 'unresolvable')) return { action: 'none', why: 'an owner cannot be resolved' };
  const dangling = owners.filter((o) => o.state === 'dangling').map((o) => o.uid);
  if (dangling.length === 0) return { action: 'none', why: 'every owner exists' };
  if (dangling.length === owners.length) return { action: 'delete', why: `every owner is gone (${dangling.join(', ')})` };
  return { action: 'dropReferences', uids: dangling };
}
