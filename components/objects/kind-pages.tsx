'use client';
// What each kind's detail page shows of it, one entry per kind: its summary (the Summary
// card's fields), and the panels above it (what the user came to the page to learn: a
// claim's binding, "why is it Pending?" and its fixes, provisioning and capacity; a
// volume's status line) and below it (a volume's storage, a class's parameters, a claim's
// pods and backups). Beside KINDS (kinds.ts: the kind's words, route and statuses), which
// the summaries' links read, so KINDS cannot hold these without an import cycle;
// kind-pages.test.ts checks that the two list the same kinds.
import type { ReactNode } from 'react';
import { annDynamicallyProvisioned } from '@/server/domain/well-known/annotations';
import { isLocalVolumeProvisioner } from '@/server/domain/well-known/provisioners';
import type { KindName, ObjectOf } from '@/server/resources/kinds';
import type { KubeObject } from '@/server/resources/types';
import { ClaimBackups } from '../backups/claim-backups';
import { ClaimBinding } from '../claims/claim-binding';
import { ClaimCapacity } from '../claims/claim-capacity';
import { ClaimDoctor } from '../claims/claim-doctor';
import { ClaimExpansion } from '../claims/claim-expansion';
import { ClaimProvisioning } from '../claims/claim-provisioning';
import { claimSummary } from '../claims/claim-summary';
import { ClassFormLink } from '../classes/class-form-link';
import { classSummary } from '../classes/class-summary';
import { DefaultClassSwitch } from '../classes/default-class-switch';
import { StorageClassParameters } from '../classes/storage-class-parameters';
import { VolumeDiskPanel } from '../disks/volume-disk-panel';
import { eventSummary } from '../events/event-summary';
import { namespaceSummary } from '../namespaces/namespace-summary';
import { NodeStorage } from '../nodes/node-storage';
import { nodeSummary } from '../nodes/node-summary';
import { ClaimPods, VolumePods } from '../pods/claim-pods';
import { PodScheduling, PodVolumes } from '../pods/pod-volumes';
import { podSummary } from '../pods/pod-summary';
import { QuotaEditLink } from '../quotas/quota-edit-link';
import { quotaSummary } from '../quotas/quota-summary';
import { SnapshotClassDefaultSwitch, SnapshotRestorePanel } from '../snapshots/snapshot-panels';
import { scheduleSummary, snapshotSummary } from '../snapshots/snapshot-summary';
import { ClaimReplicas, VolumeReplicas } from '../volumes/replicas-card';
import { VolumeAssetPanel, VolumeStatusLine } from '../volumes/volume-asset-panel';
import { volumeSummary } from '../volumes/volume-summary';
import type { SummaryContext, SummaryItem } from './summary-parts';

export interface KindPage<K extends KindName> {
  /** The Summary card's fields, in order; none for a kind whose YAML says it all. */
  summary?: (obj: ObjectOf<K>, ctx: SummaryContext) => SummaryItem[];
  /** Above the summary: what the user came to the page to learn. */
  top?: (obj: ObjectOf<K>) => ReactNode;
  /** Below the summary, above the related objects. */
  below?: (obj: ObjectOf<K>) => ReactNode;
}

export const KIND_PAGES: { [K in KindName]?: KindPage<K> } = {
  PersistentVolume: {
    summary: volumeSummary,
    top: (pv) => (
      <>
        <VolumeStatusLine pv={pv} />
        <VolumeReplicas pv={pv} />
      </>
    ),
    below: (pv) => (
      <>
        <VolumePods pv={pv} />
        <VolumeAssetPanel pv={pv} />
        {isLocalVolumeProvisioner(pv.metadata.annotations?.[annDynamicallyProvisioned]) && <VolumeDiskPanel pv={pv} />}
      </>
    ),
  },
  PersistentVolumeClaim: {
    summary: claimSummary,
    top: (claim) => (
      <>
        <ClaimBinding claim={claim} />
        <ClaimDoctor claim={claim} />
        <ClaimProvisioning claim={claim} />
        <ClaimCapacity claim={claim} />
        <ClaimReplicas claim={claim} />
        <ClaimExpansion claim={claim} />
      </>
    ),
    below: (claim) => (
      <>
        <ClaimPods claim={claim} />
        <ClaimBackups claim={claim} />
      </>
    ),
  },
  Pod: {
    summary: podSummary,
    top: (pod) => <PodScheduling pod={pod} />,
    below: (pod) => <PodVolumes pod={pod} />,
  },
  StorageClass: {
    summary: classSummary,
    top: (sc) => (
      <>
        <ClassFormLink sc={sc} />
        <DefaultClassSwitch sc={sc} />
      </>
    ),
    below: (sc) => <StorageClassParameters sc={sc} />,
  },
  Node: { summary: nodeSummary, top: (node) => <NodeStorage node={node} /> },
  Namespace: { summary: namespaceSummary },
  Event: { summary: eventSummary },
  ResourceQuota: { summary: quotaSummary, top: (quota) => <QuotaEditLink quota={quota} /> },
  CSIStorageCapacity: {},
  VolumeSnapshot: { summary: snapshotSummary, top: (vs) => <SnapshotRestorePanel vs={vs} /> },
  SnapshotSchedule: { summary: scheduleSummary },
  VolumeBackup: {},
  BackupTarget: {},
  VolumeSnapshotClass: { top: (vsc) => <SnapshotClassDefaultSwitch vsc={vsc} /> },
  VolumeSnapshotContent: {},
};

/** An object typed by its kind, for each kind (a union a check of `kind` narrows). */
type Typed = { [K in KindName]: ObjectOf<K> & { kind: K } }[KindName];

/** Whether the object's kind has an entry; the store fills every object's kind, so its kind names its type (as `isKind`). */
function hasPage(obj: KubeObject): obj is KubeObject & Typed {
  return Object.hasOwn(KIND_PAGES, obj.kind);
}

function pageOf<K extends KindName>(obj: ObjectOf<K> & { kind: K }): KindPage<K> | undefined {
  return KIND_PAGES[obj.kind];
}

export function summaryOf(obj: KubeObject, ctx: SummaryContext): SummaryItem[] {
  if (!hasPage(obj)) return [];
  return pageOf(obj)?.summary?.(obj, ctx) ?? [];
}

/** Above the summary: what the user came to the page to learn. */
export function TopPanels({ obj }: { obj: KubeObject }) {
  if (!hasPage(obj)) return null;
  return pageOf(obj)?.top?.(obj) ?? null;
}

/** Below the summary. */
export function DetailPanels({ obj }: { obj: KubeObject }) {
  if (!hasPage(obj)) return null;
  return pageOf(obj)?.below?.(obj) ?? null;
}
