// The static PersistentVolume form's model: a draft of what a person fills in (one source,
// capacity, modes, policy, class, node affinity), built into a PersistentVolume and checked
// by the kind's own strategy, so the form refuses what the API refuses. Pure.
import type { FieldError } from '@/server/domain/errors';
import { persistentVolumeStrategy } from '@/server/resources/persistent-volume/strategy';
import type { KubeObject } from '@/server/resources/types';

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
  capacity: string;
  accessModes: string[];
  volumeMode: string;
  reclaimPolicy: string;
  storageClassName: string;
  /** Nodes the volume may be used on (kubernetes.io/hostname In ...); a local volume needs exactly one. */
  nodes: string[];
  mountOptions: string;
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
    capacity: '10Gi',
    accessModes: ['ReadWriteOnce'],
    volumeMode: 'Filesystem',
    reclaimPolicy: 'Retain',
    storageClassName: '',
    nodes: [],
    mountOptions: '',
  };
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

export function volumeFromDraft(d: VolumeDraft): KubeObject {
  const mountOptions = d.mountOptions
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
  const nodes = [...new Set(d.nodes.map((n) => n.trim()).filter(Boolean))];
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: d.name.trim() },
    spec: {
      capacity: { storage: d.capacity.trim() },
      accessModes: [...d.accessModes],
      volumeMode: d.volumeMode,
      persistentVolumeReclaimPolicy: d.reclaimPolicy,
      ...(d.storageClassName.trim() ? { storageClassName: d.storageClassName.trim() } : {}),
      ...(mountOptions.length > 0 ? { mountOptions } : {}),
      ...sourceOf(d),
      ...(nodes.length > 0
        ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: nodes }] }] } } }
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
