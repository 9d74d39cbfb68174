import { describe, expect, test } from 'vitest';
import { placePod, type Placement, type PlacementInput } from './placement';
import type { Node } from '../resources/node/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { Pod } from '../resources/pod/schema';
import type { StorageClass } from '../resources/storage-class/schema';
import type { CSIStorageCapacity } from '../resources/csi-storage-capacity/schema';

/** A node as node() builds it: status is always there. */
type BuiltNode = Node & { status: NonNullable<Node['status']> };

// Three nodes: n1 (zone a), n2 (zone b), n3 (zone c); Ready unless a row says otherwise.
function node(name: string, zone: string, mod?: (n: BuiltNode) => void): Node {
  const n: BuiltNode = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone } },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
  mod?.(n);
  return n;
}
const notReady = (n: BuiltNode) => (n.status.conditions = [{ type: 'Ready', status: 'False' }]);
const cordoned = (n: BuiltNode) => (n.spec = { unschedulable: true });
const tainted = (n: BuiltNode) => (n.spec = { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] });

const pinned = (host: string) => ({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [host] }] }] } });
const zones = (...z: string[]) => ({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: z }] }] } });

function volume(name: string, size: string, o: { affinity?: object; cls?: string; boundTo?: string } = {}): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, uid: `uid-${name}` },
    spec: {
      capacity: { storage: size },
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Filesystem',
      storageClassName: o.cls ?? 'local',
      local: { path: `/mnt/${name}` },
      ...(o.affinity ? { nodeAffinity: o.affinity } : {}),
      ...(o.boundTo ? { claimRef: { namespace: 'ns', name: o.boundTo, uid: `uid-${o.boundTo}` } } : {}),
    },
    status: { phase: o.boundTo ? 'Bound' : 'Available' },
  };
}

function claim(name: string, o: { cls?: string; volume?: string; size?: string; deleting?: boolean; modes?: string[] } = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: {
      accessModes: o.modes ?? ['ReadWriteOnce'],
      resources: { requests: { storage: o.size ?? '1Gi' } },
      volumeMode: 'Filesystem',
      storageClassName: o.cls ?? 'local',
      ...(o.volume ? { volumeName: o.volume } : {}),
    },
    status: { phase: o.volume ? 'Bound' : 'Pending' },
  };
}

const classes = new Map<string, StorageClass>(
  [
    { metadata: { name: 'local' }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer' },
    { metadata: { name: 'hostpath' }, provisioner: 'stowage.io/host-path', volumeBindingMode: 'WaitForFirstConsumer' },
    {
      metadata: { name: 'zonal' },
      provisioner: 'example.com/zonal',
      volumeBindingMode: 'WaitForFirstConsumer',
      allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['a'] }] }],
    },
    { metadata: { name: 'immediate' }, provisioner: 'example.com/nfs', volumeBindingMode: 'Immediate' },
    { metadata: { name: 'pooled' }, provisioner: 'stowage.io/btrfs', volumeBindingMode: 'WaitForFirstConsumer' },
  ].map((c): [string, StorageClass] => [c.metadata.name, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', ...c }]),
);

interface Row {
  what: string;
  nodes?: Node[];
  claims?: string[];
  objects?: (PersistentVolumeClaim | PersistentVolume)[];
  candidates?: PersistentVolume[];
  nodeSelector?: Record<string, string>;
  affinityHosts?: string[];
  tolerations?: object[];
  preferred?: string;
  /** Claims another placed pod uses. */
  inUseElsewhere?: string[];
  /** Room of class "pooled" per node (published CSIStorageCapacity). */
  pools?: Record<string, string>;
  want: { node: string; select?: string[]; prebind?: { claim: string; volume: string }[] } | string;
}

const three = () => [node('n1', 'a'), node('n2', 'b'), node('n3', 'c')];

/** A replicated pool volume whose copies are on n1..n3: active on `active`, replicas as given. */
function replicated(active: string, replicas: { node: string; state: string; lastSyncTime?: string }[]): PersistentVolume {
  const v = volume('pv-rep', '1Gi', { cls: 'pooled', boundTo: 'data', affinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [active, ...replicas.map((r) => r.node)] }] }] } } });
  v.metadata.annotations = { 'replication.stowage.io/active-node': active, 'replication.stowage.io/epoch': '0', 'replication.stowage.io/replicas': JSON.stringify(replicas) };
  return v;
}
const synced = (node: string) => ({ node, state: 'InSync', lastSyncTime: '2026-01-01T00:00:00Z' });

const rows: Row[] = [
  { what: 'no claims: the first node by name', want: { node: 'n1' } },
  {
    what: 'replicated volume: its active node while that is Ready, not the replica first by name',
    claims: ['data'],
    objects: [claim('data', { volume: 'pv-rep', cls: 'pooled' }), replicated('n2', [synced('n1')])],
    want: { node: 'n2' },
  },
  {
    what: 'replicated volume: a replica holding a snapshot when the active node is NotReady',
    nodes: [node('n1', 'a'), node('n2', 'b', notReady), node('n3', 'c')],
    claims: ['data'],
    objects: [claim('data', { volume: 'pv-rep', cls: 'pooled' }), replicated('n2', [synced('n3')])],
    want: { node: 'n3' },
  },
  {
    what: 'replicated volume: never a replica still rebuilding',
    nodes: [node('n1', 'a'), node('n2', 'b', notReady)],
    claims: ['data'],
    objects: [claim('data', { volume: 'pv-rep', cls: 'pooled' }), replicated('n2', [{ node: 'n1', state: 'Rebuilding' }])],
    want: "0/2 nodes are available: 1 node(s) did not hold a copy of a replicated volume, 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }.",
  },
  { what: 'no claims: the preferred node when it fits', preferred: 'n3', want: { node: 'n3' } },
  { what: 'nodeSelector picks the node of its zone', nodeSelector: { 'topology.kubernetes.io/zone': 'b' }, want: { node: 'n2' } },
  {
    what: 'nodeSelector no node has',
    nodeSelector: { disk: 'ssd' },
    want: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.",
  },
  { what: 'required node affinity on the host name', affinityHosts: ['n3'], want: { node: 'n3' } },
  {
    what: 'a NotReady node is skipped',
    nodes: [node('n1', 'a', notReady), node('n2', 'b')],
    want: { node: 'n2' },
  },
  {
    what: 'cordoned, NotReady and tainted nodes, each with its reason',
    nodes: [node('n1', 'a', cordoned), node('n2', 'b', notReady), node('n3', 'c', tainted)],
    want: '0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) were unschedulable.',
  },
  {
    what: 'a toleration lets the pod onto the tainted node',
    nodes: [node('n1', 'a', cordoned), node('n3', 'c', tainted)],
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }],
    want: { node: 'n3' },
  },
  { what: 'no nodes at all', nodes: [], want: '0/0 nodes are available.' },
  {
    what: 'bound local volume pinned to n3: the pod goes to n3',
    claims: ['data'],
    objects: [claim('data', { volume: 'pv-n3' }), volume('pv-n3', '1Gi', { affinity: pinned('n3'), boundTo: 'data' })],
    want: { node: 'n3' },
  },
  {
    what: "a node claiming another's host name is not that node: the volume pinned to n3 stays with n3",
    nodes: [node('n1', 'a', (n) => (n.metadata.labels!['kubernetes.io/hostname'] = 'n3')), node('n3', 'c', notReady)],
    claims: ['data'],
    objects: [claim('data', { volume: 'pv-n3' }), volume('pv-n3', '1Gi', { affinity: pinned('n3'), boundTo: 'data' })],
    want: "0/2 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 1 node(s) had volume node affinity conflict.",
  },
  {
    what: "a node claiming another's host name is not chosen for the other's free volume",
    nodes: [node('n1', 'a', (n) => (n.metadata.labels!['kubernetes.io/hostname'] = 'n2')), node('n2', 'b', notReady)],
    claims: ['data'],
    objects: [claim('data')],
    candidates: [volume('pv-n2', '5Gi', { affinity: pinned('n2') })],
    preferred: 'n1',
    want: "0/2 nodes are available: 1 node(s) didn't find available persistent volumes to bind, 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }.",
  },
  {
    what: 'bound volume without node affinity fits every node',
    claims: ['data'],
    objects: [claim('data', { volume: 'nfs' }), volume('nfs', '1Gi', { boundTo: 'data' })],
    want: { node: 'n1' },
  },
  {
    what: 'bound volume on n3 but nodeSelector asks for zone a',
    claims: ['data'],
    nodeSelector: { 'topology.kubernetes.io/zone': 'a' },
    objects: [claim('data', { volume: 'pv-n3' }), volume('pv-n3', '1Gi', { affinity: pinned('n3'), boundTo: 'data' })],
    want: "0/3 nodes are available: 1 node(s) had volume node affinity conflict, 2 node(s) didn't match Pod's node affinity/selector.",
  },
  {
    what: 'WFFC claim: the node of the only Available volume, claim selected',
    claims: ['data'],
    objects: [claim('data')],
    candidates: [volume('pv-n2', '5Gi', { affinity: pinned('n2') })],
    want: { node: 'n2', select: ['data'], prebind: [{ claim: 'data', volume: 'pv-n2' }] },
  },
  {
    what: 'WFFC claim: a volume too small does not count',
    claims: ['data'],
    objects: [claim('data', { size: '10Gi' })],
    candidates: [volume('small-n1', '5Gi', { affinity: pinned('n1') }), volume('big-n3', '20Gi', { affinity: pinned('n3') })],
    want: { node: 'n3', select: ['data'], prebind: [{ claim: 'data', volume: 'big-n3' }] },
  },
  {
    what: 'WFFC claim: no volume and no provisioner anywhere',
    claims: ['data'],
    objects: [claim('data')],
    want: "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind.",
  },
  {
    what: 'WFFC claim of a node-local provisioner: only its node',
    claims: ['data'],
    objects: [claim('data', { cls: 'hostpath' })],
    want: { node: 'n2', select: ['data'] },
  },
  {
    what: 'WFFC claim of a class with allowedTopologies zone a',
    claims: ['data'],
    objects: [claim('data', { cls: 'zonal' })],
    want: { node: 'n1', select: ['data'] },
  },
  {
    what: 'two WFFC claims cannot share the one volume on n2',
    claims: ['a', 'b'],
    objects: [claim('a'), claim('b')],
    candidates: [volume('pv-n2', '5Gi', { affinity: pinned('n2') })],
    want: "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind.",
  },
  {
    what: 'two WFFC claims, two volumes on n2',
    claims: ['a', 'b'],
    objects: [claim('a'), claim('b')],
    candidates: [volume('pv1-n2', '5Gi', { affinity: pinned('n2') }), volume('pv2-n2', '5Gi', { affinity: pinned('n2') })],
    want: { node: 'n2', select: ['a', 'b'], prebind: [{ claim: 'a', volume: 'pv1-n2' }, { claim: 'b', volume: 'pv2-n2' }] },
  },
  {
    what: 'bound zonal volume (a, b) and a WFFC claim whose only volume is on n3',
    claims: ['logs', 'data'],
    objects: [claim('logs', { volume: 'zonal-ab' }), volume('zonal-ab', '1Gi', { affinity: zones('a', 'b'), boundTo: 'logs' }), claim('data')],
    candidates: [volume('pv-n3', '5Gi', { affinity: pinned('n3') })],
    want: "0/3 nodes are available: 1 node(s) had volume node affinity conflict, 2 node(s) didn't find available persistent volumes to bind.",
  },
  {
    what: 'a claim that does not exist',
    claims: ['ghost'],
    want: '0/3 nodes are available: persistentvolumeclaim "ghost" not found.',
  },
  {
    what: 'a claim being deleted',
    claims: ['data'],
    objects: [claim('data', { deleting: true })],
    want: '0/3 nodes are available: persistentvolumeclaim "data" is being deleted.',
  },
  {
    what: 'an unbound claim of an Immediate class',
    claims: ['data'],
    objects: [claim('data', { cls: 'immediate' })],
    want: '0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims.',
  },
  {
    what: 'a claim bound to a volume that is gone',
    claims: ['data'],
    objects: [claim('data', { volume: 'gone' })],
    want: '0/3 nodes are available: persistentvolumeclaim "data" bound to non-existent persistentvolume "gone".',
  },
  {
    what: 'WFFC claim: the node whose volume fits most tightly (10Gi on n1, 2Gi on n3)',
    claims: ['data'],
    objects: [claim('data', { size: '2Gi' })],
    candidates: [volume('pv-n1', '10Gi', { affinity: pinned('n1') }), volume('pv-n3', '2Gi', { affinity: pinned('n3') })],
    want: { node: 'n3', select: ['data'], prebind: [{ claim: 'data', volume: 'pv-n3' }] },
  },
  {
    what: 'WFFC claim: a tight volume wins over provisioning on n2 (host-path)',
    claims: ['data'],
    objects: [claim('data', { cls: 'hostpath', size: '1Gi' })],
    candidates: [volume('pv-n3', '1Gi', { affinity: pinned('n3'), cls: 'hostpath' })],
    want: { node: 'n3', select: ['data'], prebind: [{ claim: 'data', volume: 'pv-n3' }] },
  },
  {
    what: 'WFFC claim: the preferred node beats a tighter fit elsewhere',
    claims: ['data'],
    objects: [claim('data', { size: '2Gi' })],
    candidates: [volume('pv-n1', '10Gi', { affinity: pinned('n1') }), volume('pv-n3', '2Gi', { affinity: pinned('n3') })],
    preferred: 'n1',
    want: { node: 'n1', select: ['data'], prebind: [{ claim: 'data', volume: 'pv-n1' }] },
  },
  {
    what: 'two WFFC claims: the mean fit decides (n1: 1/2 and 1/2; n3: 1/1 and 1/8)',
    claims: ['a', 'b'],
    objects: [claim('a'), claim('b')],
    candidates: [
      volume('n1-a', '2Gi', { affinity: pinned('n1') }),
      volume('n1-b', '2Gi', { affinity: pinned('n1') }),
      volume('n3-a', '1Gi', { affinity: pinned('n3') }),
      volume('n3-b', '8Gi', { affinity: pinned('n3') }),
    ],
    want: { node: 'n3', select: ['a', 'b'], prebind: [{ claim: 'a', volume: 'n3-a' }, { claim: 'b', volume: 'n3-b' }] },
  },
  {
    what: 'a ReadWriteOncePod claim another pod uses',
    claims: ['solo'],
    objects: [claim('solo', { volume: 'pv-any', modes: ['ReadWriteOncePod'] }), volume('pv-any', '1Gi', { boundTo: 'solo' })],
    inUseElsewhere: ['solo'],
    want: '0/3 nodes are available: node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode.',
  },
  {
    what: 'a ReadWriteOncePod claim nobody else uses',
    claims: ['solo'],
    objects: [claim('solo', { volume: 'pv-any', modes: ['ReadWriteOncePod'] }), volume('pv-any', '1Gi', { boundTo: 'solo' })],
    want: { node: 'n1' },
  },
  {
    what: 'a ReadWriteOnce claim another pod uses (shared on one node, as upstream)',
    claims: ['shared'],
    objects: [claim('shared', { volume: 'pv-n2', modes: ['ReadWriteOnce'] }), volume('pv-n2', '1Gi', { affinity: pinned('n2'), boundTo: 'shared' })],
    inUseElsewhere: ['shared'],
    want: { node: 'n2' },
  },
  {
    what: 'a ReadWriteOncePod claim in use beside a free one',
    claims: ['free', 'solo'],
    objects: [claim('free', { volume: 'pv-a' }), volume('pv-a', '1Gi', { boundTo: 'free' }), claim('solo', { volume: 'pv-b', modes: ['ReadWriteOncePod'] }), volume('pv-b', '1Gi', { boundTo: 'solo' })],
    inUseElsewhere: ['free', 'solo'],
    want: '0/3 nodes are available: node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode.',
  },
  {
    what: 'WFFC pooled claim: only the node whose pool has room',
    claims: ['data'],
    objects: [claim('data', { cls: 'pooled', size: '2Gi' })],
    pools: { n1: '1Gi', n2: '3Gi', n3: '1Gi' },
    want: { node: 'n2', select: ['data'] },
  },
  {
    what: 'WFFC pooled claim: a node that publishes no pool has no room',
    claims: ['data'],
    objects: [claim('data', { cls: 'pooled', size: '1Gi' })],
    pools: { n3: '1Gi' },
    want: { node: 'n3', select: ['data'] },
  },
  {
    what: 'WFFC pooled claim: room exactly the request fits',
    claims: ['data'],
    objects: [claim('data', { cls: 'pooled', size: '2Gi' })],
    pools: { n1: '2Gi' },
    want: { node: 'n1', select: ['data'] },
  },
  {
    what: 'WFFC pooled claim: no pool has room, in upstream words',
    claims: ['data'],
    objects: [claim('data', { cls: 'pooled', size: '5Gi' })],
    pools: { n1: '1Gi', n2: '4Gi' },
    want: '0/3 nodes are available: 3 node(s) did not have enough free storage.',
  },
  {
    what: 'two WFFC pooled claims must fit together (2Gi + 2Gi: n1 has 3Gi, n2 has 4Gi)',
    claims: ['a', 'b'],
    objects: [claim('a', { cls: 'pooled', size: '2Gi' }), claim('b', { cls: 'pooled', size: '2Gi' })],
    pools: { n1: '3Gi', n2: '4Gi' },
    want: { node: 'n2', select: ['a', 'b'] },
  },
  {
    what: 'WFFC pooled claim with several fitting nodes: the existing order (preferred, then name)',
    claims: ['data'],
    objects: [claim('data', { cls: 'pooled', size: '1Gi' })],
    pools: { n1: '2Gi', n2: '9Gi', n3: '2Gi' },
    preferred: 'n3',
    want: { node: 'n3', select: ['data'] },
  },
];

function capacityRows(pools: Record<string, string>): CSIStorageCapacity[] {
  return Object.entries(pools).map(([n, capacity]) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIStorageCapacity',
    metadata: { name: `pool-${n}`, namespace: 'kube-system' },
    storageClassName: 'pooled',
    nodeTopology: { matchLabels: { 'kubernetes.io/hostname': n } },
    capacity,
  }));
}

function inputOf(r: Row): PlacementInput {
  const objects = r.objects ?? [];
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns' },
    spec: {
      containers: [{ name: 'c', image: 'busybox' }],
      volumes: (r.claims ?? []).map((c) => ({ name: `v-${c}`, persistentVolumeClaim: { claimName: c } })),
      ...(r.nodeSelector ? { nodeSelector: r.nodeSelector } : {}),
      ...(r.tolerations ? { tolerations: r.tolerations } : {}),
      ...(r.affinityHosts
        ? {
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: r.affinityHosts }] }],
                },
              },
            },
          }
        : {}),
    },
  };
  return {
    pod,
    nodes: r.nodes ?? three(),
    claims: new Map(objects.filter((o): o is PersistentVolumeClaim => o.kind === 'PersistentVolumeClaim').map((o) => [o.metadata.name!, o])),
    boundVolumes: new Map(objects.filter((o): o is PersistentVolume => o.kind === 'PersistentVolume').map((o) => [o.metadata.name!, o])),
    classes,
    candidates: r.candidates ?? [],
    provisionerNode: (p) => (p === 'stowage.io/host-path' ? 'n2' : undefined),
    claimsInUseElsewhere: new Set(r.inUseElsewhere ?? []),
    capacityTracked: (p) => p === 'stowage.io/btrfs',
    capacities: capacityRows(r.pools ?? {}),
  };
}

describe('placePod', () => {
  test.each(rows.map((r) => ({ ...r, name: `${r.what} -> ${typeof r.want === 'string' ? r.want : r.want.node}` })))('$name', (r) => {
    const got = placePod(inputOf(r), r.preferred);
    const want: Placement =
      typeof r.want === 'string'
        ? { kind: 'unschedulable', message: r.want, perNode: expect.any(Object) }
        : { kind: 'placed', node: r.want.node, select: r.want.select ?? [], prebind: r.want.prebind ?? [] };
    expect(got).toEqual(want);
  });

  test('the reasons per node name each node', () => {
    const r = rows.find((x) => x.what.startsWith('bound zonal volume'))!;
    const got = placePod(inputOf(r));
    expect(got.kind === 'unschedulable' && got.perNode).toEqual({
      n1: "node(s) didn't find available persistent volumes to bind",
      n2: "node(s) didn't find available persistent volumes to bind",
      n3: 'node(s) had volume node affinity conflict',
    });
  });
});
