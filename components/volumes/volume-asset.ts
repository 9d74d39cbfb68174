// What a PersistentVolume's storage really is: its source type, where it lives (path,
// server:path, driver and handle, ...) and the nodes it is pinned to. Pure.
import type { PersistentVolume } from '@/server/resources/persistent-volume/schema';
import { labelHostname } from '@/server/domain/well-known/labels';

const SOURCES = ['hostPath', 'local', 'nfs', 'csi', 'iscsi', 'fc', 'rbd', 'cephfs', 'gcePersistentDisk', 'awsElasticBlockStore', 'azureDisk', 'azureFile', 'flexVolume'];

export interface AssetField {
  label: string;
  value: string;
}

export interface VolumeAsset {
  /** The spec field naming the source: hostPath, local, nfs, csi, ... ("" when none). */
  type: string;
  fields: AssetField[];
}

function str(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

export function volumeAssetOf(pv: PersistentVolume): VolumeAsset {
  // The sources are looked up by name; each is read as a map of fields.
  const spec: Record<string, unknown> = pv.spec ?? {};
  const type = SOURCES.find((k) => spec[k]) ?? '';
  const s = (type ? (spec[type] ?? {}) : {}) as Record<string, unknown>;
  const f: AssetField[] = [];
  const add = (label: string, value: unknown) => str(value) && f.push({ label, value: str(value) });
  switch (type) {
    case 'hostPath':
      add('Path', s.path);
      add('Path type', s.type);
      break;
    case 'local':
      add('Path', s.path);
      add('Filesystem', s.fsType);
      break;
    case 'nfs':
      add('Export', `${str(s.server)}:${str(s.path)}`);
      if (s.readOnly) add('Read-only', 'yes');
      break;
    case 'csi':
      add('Driver', s.driver);
      add('Volume handle', s.volumeHandle);
      add('Filesystem', s.fsType);
      if (s.readOnly) add('Read-only', 'yes');
      break;
    case 'iscsi':
      add('Target', `${str(s.targetPortal)} ${str(s.iqn)} lun ${str(s.lun)}`);
      break;
    default:
      for (const [k, v] of Object.entries(s)) if (typeof v !== 'object') add(k, v);
  }
  return { type, fields: f };
}

export interface NodePinning {
  /** Host names the volume may be used on (kubernetes.io/hostname In [...]). */
  nodes: string[];
  /** Every other requirement, as text ("zone In [a, b]"). */
  other: string[];
}

export function nodePinningOf(pv: PersistentVolume): NodePinning | undefined {
  const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? [];
  if (!Array.isArray(terms) || terms.length === 0) return undefined;
  const nodes: string[] = [];
  const other: string[] = [];
  for (const t of terms) {
    for (const r of [...(t?.matchExpressions ?? []), ...(t?.matchFields ?? [])]) {
      const values: string[] = Array.isArray(r?.values) ? r.values : [];
      if ((r?.key === labelHostname || r?.key === 'metadata.name') && r?.operator === 'In') nodes.push(...values);
      else other.push(`${str(r?.key)} ${str(r?.operator)}${values.length ? ` [${values.join(', ')}]` : ''}`);
    }
  }
  return { nodes: [...new Set(nodes)], other };
}
