'use client';
// What a detail page shows beyond the summary, by kind: a claim's binding ("why is it
// Pending?", its fixes), provisioning and capacity at the top; a volume's storage and why it is Released or
// Failed; a StorageClass's parameters.
import type { KubeObject } from '@/server/resources/types';
import { ClaimBackups } from '../backups/claim-backups';
import { ClaimBinding } from '../claims/claim-binding';
import { VolumeDiskPanel } from '../disks/volume-disk-panel';
import { NodeStorage } from '../nodes/node-storage';
import { ClaimProvisioning } from '../claims/claim-provisioning';
import { ClassFormLink } from '../classes/class-form-link';
import { DefaultClassSwitch } from '../classes/default-class-switch';
import { StorageClassParameters } from '../classes/storage-class-parameters';
import { ClaimCapacity } from '../claims/claim-capacity';
import { ClaimDoctor } from '../claims/claim-doctor';
import { ClaimExpansion } from '../claims/claim-expansion';
import { ClaimPods, VolumePods } from '../pods/claim-pods';
import { PodScheduling, PodVolumes } from '../pods/pod-volumes';
import { VolumeAssetPanel, VolumeStatusLine } from '../volumes/volume-asset-panel';
import { ClaimReplicas, VolumeReplicas } from '../volumes/replicas-card';
import { annDynamicallyProvisioned } from '@/server/domain/well-known/annotations';
import { isLocalVolumeProvisioner } from '@/server/domain/well-known/provisioners';
import { isKind } from '@/server/resources/of-kind';
import { QuotaEditLink } from '../quotas/quota-edit-link';
import { SnapshotClassDefaultSwitch, SnapshotRestorePanel } from '../snapshots/snapshot-panels';

/** Above the summary: what the user came to the page to learn. */
export function TopPanels({ obj }: { obj: KubeObject }) {
  switch (obj.kind) {
    case 'PersistentVolumeClaim':
      if (!isKind(obj, 'PersistentVolumeClaim')) return null;
      return (
        <>
          <ClaimBinding claim={obj} />
          <ClaimDoctor claim={obj} />
          <ClaimProvisioning claim={obj} />
          <ClaimCapacity claim={obj} />
          <ClaimReplicas claim={obj} />
          <ClaimExpansion claim={obj} />
        </>
      );
    case 'PersistentVolume':
      if (!isKind(obj, 'PersistentVolume')) return null;
      return (
        <>
          <VolumeStatusLine pv={obj} />
          <VolumeReplicas pv={obj} />
        </>
      );
    case 'StorageClass':
      return (
        <>
          <ClassFormLink sc={obj} />
          <DefaultClassSwitch sc={obj} />
        </>
      );
    case 'Pod':
      if (!isKind(obj, 'Pod')) return null;
      return <PodScheduling pod={obj} />;
    case 'Node':
      if (!isKind(obj, 'Node')) return null;
      return <NodeStorage node={obj} />;
    case 'ResourceQuota':
      return <QuotaEditLink quota={obj} />;
    case 'VolumeSnapshot':
      if (!isKind(obj, 'VolumeSnapshot')) return null;
      return <SnapshotRestorePanel vs={obj} />;
    case 'VolumeSnapshotClass':
      if (!isKind(obj, 'VolumeSnapshotClass')) return null;
      return <SnapshotClassDefaultSwitch vsc={obj} />;
    default:
      return null;
  }
}

/** Below the summary. */
export function DetailPanels({ obj }: { obj: KubeObject }) {
  switch (obj.kind) {
    case 'PersistentVolume':
      if (!isKind(obj, 'PersistentVolume')) return null;
      return (
        <>
          <VolumePods pv={obj} />
          <VolumeAssetPanel pv={obj} />
          {isLocalVolumeProvisioner(obj.metadata.annotations?.[annDynamicallyProvisioned]) && <VolumeDiskPanel pv={obj} />}
        </>
      );
    case 'StorageClass':
      if (!isKind(obj, 'StorageClass')) return null;
      return <StorageClassParameters sc={obj} />;
    case 'PersistentVolumeClaim':
      if (!isKind(obj, 'PersistentVolumeClaim')) return null;
      return (
        <>
          <ClaimPods claim={obj} />
          <ClaimBackups claim={obj} />
        </>
      );
    case 'Pod':
      if (!isKind(obj, 'Pod')) return null;
      return <PodVolumes pod={obj} />;
    default:
      return null;
  }
}
