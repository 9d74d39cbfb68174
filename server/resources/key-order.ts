// Objects leave Stowage with their keys in the order Kubernetes prints them, whatever
// order the strategies built them in.
import { hasOwn, setOwn } from '../domain/own-keys';
import type { KubeObject, ObjectMeta } from './types';

const TOP = ['apiVersion', 'kind', 'metadata'];
const LAST = ['status'];
/** The order Kubernetes prints metadata fields in. */
export const METADATA_ORDER: (keyof ObjectMeta)[] = [
  'name',
  'generateName',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

function ordered<T extends object>(o: T, first: string[], last: string[] = []): T {
  const out: Record<string, unknown> = {};
  const src = o as Record<string, unknown>;
  for (const k of first) if (hasOwn(src, k)) out[k] = src[k];
  for (const k of Object.keys(src)) if (!first.includes(k) && !last.includes(k)) setOwn(out, k, src[k]);
  for (const k of last) if (hasOwn(src, k)) out[k] = src[k];
  return out as T;
}

export function inKubeOrder(o: KubeObject): KubeObject {
  const top = ordered(o, TOP, LAST);
  if (top.metadata) top.metadata = ordered(top.metadata, METADATA_ORDER as string[]);
  return top;
}
