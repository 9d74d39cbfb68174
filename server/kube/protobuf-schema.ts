// ONE table per kind of the protobuf field numbers of its JSON fields, read from upstream's
// generated.proto files (k8s.io/api core/v1, storage/v1, authorization/v1,
// authentication/v1; k8s.io/apimachinery meta/v1, api/resource). The encoder and the
// decoder (protobuf-codec.ts) both walk these tables, so a field is described once.
// The tables are written per API group (protobuf-meta.ts, protobuf-core.ts, protobuf-pod.ts,
// protobuf-storage.ts, protobuf-auth.ts) with the builders of protobuf-fields.ts, which says
// what `keep` means.
import { selfSubjectAccessReview, selfSubjectReview } from './protobuf-auth';
import { configMap, event, namespace, node, persistentVolume, persistentVolumeClaim, resourceQuota, secret } from './protobuf-core';
import type { Schema } from './protobuf-fields';
import { deleteOptions, list, status } from './protobuf-meta';
import { pod } from './protobuf-pod';
import { csiStorageCapacity, storageClass } from './protobuf-storage';

/**
 * Kinds served as JSON (and YAML) only, by `apiVersion/kind`, with the reason. Upstream
 * serves them from CustomResourceDefinitions, which have no protobuf encoding: clients
 * (kubectl's dynamic client) always send and accept JSON for them, and a protobuf-only
 * request is answered 406 as for any object protobuf cannot carry.
 */
export const JSON_ONLY_KINDS: ReadonlyMap<string, string> = new Map([
  ...['VolumeSnapshotClass', 'VolumeSnapshot', 'VolumeSnapshotContent'].map((k): [string, string] => [
    `snapshot.storage.k8s.io/v1/${k}`,
    'a CRD upstream (external-snapshotter): no protobuf form',
  ]),
  ['snapshot.stowage.io/v1/SnapshotSchedule', "Stowage's own kind, a CRD in a real cluster: no protobuf form"],
  ['stowage.io/v1/BackupTarget', "Stowage's own kind, a CRD in a real cluster: no protobuf form"],
  ['stowage.io/v1/VolumeBackup', "Stowage's own kind, a CRD in a real cluster: no protobuf form"],
]);

/** Every kind (and list) Stowage reads and writes as protobuf, by `apiVersion/kind`. */
export const PROTOBUF_KINDS: ReadonlyMap<string, Schema> = new Map(
  Object.entries({
    'v1/PersistentVolume': persistentVolume,
    'v1/PersistentVolumeClaim': persistentVolumeClaim,
    'v1/Namespace': namespace,
    'v1/Node': node,
    'v1/Event': event,
    'v1/ConfigMap': configMap,
    'v1/Secret': secret,
    'v1/Pod': pod,
    'v1/ResourceQuota': resourceQuota,
    'storage.k8s.io/v1/StorageClass': storageClass,
    'storage.k8s.io/v1/CSIStorageCapacity': csiStorageCapacity,
    'v1/Status': status,
    'v1/DeleteOptions': deleteOptions,
    'storage.k8s.io/v1/DeleteOptions': deleteOptions,
    'meta.k8s.io/v1/DeleteOptions': deleteOptions,
    'authorization.k8s.io/v1/SelfSubjectAccessReview': selfSubjectAccessReview,
    'authentication.k8s.io/v1/SelfSubjectReview': selfSubjectReview,
  }).flatMap(([key, schema]) => {
    const entries: [string, Schema][] = [[key, schema]];
    if (key.endsWith('/Status') || key.endsWith('/DeleteOptions') || key.includes('Review')) return entries;
    return [...entries, [`${key}List`, list(schema)]];
  }),
);

