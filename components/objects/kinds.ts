// What the dashboard shows for each kind: its pages, words, status values and create form.
// Pure; the columns and cells come from each kind's strategy (server/resources), and what
// its detail page shows (summary, panels) from its entry in kind-pages.tsx.
import { annBetaIsDefaultClass, annIsDefaultClass } from '@/server/domain/well-known/annotations';
import type { KubeObject } from '@/server/resources/types';
import { isKind } from '@/server/resources/of-kind';

export interface KindUi {
  kind: string;
  /** Navigation label and page title, e.g. "Volumes". */
  title: string;
  /** Lower-case plural for sentences, e.g. "volumes". */
  noun: string;
  /** Lower-case singular, e.g. "volume". */
  singular: string;
  route: string;
  namespaced: boolean;
  /** Values the status filter offers (matched against the status cell). */
  statuses: string[];
  /** The column holding the status-like value the filter and badges use. */
  statusColumn: string;
  /** Extra words for the "nothing yet" state. */
  emptyHint?: string;
  /** The kind's own create form, given the namespace the list shows; without one, Create opens the YAML editor. */
  createForm?: (namespace: string | null) => string;
}

const withNamespace = (path: string) => (namespace: string | null) => `${path}${namespace ? `?namespace=${encodeURIComponent(namespace)}` : ''}`;

export const KINDS: KindUi[] = [
  {
    kind: 'PersistentVolume',
    title: 'Volumes',
    noun: 'volumes',
    singular: 'volume',
    route: '/volumes',
    namespaced: false,
    statuses: ['Pending', 'Available', 'Bound', 'Released', 'Failed', 'Terminating'],
    statusColumn: 'STATUS',
    createForm: () => '/new/volume',
  },
  {
    kind: 'PersistentVolumeClaim',
    title: 'Claims',
    noun: 'claims',
    singular: 'claim',
    route: '/claims',
    namespaced: true,
    statuses: ['Pending', 'Bound', 'Lost', 'Terminating'],
    statusColumn: 'STATUS',
    createForm: withNamespace('/claims/new'),
  },
  {
    kind: 'Pod',
    title: 'Pods',
    noun: 'pods',
    singular: 'pod',
    route: '/pods',
    namespaced: true,
    statuses: ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown', 'Terminating'],
    statusColumn: 'STATUS',
    emptyHint: 'Pods are the consumers of claims: Stowage places them on a node their volumes can reach (it runs no containers).',
  },
  {
    kind: 'StorageClass',
    title: 'Storage classes',
    noun: 'storage classes',
    singular: 'storage class',
    route: '/storage-classes',
    namespaced: false,
    statuses: [],
    statusColumn: '',
    createForm: () => '/new/storage-class',
  },
  {
    kind: 'Node',
    title: 'Nodes',
    noun: 'nodes',
    singular: 'node',
    route: '/nodes',
    namespaced: false,
    statuses: ['Ready', 'NotReady', 'Unknown'],
    statusColumn: 'STATUS',
    emptyHint: 'Nodes appear when their agent starts: npm start registers this machine; another machine joins with stowage node add NAME and stowage agent.',
  },
  {
    kind: 'Namespace',
    title: 'Namespaces',
    noun: 'namespaces',
    singular: 'namespace',
    route: '/namespaces',
    namespaced: false,
    statuses: ['Active', 'Terminating'],
    statusColumn: 'STATUS',
  },
  {
    kind: 'Event',
    title: 'Events',
    noun: 'events',
    singular: 'event',
    route: '/events',
    namespaced: true,
    statuses: ['Normal', 'Warning'],
    statusColumn: 'TYPE',
    emptyHint: 'Controllers record events as they bind, provision and clean up storage.',
  },
  {
    kind: 'ResourceQuota',
    title: 'Quotas',
    noun: 'quotas',
    singular: 'quota',
    route: '/quotas',
    namespaced: true,
    statuses: [],
    statusColumn: '',
    emptyHint: 'Administrators limit the storage a namespace may claim with a ResourceQuota (kubectl create quota, or Create from YAML).',
    createForm: withNamespace('/new/quota'),
  },
  {
    kind: 'CSIStorageCapacity',
    title: 'Pools',
    noun: 'pools',
    singular: 'pool',
    route: '/pools',
    namespaced: true,
    statuses: [],
    statusColumn: '',
    emptyHint: 'Each node agent publishes the room of its btrfs pools here, one per node and StorageClass (stowage pool create --btrfs makes a pool).',
  },
  {
    kind: 'VolumeSnapshot',
    title: 'Snapshots',
    noun: 'snapshots',
    singular: 'snapshot',
    route: '/snapshots',
    namespaced: true,
    statuses: [],
    statusColumn: '',
    emptyHint: "Take a snapshot from a claim's Snapshots tab, or on a schedule; restore one to a new claim from there.",
  },
  {
    kind: 'SnapshotSchedule',
    title: 'Snapshot schedules',
    noun: 'snapshot schedules',
    singular: 'snapshot schedule',
    route: '/snapshot-schedules',
    namespaced: true,
    statuses: [],
    statusColumn: '',
    emptyHint: "A schedule snapshots a claim (or the claims a label selector matches) every so often and keeps the newest few; add one on a claim's Snapshots tab.",
  },
  {
    kind: 'VolumeBackup',
    title: 'Backups',
    noun: 'backups',
    singular: 'backup',
    route: '/backups',
    namespaced: true,
    statuses: ['Pending', 'InProgress', 'Completed', 'Failed'],
    statusColumn: 'PHASE',
    emptyHint: "Back up a claim (or one of its snapshots) to a backup target; a backup outlives the node, and a new claim restores from it.",
  },
  {
    kind: 'BackupTarget',
    title: 'Backup targets',
    noun: 'backup targets',
    singular: 'backup target',
    route: '/backup-targets',
    namespaced: false,
    statuses: [],
    statusColumn: '',
    emptyHint: 'A backup target is a directory every node mounts (NFS in production); create one from YAML and mark one as the default.',
  },
  {
    kind: 'VolumeSnapshotClass',
    title: 'Snapshot classes',
    noun: 'snapshot classes',
    singular: 'snapshot class',
    route: '/snapshot-classes',
    namespaced: false,
    statuses: [],
    statusColumn: '',
    emptyHint: 'A VolumeSnapshotClass names the driver that takes snapshots and what happens to them on delete; create one from YAML.',
  },
  {
    kind: 'VolumeSnapshotContent',
    title: 'Snapshot contents',
    noun: 'snapshot contents',
    singular: 'snapshot content',
    route: '/snapshot-contents',
    namespaced: false,
    statuses: [],
    statusColumn: '',
    emptyHint: 'A content is a snapshot on the storage: made for a VolumeSnapshot, or registered by an administrator.',
  },
];

const byKind = new Map(KINDS.map((k) => [k.kind, k]));
const byLower = new Map(KINDS.map((k) => [k.kind.toLowerCase(), k]));

export function kindUi(kind: string): KindUi | undefined {
  return byKind.get(kind) ?? byLower.get(kind.toLowerCase());
}

/** The dashboard page of one object, or undefined for kinds it has no page for. */
export function detailHref(kind: string, namespace: string | undefined, name: string): string | undefined {
  const k = kindUi(kind);
  if (!k || !name) return undefined;
  const n = encodeURIComponent(name);
  if (k.namespaced) return namespace ? `${k.route}/${encodeURIComponent(namespace)}/${n}` : undefined;
  return `${k.route}/${n}`;
}

export function isDefaultClass(obj: { metadata?: { annotations?: Record<string, string> } }): boolean {
  const a = obj.metadata?.annotations ?? {};
  return a[annIsDefaultClass] === 'true' || a[annBetaIsDefaultClass] === 'true';
}

/** `status.phase`, for the kinds whose schema has one (the other kinds have none). */
export function phaseOf(obj: KubeObject): string | undefined {
  if (isKind(obj, 'PersistentVolume') || isKind(obj, 'PersistentVolumeClaim') || isKind(obj, 'Pod') || isKind(obj, 'Namespace') || isKind(obj, 'Node')) return obj.status?.phase;
  return undefined;
}
