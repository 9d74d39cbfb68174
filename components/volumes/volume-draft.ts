// The static PersistentVolume form's model: a draft of what a person fills in (one source,
// capacity, modes, policy, class, node affinity), built into a PersistentVolume and checked
// by the kind's own strategy, so the form refuses what the API refuses. Pure.
import type { FieldError } from '@/server/domain/errors';
import { quantityOfValue, valueOfQuantity, type SizeValue } from '../format/size-value';
import { persistentVolumeStrategy } from '@/server/resources/persistent-volume/strategy';
import type { PersistentVolume } from '@/server/resources/persistent-volume/schema';
import { labelHostname } from '@/server/domain/well-known/labels';

export const SOURCES = ['hostPath', 'local', 'nfs', 'csi'] as const;
export type Source = (typeof SOURCES)[number];
export const SOURCE_LABELS: Record<Source, string> = { hostPath: 'Host path', local: 'Local path on a node', nfs: 'NFS', csi: 'CSI driver' };
export const ACCESS_MODES = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] as const;
export const HOST_PATH_TYPES = ['', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'BlockDevice'] as const;

export interface VolumeDraft {
  name: string;
  source: Source;
  path: string;
  hostPathType: string;
  nfsServer: string;
  readOnly: boolean;
  csiDriver: string;
  csiVolumeHandle: string;
  fsType: string;
  /** The size control's amount and unit. */
  capacity: SizeValue;
  accessModes: string[];
  volumeMode: string;
  reclaimPolicy: string;
  storageClassName: string;
  /** Nodes the volume may be used on (kubernetes.io/hostname In ...); a local volume needs exactly one. */
  nodes: string[];
  mountOptions: string;
  /** Labels, one `key=value` per line (a claim's selector picks volumes by them). */
  labels: string;
  /** The claim this volume is reserved for (`namespace/name`): spec.claimRef; empty for any claim. */
  reservedFor: string;
}

export function emptyVolumeDraft(): VolumeDraft {
  return {
    name: '',
    source: 'hostPath',
    path: '',
    hostPathType: 'DirectoryOrCreate',
    nfsServer: '',
    readOnly: false,
    csiDriver: '',
    csiVolumeHandle: '',
    fsType: '',
    capacity: { size: '10', unit: 'Gi' },
    accessModes: ['ReadWriteOnce'],
    volumeMode: 'Filesystem',
    reclaimPolicy: 'Retain',
    storageClassName: '',
    nodes: [],
    mountOptions: '',
    labels: '',
    reservedFor: '',
  };
}

const LIMIT = 512;
const param = (get: (k: string) => string | null, k: string) => (get(k) ?? '').slice(0, LIMIT).trim();

/**
 * A draft prefilled from the address (the claim page's "Create a matching volume"):
 * name, capacity, accessModes (comma-separated), volumeMode, storageClassName, labels
 * (comma-separated key=value) and claim (namespace/name). Unknown values are dropped,
 * everything else is left to the form's checks.
 */
export function draftFromParams(get: (k: string) => string | null): VolumeDraft {
  const d = emptyVolumeDraft();
  const name = param(get, 'name');
  if (name) d.name = name;
  const capacity = param(get, 'capacity');
  // A quantity in the link is shown in the size control; anything else is kept to be refused.
  if (capacity) d.capacity = valueOfQuantity(capacity) ?? { size: capacity, unit: 'Gi' };
  const modes = param(get, 'accessModes')
    .split(',')
    .map((m) => m.trim())
    .filter((m): m is (typeof ACCESS_MODES)[number] => (ACCESS_MODES as readonly string[]).includes(m));
  if (modes.length > 0) d.accessModes = [...new Set(modes)];
  const mode = param(get, 'volumeMode');
  if (mode === 'Filesystem' || mode === 'Block') d.volumeMode = mode;
  d.storageClassName = param(get, 'storageClassName');
  d.labels = param(get, 'labels')
    .split(',')
    .map((l) => l.trim())
    .filter((l) => /^[^=\s]+=[^=\s]*$/.test(l))
    .join('\n');
  const claim = param(get, 'claim');
  if (/^[^/\s]+\/[^/\s]+$/.test(claim)) d.reservedFor = claim;
  return d;
}

/** The address of the volume form prefilled for a claim. */
export function volumeFormHref(p: { name?: string; capacity: string; accessModes: string[]; volumeMode: string; storageClassName: string; labels: Record<string, string>; claim?: string }): string {
  const q = new URLSearchParams();
  if (p.name) q.set('name', p.name);
  q.set('capacity', p.capacity);
  q.set('accessModes', p.accessModes.join(','));
  q.set('volumeMode', p.volumeMode);
  if (p.storageClassName) q.set('storageClassName', p.storageClassName);
  const labels = Object.entries(p.labels).map(([k, v]) => `${k}=${v}`);
  if (labels.length > 0) q.set('labels', labels.join(','));
  if (p.claim) q.set('claim', p.claim);
  return `/new/volume?${q.toString()}`;
}

function labelsOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const l = line.trim();
    if (!l) continue;
    const i = l.indexOf('=');
    if (i < 0) out[l] = '';
    else out[l.slice(0, i).trim()] = l.slice(i + 1).trim();
  }
  return out;
}

function sourceOf(d: VolumeDraft): Record<string, unknown> {
  switch (d.source) {
    case 'hostPath':
      return { hostPath: { path: d.path.trim(), ...(d.hostPathType ? { type: d.hostPathType } : {}) } };
    case 'local':
      return { local: { path: d.path.trim(), ...(d.fsType.trim() ? { fsType: d.fsType.trim() } : {}) } };
    case 'nfs':
      return { nfs: { server: d.nfsServer.trim(), path: d.path.trim(), ...(d.readOnly ? { readOnly: true } : {}) } };
    case 'csi':
      return { csi: { driver: d.csiDriver.trim(), volumeHandle: d.csiVolumeHandle.trim(), ...(d.fsType.trim() ? { fsType: d.fsType.trim() } : {}), ...(d.readOnly ? { readOnly: true } : {}) } };
  }
}

export function volumeFromDraft(d: VolumeDraft): PersistentVolume {
  const mountOptions = d.mountOptions
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
  const nodes = [...new Set(d.nodes.map((n) => n.trim()).filter(Boolean))];
  const labels = labelsOf(d.labels);
  const [claimNs, claimName] = d.reservedFor.trim().split('/');
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: d.name.trim(), ...(Object.keys(labels).length > 0 ? { labels } : {}) },
    spec: {
      capacity: { storage: quantityOfValue(d.capacity) || d.capacity.size.trim() },
      accessModes: [...d.accessModes],
      volumeMode: d.volumeMode,
      persistentVolumeReclaimPolicy: d.reclaimPolicy,
      ...(d.storageClassName.trim() ? { storageClassName: d.storageClassName.trim() } : {}),
      ...(mountOptions.length > 0 ? { mountOptions } : {}),
      ...(claimNs && claimName ? { claimRef: { kind: 'PersistentVolumeClaim', namespace: claimNs, name: claimName } } : {}),
      ...sourceOf(d),
      ...(nodes.length > 0
        ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: labelHostname, operator: 'In', values: nodes }] }] } } }
        : {}),
    },
  };
}

/** What the API would refuse, by field path (the strategy's shape and validation), plus the form's own musts. */
export function volumeDraftErrors(d: VolumeDraft): FieldError[] {
  const pv = volumeFromDraft(d);
  const s = persistentVolumeStrategy;
  const shape = s.validateShape(pv);
  if (shape.length > 0) return shape;
  const obj = structuredClone(pv);
  s.applyDefaults(obj);
  const errs = s.validate(obj);
  if (d.source === 'local' && d.nodes.filter((n) => n.trim()).length !== 1) {
    errs.push({ field: 'spec.nodeAffinity', reason: 'FieldValueRequired', message: 'Required value: a local volume lives on one node: pick it' });
  }
  return errs;
}

/** The messages of one field and its children. */
export function volumeErrorFor(errs: FieldError[], ...fields: string[]): string | undefined {
  const hit = errs.filter((e) => fields.some((f) => e.field === f || e.field.startsWith(`${f}.`) || e.field.startsWith(`${f}[`)));
  return hit.length > 0 ? [...new Set(hit.map((e) => e.message))].join('; ') : undefined;
}
