// An object as YAML, with its fields in the order people write them (apiVersion, kind,
// metadata, spec, status), whatever order the stored JSON has. Pure.
import { stringify } from 'yaml';
import { METADATA_ORDER } from '@/server/resources/key-order';
import type { KubeObject } from '@/server/resources/types';

const TOP = [
  'apiVersion',
  'kind',
  'metadata',
  // StorageClass
  'provisioner',
  'parameters',
  'reclaimPolicy',
  'volumeBindingMode',
  'allowVolumeExpansion',
  'mountOptions',
  'allowedTopologies',
  // Event
  'involvedObject',
  'type',
  'reason',
  'message',
  'source',
  'reportingComponent',
  'reportingInstance',
  'firstTimestamp',
  'lastTimestamp',
  'eventTime',
  'count',
  'spec',
  'status',
];
const META = METADATA_ORDER as string[];
const SPEC = [
  'capacity',
  'accessModes',
  'resources',
  'persistentVolumeReclaimPolicy',
  'storageClassName',
  'volumeMode',
  'volumeName',
  'selector',
  'claimRef',
  'nodeAffinity',
  'mountOptions',
];
const STATUS = ['phase', 'reason', 'message'];

function ordered<T extends Record<string, unknown>>(obj: T, order: string[]): T {
  const out: Record<string, unknown> = {};
  for (const k of order) if (k in obj) out[k] = obj[k];
  for (const k of Object.keys(obj).sort()) if (!(k in out)) out[k] = obj[k];
  return out as T;
}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function orderFields(obj: KubeObject): KubeObject {
  const o = ordered(obj, TOP);
  if (isMap(o.metadata)) o.metadata = ordered(o.metadata, META);
  if (isMap(o.spec)) o.spec = ordered(o.spec, SPEC);
  if (isMap(o.status)) o.status = ordered(o.status, STATUS);
  return o;
}

export function objectYaml(obj: KubeObject): string {
  return stringify(orderFields(obj), { lineWidth: 0 });
}
