// Every kind's TypeScript type by its name, for code that handles kinds by name (the REST
// API, the store's callers): `ObjectOf<'PersistentVolume'>`. Each type is inferred from the
// kind's zod schema in resources/<kind>/schema.ts, so the schema stays the one description.
// Types only: importing this file loads no schema.
import type { BackupTarget } from './backup-target/schema';
import type { ConfigMap } from './config-map/schema';
import type { CSIStorageCapacity } from './csi-storage-capacity/schema';
import type { Event } from './event/schema';
import type { Namespace } from './namespace/schema';
import type { Node } from './node/schema';
import type { PersistentVolume } from './persistent-volume/schema';
import type { PersistentVolumeClaim } from './persistent-volume-claim/schema';
import type { Pod } from './pod/schema';
import type { ResourceQuota } from './resource-quota/schema';
import type { Secret } from './secret/schema';
import type { SnapshotSchedule } from './snapshot-schedule/schema';
import type { StorageClass } from './storage-class/schema';
import type { KubeObject } from './types';
import type { VolumeSnapshotClass } from './volume-snapshot-class/schema';
import type { VolumeSnapshotContent } from './volume-snapshot-content/schema';
import type { VolumeSnapshot } from './volume-snapshot/schema';
import type { VolumeBackup } from './volume-backup/schema';

export interface KindMap {
  PersistentVolume: PersistentVolume;
  PersistentVolumeClaim: PersistentVolumeClaim;
  StorageClass: StorageClass;
  Node: Node;
  Namespace: Namespace;
  Event: Event;
  Secret: Secret;
  ConfigMap: ConfigMap;
  Pod: Pod;
  ResourceQuota: ResourceQuota;
  CSIStorageCapacity: CSIStorageCapacity;
  VolumeSnapshotClass: VolumeSnapshotClass;
  VolumeSnapshot: VolumeSnapshot;
  VolumeSnapshotContent: VolumeSnapshotContent;
  SnapshotSchedule: SnapshotSchedule;
  BackupTarget: BackupTarget;
  VolumeBackup: VolumeBackup;
}

export type KindName = keyof KindMap;

/** The stored object of a kind, by the kind's name. */
export type ObjectOf<K extends KindName> = KindMap[K];

/** The object type of a kind given by name: the typed kind for a known name, else any object. */
export type ObjectOfName<K extends string> = K extends KindName ? KindMap[K] : KubeObject;
