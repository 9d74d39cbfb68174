// Every kind Stowage serves, and lookup by kind or by REST resource name.
import { backupTargetStrategy } from './backup-target/strategy';
import { configMapStrategy } from './config-map/strategy';
import { csiStorageCapacityStrategy } from './csi-storage-capacity/strategy';
import { eventStrategy } from './event/strategy';
import { namespaceStrategy } from './namespace/strategy';
import { nodeStrategy } from './node/strategy';
import { persistentVolumeClaimStrategy } from './persistent-volume-claim/strategy';
import { podStrategy } from './pod/strategy';
import { persistentVolumeStrategy } from './persistent-volume/strategy';
import { resourceQuotaStrategy } from './resource-quota/strategy';
import { secretStrategy } from './secret/strategy';
import { snapshotScheduleStrategy } from './snapshot-schedule/strategy';
import { storageClassStrategy } from './storage-class/strategy';
import type { Strategy } from './types';
import { volumeSnapshotClassStrategy } from './volume-snapshot-class/strategy';
import { volumeSnapshotContentStrategy } from './volume-snapshot-content/strategy';
import { volumeSnapshotStrategy } from './volume-snapshot/strategy';
import { volumeBackupStrategy } from './volume-backup/strategy';

export const strategies: Strategy[] = [
  namespaceStrategy,
  nodeStrategy,
  persistentVolumeStrategy,
  persistentVolumeClaimStrategy,
  storageClassStrategy,
  podStrategy,
  eventStrategy,
  configMapStrategy,
  secretStrategy,
  resourceQuotaStrategy,
  csiStorageCapacityStrategy,
  volumeSnapshotClassStrategy,
  volumeSnapshotStrategy,
  volumeSnapshotContentStrategy,
  snapshotScheduleStrategy,
  backupTargetStrategy,
  volumeBackupStrategy,
];

/**
 * API groups whose kinds are CustomResourceDefinitions elsewhere (the snapshot kinds of
 * upstream's external-snapshotter, and Stowage's own snapshot.stowage.io and stowage.io, which a real cluster
 * would install as a CRD): JSON only, no strategic merge patch, OpenAPI names by reversed group.
 */
export const CUSTOM_RESOURCE_GROUPS: ReadonlySet<string> = new Set(['snapshot.storage.k8s.io', 'snapshot.stowage.io', 'stowage.io']);

export function servedAsCustomResource(s: Strategy): boolean {
  return CUSTOM_RESOURCE_GROUPS.has(s.group);
}

export function strategyForKind(kind: string): Strategy | undefined {
  return strategies.find((s) => s.kind === kind);
}

/** By plural, singular or short name within an API group ("" for core), case-insensitive. */
export function strategyForResource(group: string, resource: string): Strategy | undefined {
  const r = resource.toLowerCase();
  return strategies.find(
    (s) => s.group === group && (s.plural === r || s.singular === r || s.shortNames.includes(r)),
  );
}
