// OpenAPI v3, as upstream serves it: `/openapi/v3` lists one document per group-version
// (`{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=..."}}}`), and
// each document holds the paths of that group-version's kinds and, under
// components.schemas, each kind's schema named as upstream names it
// (`io.k8s.api.core.v1.PersistentVolume`, with x-kubernetes-group-version-kind). The
// schemas are generated from the same zod shapes the store validates with, so `kubectl
// explain pv.spec.local` describes exactly what Stowage accepts.
//
// Two choices keep kubectl's other uses of this document safe:
// - A PATCH operation lists JSON, merge and apply patches but not strategic merge patch.
//   kubectl computes a strategic merge patch from the v3 schemas of any kind whose PATCH
//   lists it, and these schemas carry no patch-merge keys; without it kubectl falls back to
//   its built-in types, which know these kinds exactly (as with the v2 document).
// - Each PATCH and POST operation names the `fieldValidation` and `dryRun` query
//   parameters, which kubectl looks for before it leaves validation to the server.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { servedAsCustomResource, strategies } from '../resources/registry';
import type { Strategy } from '../resources/types';
import { KUBE_VERSION } from './discovery';

// A JSON Schema tree as zod's toJSONSchema emits it and this file rewrites: open JSON (parse boundary).
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parse boundary: a JSON Schema tree as zod emits it, rewritten as open JSON
type Schema = Record<string, any>;

/** Short descriptions, in our own words, of the fields `kubectl explain` is asked about most. */
const DOCS: Record<string, Record<string, string>> = {
  '*': {
    apiVersion: 'The versioned schema of this representation of an object (e.g. v1, storage.k8s.io/v1).',
    kind: 'The REST resource this object represents, in CamelCase (e.g. PersistentVolume).',
    metadata: "Standard object metadata: name, namespace, labels, annotations, and the server's bookkeeping.",
    spec: 'The desired state, set by its owner.',
    status: 'The observed state, written by the controllers. Read-only to most clients.',
    'metadata.name': 'Unique name within its namespace (or the cluster, for cluster-scoped kinds). Cannot be changed.',
    'metadata.namespace': 'The namespace of a namespaced object. Cannot be changed.',
    'metadata.labels': 'Key/value pairs for selecting and organising objects.',
    'metadata.annotations': 'Key/value pairs for tools and controllers; not used for selection.',
    'metadata.finalizers': 'Conditions that must be cleared before the object is removed from storage (e.g. kubernetes.io/pvc-protection).',
  },
  PersistentVolume: {
    '': 'A piece of storage in the cluster, provisioned by an administrator or dynamically through a StorageClass. Claims bind to volumes.',
    'spec.capacity': 'The size of the volume (storage: a quantity such as 10Gi).',
    'spec.accessModes': 'How the volume can be mounted: ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod.',
    'spec.persistentVolumeReclaimPolicy': 'What happens when the claim is released: Retain (default for static volumes), Delete, or the deprecated Recycle.',
    'spec.storageClassName': 'The StorageClass this volume belongs to; only claims of the same class bind to it ("" means no class).',
    'spec.volumeMode': 'Filesystem (default) or Block.',
    'spec.claimRef': 'The claim this volume is bound to, or reserved for when set by an administrator (pre-binding).',
    'spec.nodeAffinity': 'The nodes this volume can be reached from; required for local volumes.',
    'spec.local': 'A local disk, partition or directory on one node (needs nodeAffinity).',
    'spec.hostPath': 'A directory on the host (single-node and test use).',
    'spec.nfs': 'An NFS export.',
    'spec.csi': 'A volume managed by an external CSI driver.',
    'spec.mountOptions': 'Mount options used when the volume is mounted.',
    'status.phase': 'Pending, Available, Bound, Released or Failed.',
  },
  PersistentVolumeClaim: {
    '': "A user's request for storage: size, access modes and class. The binder binds it to a matching volume, or a provisioner makes one.",
    'spec.accessModes': 'The access modes the volume must support.',
    'spec.resources': 'The minimum size the volume must have (requests.storage).',
    'spec.storageClassName': 'The class to bind or provision from; the default class when left out.',
    'spec.volumeName': 'The volume to bind to (set by the binder, or by an administrator to pre-bind).',
    'spec.selector': 'A label query over volumes to consider for binding.',
    'spec.volumeMode': 'Filesystem (default) or Block.',
    'spec.dataSource': 'An object to populate the new volume from (snapshot or claim), when the provisioner can.',
    'status.phase': 'Pending, Bound or Lost.',
    'status.capacity': 'The size of the bound volume.',
  },
  StorageClass: {
    '': 'A class of storage: which provisioner makes volumes for its claims, with which parameters, reclaim policy and binding mode.',
    provisioner: 'The provisioner that makes volumes of this class (e.g. stowage.io/host-path, kubernetes.io/no-provisioner). Cannot be changed.',
    parameters: "The provisioner's parameters. Cannot be changed.",
    reclaimPolicy: 'The reclaim policy of provisioned volumes: Delete (default) or Retain. Cannot be changed.',
    volumeBindingMode: 'Immediate (default) or WaitForFirstConsumer (bind or provision only once a pod using the claim is placed). Cannot be changed.',
    allowVolumeExpansion: 'Whether claims of this class may be resized.',
    mountOptions: 'Mount options of provisioned volumes.',
    allowedTopologies: 'Where provisioned volumes may be placed.',
  },
  Pod: {
    '': 'A pod, as far as storage is concerned: the claims it uses and where it runs. Stowage runs no containers; its node agent publishes the volumes.',
    'spec.volumes': 'The volumes of the pod; persistentVolumeClaim names a claim in the same namespace.',
    'spec.nodeName': 'The node the pod is placed on (set by placement when left out).',
    'status.phase': 'Pending, Running, Succeeded, Failed or Unknown.',
  },
  ResourceQuota: {
    '': 'Limits on what the objects of one namespace may use together; claims count against the storage resources.',
    'spec.hard': 'The limits by resource name: requests.storage, persistentvolumeclaims, count/persistentvolumeclaims, and per class <class>.storageclass.storage.k8s.io/requests.storage and .../persistentvolumeclaims.',
    'spec.scopes': 'Which objects the quota counts (e.g. VolumeAttributesClass); a scoped quota counts no claim here.',
    'status.hard': 'The limits in force (copied from spec.hard).',
    'status.used': 'What the namespace uses now of each limited resource.',
  },
  VolumeSnapshotClass: {
    '': 'A class of snapshots: the driver that takes them, its parameters, and what happens to a content when its snapshot is deleted.',
    driver: 'The driver that takes the snapshots of this class.',
    deletionPolicy: 'Delete or Retain: whether a content made through this class is deleted with its VolumeSnapshot.',
    parameters: "The driver's parameters.",
  },
  VolumeSnapshot: {
    '': "A user's request for a point-in-time snapshot of a claim, or for the use of an existing snapshot (a VolumeSnapshotContent).",
    'spec.source': 'Where the snapshot comes from: exactly one of persistentVolumeClaimName and volumeSnapshotContentName. Cannot be changed.',
    'spec.source.persistentVolumeClaimName': 'The claim (in the same namespace) to take a new snapshot of.',
    'spec.source.volumeSnapshotContentName': 'An existing VolumeSnapshotContent to bind to (a pre-provisioned snapshot).',
    'spec.volumeSnapshotClassName': "The VolumeSnapshotClass; when left out, the default class of the source's driver.",
    'status.boundVolumeSnapshotContentName': 'The VolumeSnapshotContent this snapshot is bound to (check that it points back).',
    'status.readyToUse': 'Whether the snapshot can be used to restore a volume.',
    'status.restoreSize': 'The smallest size of a volume restored from this snapshot.',
    'status.creationTime': 'When the point-in-time snapshot was taken.',
    'status.error': 'The last error taking or binding the snapshot, if any.',
  },
  VolumeSnapshotContent: {
    '': 'A snapshot on the storage system, made for a VolumeSnapshot or registered by an administrator (pre-provisioned).',
    'spec.volumeSnapshotRef': 'The VolumeSnapshot this content is bound to (name and namespace required).',
    'spec.source': 'Exactly one of volumeHandle (a snapshot to take of that volume) and snapshotHandle (an existing snapshot). Cannot be changed.',
    'spec.deletionPolicy': 'Delete or Retain: whether this content and its snapshot are deleted when its VolumeSnapshot is.',
    'spec.driver': 'The driver that took or takes the snapshot.',
    'spec.sourceVolumeMode': 'The volume mode (Filesystem or Block) of the snapshotted volume. Cannot be changed.',
    'spec.volumeSnapshotClassName': 'The VolumeSnapshotClass this content was made through.',
  },
  SnapshotSchedule: {
    '': 'Snapshots of claims taken on a schedule (one per claim and time slot), the oldest deleted beyond a count. Stowage\'s own kind.',
    'spec.every': 'How often: a duration such as 30m, 6h or 1d, at least 5m. Slots start at multiples of it since 1970-01-01 UTC.',
    'spec.keep': 'How many of its snapshots to keep per claim (1 to 100); the oldest beyond are deleted.',
    'spec.target': 'Exactly one of claimName and selector.',
    'spec.target.claimName': 'The claim (in the same namespace) to snapshot.',
    'spec.target.selector': 'A label selector: every claim of the namespace it matches is snapshotted.',
    'spec.snapshotClassName': "The VolumeSnapshotClass of the snapshots; when left out, the default class of each claim's driver.",
    'spec.suspend': 'When true, no new snapshots are taken (old ones are still pruned to keep).',
    'status.lastScheduleTime': 'The start of the last slot in which the schedule took its snapshots.',
    'status.lastSnapshotTime': 'When the schedule last created a snapshot.',
    'status.nextScheduleTime': 'When the next slot starts.',
    'status.claims': 'The claims the schedule snapshots now.',
    'status.message': 'Why a claim was skipped in the last slot, if one was.',
  },
  BackupTarget: {
    '': "A directory every node mounts (NFS in production) where Stowage keeps backups, and what the nodes' agents found there. Stowage's own kind.",
    'spec.path': 'The absolute path of the directory on every node.',
    'spec.default': 'Whether backups that name no target go here; at most one target is the default.',
    'status.nodes': 'One entry per node whose agent looked at the target: reachable, writable, free and total bytes, why not.',
    'status.backups': 'How many backups the target holds.',
    'status.storedBytes': 'Bytes of data kept in the target, after dedupe and compression.',
    'status.logicalBytes': 'Bytes the backups describe (logical / stored is the dedupe ratio).',
  },
  VolumeBackup: {
    '': "A copy of a claim's data, read from a VolumeSnapshot, kept in a BackupTarget (it outlives the node). Stowage's own kind.",
    'spec.source': 'Exactly one of volumeSnapshotName and persistentVolumeClaimName. Cannot be changed.',
    'spec.source.volumeSnapshotName': 'A ready VolumeSnapshot of this namespace to back up.',
    'spec.source.persistentVolumeClaimName': 'A Bound claim of this namespace: Stowage takes a VolumeSnapshot of it first and deletes it afterwards.',
    'spec.backupTargetName': 'The BackupTarget; when left out, the default target at create.',
    'status.phase': 'Pending, InProgress, Completed or Failed.',
    'status.sizeBytes': "The volume's size: the smallest claim a restore may ask for.",
    'status.newBytes': 'Bytes written to the target that it did not hold before.',
    'status.imported': 'Found in the target, made by another installation: read-only, and deleting it never touches the target.',
  },
};

/** Upstream's definition name of a kind, e.g. io.k8s.api.storage.v1.StorageClass. */
export function definitionName(s: Strategy, kind = s.kind): string {
  // A CRD's kinds are named by their reversed group (io.k8s.storage.snapshot.v1.VolumeSnapshot).
  if (servedAsCustomResource(s)) return `${s.group.split('.').reverse().join('.')}.${s.version}.${kind}`;
  const group = s.group ? s.group.split('.')[0] : 'core';
  return `io.k8s.api.${group}.${s.version}.${kind}`;
}

/** The document path of a group-version, as listed by /openapi/v3 (e.g. apis/storage.k8s.io/v1). */
export function groupVersionPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

function describe(schema: Schema, docs: Record<string, string>, path: string): void {
  const text = docs[path] ?? DOCS['*'][path];
  if (text && !schema.description) schema.description = text;
  const target = schema.type === 'array' ? schema.items : schema;
  if (!target?.properties) return;
  for (const [name, child] of Object.entries<Schema>(target.properties)) {
    describe(child, docs, path ? `${path}.${name}` : name);
  }
}

function kindSchema(s: Strategy): Schema {
  const schema: Schema = s.schema
    ? (z.toJSONSchema(s.schema, { target: 'openapi-3.0', unrepresentable: 'any', io: 'input' }))
    : { type: 'object' };
  delete schema.$schema;
  // The shapes are strict for writes; a reader of the schema may meet fields a newer server adds.
  delete schema.additionalProperties;
  describe(schema, DOCS[s.kind] ?? {}, '');
  schema['x-kubernetes-group-version-kind'] = [{ group: s.group, kind: s.kind, version: s.version }];
  return schema;
}

/** Each kind's schema and its list's, by upstream definition name; `$ref`s point under `refPrefix`. */
export function kindDefinitions(refPrefix: string, of: readonly Strategy[] = strategies): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const s of of) {
    out[definitionName(s)] = kindSchema(s);
    out[definitionName(s, `${s.kind}List`)] = listSchema(s, refPrefix);
  }
  return out;
}

function listSchema(s: Strategy, refPrefix = '#/components/schemas/'): Schema {
  return {
    description: `A list of ${s.kind} objects.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: DOCS['*'].apiVersion },
      kind: { type: 'string', description: DOCS['*'].kind },
      items: { type: 'array', items: { $ref: `${refPrefix}${definitionName(s)}` } },
      metadata: { type: 'object', description: 'Standard list metadata: resourceVersion and continue.' },
    },
    'x-kubernetes-group-version-kind': [{ group: s.group, kind: `${s.kind}List`, version: s.version }],
  };
}

const query = (name: string, type: string, description: string) => ({ name, in: 'query', description, schema: { type, uniqueItems: true } });
const writeParams = [
  query('dryRun', 'string', 'When present, modifications are not persisted. Valid values: All.'),
  query('fieldManager', 'string', 'A name associated with the actor or entity making these changes.'),
  query('fieldValidation', 'string', 'How to handle unknown or duplicate fields: Ignore, Warn (default) or Strict.'),
];
const PATCH_BODY_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

function operation(s: Strategy, action: string, parameters: object[], bodyTypes?: string[]): Schema {
  const ref = { $ref: `#/components/schemas/${definitionName(s)}` };
  return {
    description: `${action} ${s.kind}`,
    operationId: `${action}${s.kind}`,
    parameters,
    ...(bodyTypes ? { requestBody: { content: Object.fromEntries(bodyTypes.map((t) => [t, { schema: t === 'application/json' ? ref : { type: 'object' } }])) } } : {}),
    responses: { '200': { description: 'OK', content: { 'application/json': { schema: ref } } }, '401': { description: 'Unauthorized' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': { group: s.group, kind: s.kind, version: s.version },
  };
}

function pathsOf(s: Strategy): Record<string, Schema> {
  const root = `/${groupVersionPath(s.group, s.version)}`;
  const base = s.namespaced ? `${root}/namespaces/{namespace}/${s.plural}` : `${root}/${s.plural}`;
  const ns = s.namespaced ? [{ name: 'namespace', in: 'path', required: true, schema: { type: 'string' } }] : [];
  const name = { name: 'name', in: 'path', required: true, schema: { type: 'string' } };
  const item = {
    get: operation(s, 'get', []),
    put: operation(s, 'put', writeParams, ['application/json', 'application/yaml']),
    patch: operation(s, 'patch', [...writeParams, query('force', 'boolean', 'Force apply to take the fields others own.')], PATCH_BODY_TYPES),
    delete: operation(s, 'delete', [writeParams[0]]),
    parameters: [name, ...ns],
  };
  const paths: Record<string, Schema> = {
    [base]: { get: operation(s, 'list', []), post: operation(s, 'post', writeParams, ['application/json', 'application/yaml']), parameters: ns },
    [`${base}/{name}`]: item,
  };
  if (s.hasStatus) paths[`${base}/{name}/status`] = item;
  return paths;
}

interface Documents {
  discovery: { paths: Record<string, { serverRelativeURL: string }> };
  /** By group-version path: the document and its hash. */
  byPath: Map<string, { doc: Schema; hash: string }>;
}

let cached: Documents | undefined;

export function openApiV3(): Documents {
  if (cached) return cached;
  const groups = new Map<string, Strategy[]>();
  for (const s of strategies) {
    const key = groupVersionPath(s.group, s.version);
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const byPath = new Map<string, { doc: Schema; hash: string }>();
  const discovery: Documents['discovery'] = { paths: {} };
  for (const [key, list] of groups) {
    const schemas: Record<string, Schema> = {};
    const paths: Record<string, Schema> = {};
    Object.assign(schemas, kindDefinitions('#/components/schemas/', list));
    for (const s of list) Object.assign(paths, pathsOf(s));
    const doc = { openapi: '3.0.0', info: { title: 'Stowage', version: KUBE_VERSION.gitVersion }, paths, components: { schemas } };
    const hash = createHash('sha512').update(JSON.stringify(doc)).digest('hex').slice(0, 64).toUpperCase();
    byPath.set(key, { doc, hash });
    discovery.paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  cached = { discovery, byPath };
  return cached;
}
