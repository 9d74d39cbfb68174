// Which cached queries a batch of live changes makes stale (components/data/live.tsx),
// and the objects the stream said are gone, whose own queries are not asked again.
import type { KubeObject } from '@/server/resources/types';

export interface ChangeNotice {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  kind: string;
  namespace?: string | null;
  name: string;
  resourceVersion: string;
  object?: KubeObject;
}

/** Objects the stream said were deleted, or are being deleted, by `kind/namespace/name`. */
export type Gone = Map<string, 'deleted' | 'terminating'>;

type QueryInput = { kind?: string } | undefined;

/** `kind/namespace/name` of an object. */
const keyOf = (kind: string | undefined, namespace: string | null | undefined, name: string | undefined) => `${kind ?? ''}/${namespace ?? ''}/${name ?? ''}`;

/** How many gone objects the stream remembers (the oldest are forgotten first). */
const GONE_LIMIT = 2000;

/**
 * Queries about one object that only make sense while it exists (its events, a claim's
 * doctor): after it is deleted they would answer 404, so they are not asked again. Its
 * `get` is, and the page then says the object is gone and stops showing them. A claim's
 * doctor is not asked again once the claim is being deleted either: its answer would not
 * change what the page shows, and the claim is often gone by the time it is asked.
 */
function aboutDeleted(path: string[], input: { kind?: string; namespace?: string; name?: string } | undefined, gone: Gone): boolean {
  if (gone.size === 0 || !input?.name) return false;
  if (path[0] === 'claims' && path[1] === 'doctor') return gone.has(keyOf('PersistentVolumeClaim', input.namespace, input.name));
  if (path[0] === 'objects' && path[1] === 'events') return gone.get(keyOf(input.kind, input.namespace, input.name)) === 'deleted';
  return false;
}

/** Does this cached query show objects of one of `kinds`? */
export function touches(queryKey: readonly unknown[], kinds: Set<string>, everything: boolean, gone: Gone = new Map()): boolean {
  const [path, opts] = queryKey as [string[] | undefined, { input?: QueryInput } | undefined];
  if (!Array.isArray(path)) return false;
  if (aboutDeleted(path, opts?.input, gone)) return false;
  // The home page's counts change with any volume or claim.
  if (path[0] === 'lists' && path[1] === 'health') return everything || kinds.has('PersistentVolume') || kinds.has('PersistentVolumeClaim');
  // A claim page's capacity and fixes depend on volumes, claims, classes and pods.
  if (path[0] === 'claims' && path[1] === 'doctor') return everything || ['PersistentVolume', 'PersistentVolumeClaim', 'StorageClass', 'Pod'].some((k) => kinds.has(k));
  if (path[0] !== 'objects') return false;
  const proc = path[1];
  if (proc !== 'list' && proc !== 'get' && proc !== 'events') return false;
  if (everything) return true;
  // Events about an object change when an Event object does.
  if (proc === 'events') return kinds.has('Event');
  const kind = opts?.input?.kind;
  return kind === undefined || kinds.has(kind);
}

/** Remembers a deleted or terminating object; one that is (re)created or no longer terminating is forgotten. */
export function noteGone(gone: Gone, notice: ChangeNotice): void {
  const key = keyOf(notice.kind, notice.namespace, notice.name);
  const terminating = Boolean(notice.object?.metadata?.deletionTimestamp);
  if (notice.type === 'DELETED' || terminating) {
    gone.delete(key); // (re)inserted last: the oldest are forgotten first
    gone.set(key, notice.type === 'DELETED' ? 'deleted' : 'terminating');
  } else if (notice.type === 'ADDED' || notice.object) gone.delete(key);
  else return;
  if (gone.size > GONE_LIMIT) gone.delete(gone.keys().next().value!);
}

