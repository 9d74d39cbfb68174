// A claim's data source as upstream's external-provisioner checks it before provisioning
// (controller.go prepareProvision, getSnapshotSource, getPVCSource): a restore from a
// VolumeSnapshot or a clone of a claim, with upstream's rules and messages. Pure: the
// provisioner reads the objects, this decides the plugin's source or the error.
import { dataSourceKind, dataSourceOf, snapshotApiGroup } from '../../domain/data-source';
import { claimClass } from '../../domain/matching';
import { quantityFromJSON, quantityToBytes } from '../../domain/quantity';
import { annAllowVolumeModeChange, annDynamicallyProvisioned } from '../../domain/well-known/annotations';
import type { VolumeContentSource } from '../../provisioners/plugin';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../../resources/storage-class/schema';
import type { VolumeSnapshotContent } from '../../resources/volume-snapshot-content/schema';
import type { VolumeSnapshot } from '../../resources/volume-snapshot/schema';

export interface DataSourceFacts {
  claim: PersistentVolumeClaim;
  storageClass: StorageClass;
  /** The VolumeSnapshot the claim names (restore), and the content it is bound to. */
  snapshot?: VolumeSnapshot;
  content?: VolumeSnapshotContent;
  /** The claim the claim names (clone), and its volume. */
  sourceClaim?: PersistentVolumeClaim;
  sourceVolume?: PersistentVolume;
}

export type DataSourceChoice = { ok: true; source?: VolumeContentSource } | { ok: false; message: string };

const bytesOf = (q: unknown): bigint | undefined => {
  const parsed = quantityFromJSON(q);
  return parsed ? quantityToBytes(parsed) : undefined;
};

/** The driver of a volume: its CSI driver, else the in-tree provisioner that made it. */
export const volumeDriver = (pv: PersistentVolume | undefined) => pv?.spec?.csi?.driver ?? pv?.metadata.annotations?.[annDynamicallyProvisioned];

/** upstream getSnapshotSource: the snapshot's content, checked. */
function snapshotSource(f: DataSourceFacts, name: string): string | VolumeContentSource {
  const vs = f.snapshot;
  const notBound = `snapshot ${name} not bound`;
  if (!vs) return `error getting snapshot ${name} from api server: volumesnapshots.snapshot.storage.k8s.io "${name}" not found`;
  if (vs.metadata.deletionTimestamp) return `snapshot ${name} is currently being deleted`;
  const contentName = vs.status?.boundVolumeSnapshotContentName;
  if (!contentName) return notBound;
  const c = f.content;
  if (!c || c.metadata.name !== contentName) return `error getting snapshotcontent ${contentName} for snapshot ${name}`;
  const ref = c.spec?.volumeSnapshotRef;
  if (ref?.uid !== vs.metadata.uid || ref?.namespace !== vs.metadata.namespace || ref?.name !== vs.metadata.name) return `snapshotcontent ${contentName} for snapshot ${name} is bound to a different snapshot`;
  if (c.spec?.driver !== f.storageClass.provisioner) return `snapshotcontent ${contentName} for snapshot ${name} is not handled by CSI driver of StorageClass ${f.storageClass.metadata.name ?? ''}`;
  if (vs.status?.readyToUse !== true) return `snapshot ${name} is not Ready`;
  const handle = c.status?.snapshotHandle;
  if (!handle) return `snapshot handle ${name} is not available`;
  const restore = bytesOf(vs.status?.restoreSize);
  const requested = bytesOf(f.claim.spec?.resources?.requests?.storage) ?? 0n;
  if (restore !== undefined && requested < restore) {
    return `requested volume size ${requested} is less than the size ${restore} for the source snapshot ${vs.metadata.name ?? name}`;
  }
  const sourceMode = c.spec?.sourceVolumeMode;
  const mode = f.claim.spec?.volumeMode;
  if (sourceMode && mode && sourceMode !== mode && c.metadata.annotations?.[annAllowVolumeModeChange] === undefined) {
    const claim = `${f.claim.metadata.namespace ?? ''}/${f.claim.metadata.name ?? ''}`;
    return `requested volume ${claim} modifies the mode of the source volume but does not have permission to do so. ${annAllowVolumeModeChange} annotation is not present on snapshotcontent ${contentName}`;
  }
  return { kind: 'snapshot', contentName, handle };
}

/** upstream getPVCSource: the claim to clone and its volume, checked. */
function cloneSource(f: DataSourceFacts, name: string): string | VolumeContentSource {
  const src = f.sourceClaim;
  const claim = f.claim;
  const invalid = 'claim in dataSource not bound or invalid';
  if (!src) return `error getting PVC ${name} (namespace "${claim.metadata.namespace ?? ''}") from api server: persistentvolumeclaim "${name}" not found`;
  if (src.status?.phase !== 'Bound') return `the PVC DataSource ${name} must have a status of Bound.  Got ${JSON.stringify(src.status ?? {})}`;
  if (src.metadata.deletionTimestamp) return `the PVC DataSource ${name} is currently being deleted`;
  const srcClass = claimClass(src);
  const dstClass = claimClass(claim);
  if (!srcClass) return `the source PVC (${src.metadata.name ?? name}) storageclass cannot be empty`;
  if (!dstClass) return `the requested PVC (${claim.metadata.name ?? ''}) storageclass cannot be empty`;
  if (srcClass !== dstClass) {
    return `the source PVC and destination PVCs must be in the same storage class for cloning.  Source is in ${srcClass}, but new PVC is in ${dstClass}`;
  }
  const requested = bytesOf(claim.spec?.resources?.requests?.storage) ?? 0n;
  const srcSize = bytesOf(src.spec?.resources?.requests?.storage) ?? 0n;
  if (requested < srcSize) {
    return `error, new PVC request must be greater than or equal in size to the specified PVC data source, requested ${requested} but source is ${srcSize}`;
  }
  const pvName = src.spec?.volumeName;
  if (!pvName) return `volume name is empty in source PVC ${src.metadata.name ?? name}`;
  const pv = f.sourceVolume;
  if (!pv || pv.metadata.name !== pvName || volumeDriver(pv) !== f.storageClass.provisioner) return invalid;
  const ref = pv.spec?.claimRef;
  if (!ref || ref.uid !== src.metadata.uid || ref.namespace !== src.metadata.namespace || ref.name !== src.metadata.name) return invalid;
  if (pv.status?.phase !== 'Bound') return invalid;
  const srcBlock = pv.spec?.volumeMode === 'Block';
  const dstBlock = claim.spec?.volumeMode === 'Block';
  if (srcBlock && !dstBlock) return 'the source PVC and destination PVCs must have the same volume mode for cloning.  Source is Block, but new PVC requested Filesystem';
  if (!srcBlock && dstBlock) return 'the source PVC and destination PVCs must have the same volume mode for cloning.  Source is Filesystem, but new PVC requested Block';
  return { kind: 'volume', pvName };
}

/** The plugin's source for the claim, or upstream's error (ProvisioningFailed, retried). No data source: no source. */
export function decideDataSource(f: DataSourceFacts): DataSourceChoice {
  const ref = dataSourceOf(f.claim);
  const kind = dataSourceKind(f.claim);
  if (!ref || kind === undefined) return { ok: true };
  const name = ref.name ?? '';
  if (!name) return { ok: false, message: `the PVC source not found for PVC ${f.claim.metadata.name ?? ''}` };
  if (ref.kind === 'VolumeSnapshot' && kind !== 'snapshot') {
    return { ok: false, message: `the PVC source does not belong to the right APIGroup. Expected ${snapshotApiGroup}, Got ${ref.apiGroup ?? ''}` };
  }
  if (kind === 'other') return { ok: false, message: `data source (${ref.kind ?? ''}) is not handled by the provisioner, assuming an external populator will provision it` };
  const got = kind === 'snapshot' ? snapshotSource(f, name) : cloneSource(f, name);
  if (typeof got === 'string') return { ok: false, message: `error getting handle for DataSource Type ${ref.kind ?? ''} by Name ${name}: ${got}` };
  return { ok: true, source: got };
}
