// THE table of who may do what, written out by hand (not computed from the code under
// test), and the objects the matrix acts on. The role-matrix tests generate every case
// from it: role x kind x verb (x namespace: own / another), status subresources included.
import type { KubeObject } from '../../server/resources/types';

/** A role the matrix runs as. A node agent role (node tokens) joins here when it exists:
 * add it to ROLES with its row in TABLE and a principal in the test's `principals`. */
export type Role = 'admin' | 'developer' | 'viewer';
export const ROLES: readonly Role[] = ['admin', 'developer', 'viewer'];

export type Kind =
  | 'PersistentVolume'
  | 'PersistentVolumeClaim'
  | 'StorageClass'
  | 'Node'
  | 'Namespace'
  | 'Event'
  | 'Secret'
  | 'ResourceQuota'
  | 'VolumeSnapshot'
  | 'VolumeSnapshotClass'
  | 'VolumeSnapshotContent'
  | 'SnapshotSchedule'
  | 'BackupTarget'
  | 'VolumeBackup';
export const KINDS: readonly Kind[] = [
  'PersistentVolume',
  'PersistentVolumeClaim',
  'StorageClass',
  'Node',
  'Namespace',
  'Event',
  'Secret',
  'ResourceQuota',
  'VolumeSnapshot',
  'VolumeSnapshotClass',
  'VolumeSnapshotContent',
  'SnapshotSchedule',
  'BackupTarget',
  'VolumeBackup',
];

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';
export const VERBS: readonly Verb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
export const STATUS_VERBS: readonly Verb[] = ['get', 'update', 'patch'];
const READS: ReadonlySet<Verb> = new Set(['get', 'list', 'watch']);

/** none: nothing; read: get, list, watch; write: everything. */
export type Access = 'none' | 'read' | 'write';

export interface Row {
  /** In the role's own namespace (developer: team-a; cluster-scoped kinds: the cluster). */
  own: Access;
  /** In another namespace (other). */
  other: Access;
  /** On the status subresource (kinds that have one). */
  status: Access;
}

const all: Row = { own: 'write', other: 'write', status: 'write' };
const read: Row = { own: 'read', other: 'read', status: 'read' };
const none: Row = { own: 'none', other: 'none', status: 'none' };

export const TABLE: Record<Role, Record<Kind, Row>> = {
  admin: {
    PersistentVolume: all,
    PersistentVolumeClaim: all,
    StorageClass: all,
    Node: all,
    Namespace: all,
    Event: all,
    Secret: all,
    ResourceQuota: all,
    VolumeSnapshot: all,
    VolumeSnapshotClass: all,
    VolumeSnapshotContent: all,
    SnapshotSchedule: all,
    BackupTarget: all,
    VolumeBackup: all,
  },
  viewer: {
    PersistentVolume: read,
    PersistentVolumeClaim: read,
    StorageClass: read,
    Node: read,
    Namespace: read,
    Event: read,
    Secret: none,
    ResourceQuota: read,
    VolumeSnapshot: read,
    VolumeSnapshotClass: read,
    VolumeSnapshotContent: read,
    SnapshotSchedule: read,
    // Targets name paths on the nodes: the admins' alone.
    BackupTarget: none,
    VolumeBackup: read,
  },
  developer: {
    PersistentVolume: none,
    // Their claims, but never the claims' status (controllers and admins write it).
    PersistentVolumeClaim: { own: 'write', other: 'none', status: 'read' },
    StorageClass: read,
    Node: none,
    // Their own namespace object (team-a), read-only.
    Namespace: { own: 'read', other: 'none', status: 'read' },
    Event: { own: 'read', other: 'none', status: 'none' },
    Secret: none,
    // The quotas of their namespace (and their status), read-only: admins set them.
    ResourceQuota: { own: 'read', other: 'none', status: 'read' },
    // Snapshots of their namespace, as claims; classes read as StorageClasses; contents the admin's.
    VolumeSnapshot: { own: 'write', other: 'none', status: 'read' },
    VolumeSnapshotClass: read,
    VolumeSnapshotContent: none,
    // Schedules of their claims, as snapshots; the status is the schedule controller's.
    SnapshotSchedule: { own: 'write', other: 'none', status: 'read' },
    // Backups of their claims, as snapshots; targets the admins' (their names come through the backup form).
    BackupTarget: none,
    VolumeBackup: { own: 'write', other: 'none', status: 'read' },
  },
};

export function allowed(access: Access, verb: Verb): boolean {
  return access === 'write' || (access === 'read' && READS.has(verb));
}

export const OWN_NS = 'team-a';
/** The BackupTarget the matrix's VolumeBackups name. */
export const MATRIX_TARGET = 'matrix-target';
export const OTHER_NS = 'other';

export interface KindInfo {
  plural: string;
  group: string;
  namespaced: boolean;
  hasStatus: boolean;
}

export const INFO: Record<Kind, KindInfo> = {
  PersistentVolume: { plural: 'persistentvolumes', group: '', namespaced: false, hasStatus: true },
  PersistentVolumeClaim: { plural: 'persistentvolumeclaims', group: '', namespaced: true, hasStatus: true },
  StorageClass: { plural: 'storageclasses', group: 'storage.k8s.io', namespaced: false, hasStatus: false },
  Node: { plural: 'nodes', group: '', namespaced: false, hasStatus: true },
  Namespace: { plural: 'namespaces', group: '', namespaced: false, hasStatus: true },
  Event: { plural: 'events', group: '', namespaced: true, hasStatus: false },
  Secret: { plural: 'secrets', group: '', namespaced: true, hasStatus: false },
  ResourceQuota: { plural: 'resourcequotas', group: '', namespaced: true, hasStatus: true },
  VolumeSnapshot: { plural: 'volumesnapshots', group: 'snapshot.storage.k8s.io', namespaced: true, hasStatus: true },
  VolumeSnapshotClass: { plural: 'volumesnapshotclasses', group: 'snapshot.storage.k8s.io', namespaced: false, hasStatus: false },
  VolumeSnapshotContent: { plural: 'volumesnapshotcontents', group: 'snapshot.storage.k8s.io', namespaced: false, hasStatus: true },
  SnapshotSchedule: { plural: 'snapshotschedules', group: 'snapshot.stowage.io', namespaced: true, hasStatus: true },
  BackupTarget: { plural: 'backuptargets', group: 'stowage.io', namespaced: false, hasStatus: true },
  VolumeBackup: { plural: 'volumebackups', group: 'stowage.io', namespaced: true, hasStatus: true },
};

/** The collection path of a kind (in a namespace for namespaced kinds). */
export function collectionPath(kind: Kind, ns?: string): string {
  const i = INFO[kind];
  const base = i.group ? `/apis/${i.group}/v1` : '/api/v1';
  return i.namespaced && ns ? `${base}/namespaces/${ns}/${i.plural}` : `${base}/${i.plural}`;
}

/** A valid new object of `kind` named `name` (in `ns` when namespaced). */
export function fixture(kind: Kind, name: string, ns: string): KubeObject {
  const meta = INFO[kind].namespaced ? { name, namespace: ns } : { name };
  switch (kind) {
    case 'PersistentVolume':
      return {
        apiVersion: 'v1',
        kind,
        metadata: meta,
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/matrix/${name}` } },
      };
    case 'PersistentVolumeClaim':
      return { apiVersion: 'v1', kind, metadata: meta, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    case 'StorageClass':
      return { apiVersion: 'storage.k8s.io/v1', kind, metadata: meta, provisioner: 'example.com/matrix' };
    case 'Node':
      return { apiVersion: 'v1', kind, metadata: meta };
    case 'Namespace':
      return { apiVersion: 'v1', kind, metadata: meta };
    case 'Event':
      return {
        apiVersion: 'v1',
        kind,
        metadata: meta,
        involvedObject: { kind: 'PersistentVolumeClaim', namespace: ns, name: 'subject' },
        reason: 'Matrix',
        message: 'a test event',
        type: 'Normal',
      };
    case 'Secret':
      return { apiVersion: 'v1', kind, metadata: meta, type: 'Opaque', stringData: { password: 'matrix' } };
    case 'ResourceQuota':
      // Limits nothing a claim uses, so the matrix's claims are never refused by it.
      return { apiVersion: 'v1', kind, metadata: meta, spec: { hard: { pods: '10' } } };
    case 'VolumeSnapshot':
      return { apiVersion: 'snapshot.storage.k8s.io/v1', kind, metadata: meta, spec: { source: { persistentVolumeClaimName: 'subject' } } };
    case 'VolumeSnapshotClass':
      return { apiVersion: 'snapshot.storage.k8s.io/v1', kind, metadata: meta, driver: 'example.com/matrix', deletionPolicy: 'Delete' };
    case 'VolumeSnapshotContent':
      return {
        apiVersion: 'snapshot.storage.k8s.io/v1',
        kind,
        metadata: meta,
        spec: { deletionPolicy: 'Retain', driver: 'example.com/matrix', source: { snapshotHandle: `handle-${name}` }, volumeSnapshotRef: { name: 'subject', namespace: OWN_NS } },
      };
    case 'SnapshotSchedule':
      return { apiVersion: 'snapshot.stowage.io/v1', kind, metadata: meta, spec: { every: '6h', keep: 3, target: { claimName: 'subject' } } };
    case 'BackupTarget':
      return { apiVersion: 'stowage.io/v1', kind, metadata: meta, spec: { path: `/mnt/matrix/${name}` } };
    case 'VolumeBackup':
      // The target exists (role-matrix.test.ts makes it): a backup naming a missing one is refused.
      return { apiVersion: 'stowage.io/v1', kind, metadata: meta, spec: { source: { persistentVolumeClaimName: 'subject' }, backupTargetName: MATRIX_TARGET } };
  }
}

export interface Case {
  role: Role;
  kind: Kind;
  verb: Verb;
  /** 'own' or 'other' for namespaced kinds (and Namespace, whose scope is its own name). */
  scope: 'own' | 'other';
  status: boolean;
  want: boolean;
}

/** Every case of the matrix, generated from TABLE. */
export function cases(opts: { verbs?: readonly Verb[]; status?: boolean } = {}): Case[] {
  const out: Case[] = [];
  for (const role of ROLES) {
    for (const kind of KINDS) {
      const scopes: ('own' | 'other')[] = INFO[kind].namespaced || kind === 'Namespace' ? ['own', 'other'] : ['own'];
      for (const scope of scopes) {
        const row = TABLE[role][kind];
        for (const verb of opts.verbs ?? VERBS) out.push({ role, kind, verb, scope, status: false, want: allowed(row[scope], verb) });
        if (opts.status !== false && INFO[kind].hasStatus) {
          for (const verb of STATUS_VERBS) {
            // Status of an object in a namespace the role may not read at all stays refused.
            const access = row[scope] === 'none' ? 'none' : row.status;
            out.push({ role, kind, verb, scope, status: true, want: allowed(access, verb) });
          }
        }
      }
    }
  }
  return out;
}
