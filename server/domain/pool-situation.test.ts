import { describe, expect, test } from 'vitest';
import type { CSIStorageCapacity } from '../resources/csi-storage-capacity/schema';
import { poolSituation } from './pool-situation';
import { annPoolPath, annPoolProblem } from './well-known/annotations';

const GI = 1n << 30n;
function cap(node: string, capacity: string, problem?: string, cls = 'pooled'): CSIStorageCapacity {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIStorageCapacity',
    metadata: { name: `${cls}-${node}`, namespace: 'kube-system', annotations: { [annPoolPath]: '/pool', ...(problem ? { [annPoolProblem]: problem } : {}) } },
    storageClassName: cls,
    nodeTopology: { matchLabels: { 'kubernetes.io/hostname': node } },
    capacity,
    maximumVolumeSize: capacity,
  };
}

const rows: [string, CSIStorageCapacity[], bigint, string, Record<string, boolean>][] = [
  ['nobody reports the pool', [], GI, 'no node reports the pool /pool of StorageClass "pooled" yet: is a node agent running?', {}],
  ['another class only', [cap('a', '5Gi', undefined, 'other')], GI, 'no node reports the pool /pool of StorageClass "pooled" yet: is a node agent running?', {}],
  ['one of two has room', [cap('b', '512Mi'), cap('a', '2Gi')], GI, '1 of 2 node(s) have room for 1Gi in pool /pool: a', { a: true, b: false }],
  ['exactly the room fits', [cap('a', '1Gi')], GI, '1 of 1 node(s) have room for 1Gi in pool /pool: a', { a: true }],
  ['none has room', [cap('a', '512Mi'), cap('b', '100Mi')], GI, '0/2 nodes are available: 2 node(s) did not have enough free storage. None has room for 1Gi in pool /pool.', { a: false, b: false }],
  [
    'too small, missing, not btrfs, quotas off',
    [cap('a', '512Mi'), cap('b', '0', 'the path does not exist on this node'), cap('c', '0', 'the path is on a ext4 filesystem, not btrfs'), cap('d', '0', 'quotas are not enabled on this btrfs filesystem (btrfs quota enable)')],
    GI,
    '0/4 nodes are available: 1 node(s) did not have enough free storage, 3 node(s) did not have a usable pool. None has room for 1Gi in pool /pool.',
    { a: false, b: false, c: false, d: false },
  ],
  ['a problem wins over a stale capacity', [cap('a', '9Gi', 'node "a" is not ready (Ready=Unknown)')], GI, '0/1 nodes are available: 1 node(s) did not have a usable pool. None has room for 1Gi in pool /pool.', { a: false }],
];

describe('poolSituation', () => {
  test.each(rows)('%s', (_name, caps, bytes, summary, fits) => {
    const s = poolSituation('pooled', '/pool', bytes, caps);
    expect(s.summary).toBe(summary);
    expect(Object.fromEntries(s.nodes.map((n) => [n.node, n.fits]))).toEqual(fits);
    for (const n of s.nodes) if (n.problem) expect(n.roomBytes).toBe('0');
  });

  test.each([
    ['two copies, two nodes with room', [cap('a', '2Gi'), cap('b', '2Gi')], 2, '2 of 2 node(s) have room for 1Gi in pool /pool: a, b'],
    ['two copies, one node with room', [cap('a', '2Gi'), cap('b', '100Mi')], 2, '1 of 2 node(s) have room for 1Gi in pool /pool (a); the class keeps 2 copies, each on its own node: 1 more node(s) with room needed'],
    ['three copies, two nodes with room', [cap('a', '2Gi'), cap('b', '2Gi'), cap('c', '0', 'the path does not exist on this node')], 3, '2 of 3 node(s) have room for 1Gi in pool /pool (a, b); the class keeps 3 copies, each on its own node: 1 more node(s) with room needed'],
  ] as [string, CSIStorageCapacity[], number, string][])('replicated class: %s', (_name, caps, copies, summary) => {
    expect(poolSituation('pooled', '/pool', GI, caps, true, copies).summary).toBe(summary);
  });

  test('for a caller who may not read nodes: the counts only', () => {
    const s = poolSituation('pooled', '/pool', GI, [cap('b', '512Mi'), cap('a', '2Gi')], false);
    expect(s.nodes).toEqual([]);
    expect(s.summary).toBe('1 of 2 node(s) have room for 1Gi in pool /pool');
  });

  test('each node says its room and its problem', () => {
    const s = poolSituation('pooled', '/pool', GI, [cap('b', '0', 'the path does not exist on this node'), cap('a', '2Gi')]);
    expect(s.nodes).toEqual([
      { node: 'a', path: '/pool', roomBytes: String(2n * GI), room: '2Gi', fits: true },
      { node: 'b', path: '/pool', roomBytes: '0', room: '0', fits: false, problem: 'the path does not exist on this node' },
    ]);
  });
});
