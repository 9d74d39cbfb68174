import { describe, expect, test } from 'vitest';
import type { CSIStorageCapacity } from '../resources/csi-storage-capacity/schema';
import { largestVolume, roomiestNode, roomOnNode, withCurrentPromises } from './pool-capacity';

function cap(node: string | undefined, cls: string, capacity?: string, max?: string): CSIStorageCapacity {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIStorageCapacity',
    metadata: { name: `${cls}-${node}`, namespace: 'kube-system' },
    storageClassName: cls,
    ...(node ? { nodeTopology: { matchLabels: { 'kubernetes.io/hostname': node } } } : {}),
    ...(capacity !== undefined ? { capacity } : {}),
    ...(max !== undefined ? { maximumVolumeSize: max } : {}),
  };
}

describe('largestVolume', () => {
  const rows: [string, CSIStorageCapacity, bigint][] = [
    ['capacity only', cap('a', 'p', '1Gi'), 1n << 30n],
    ['maximumVolumeSize wins over capacity', cap('a', 'p', '2Gi', '1Gi'), 1n << 30n],
    ['nothing published: 0', cap('a', 'p'), 0n],
  ];
  test.each(rows)('%s', (_n, c, want) => expect(largestVolume(c)).toBe(want));
});

describe('roomOnNode', () => {
  const caps = [cap('a', 'p', '1Gi'), cap('b', 'p', '3Gi'), cap('a', 'q', '5Gi'), cap(undefined, 'everywhere', '7Gi')];
  const rows: [string, string, string, bigint | undefined][] = [
    ['its own node and class', 'p', 'a', 1n << 30n],
    ['another node of the class', 'p', 'b', 3n << 30n],
    ['no object for the node', 'p', 'c', undefined],
    ['an object without topology covers every node', 'everywhere', 'c', 7n << 30n],
  ];
  test.each(rows)('%s: class %s on node %s', (_n, cls, node, want) => expect(roomOnNode(caps, cls, { 'kubernetes.io/hostname': node })).toBe(want));
});

describe('roomiestNode', () => {
  const caps = [cap('a', 'p', '1Gi'), cap('b', 'p', '3Gi'), cap('c', 'p', '3Gi'), cap('d', 'q', '9Gi')];
  const rows: [string, string, bigint, string | undefined][] = [
    ['the most room, ties by name', 'p', 1n << 20n, 'b'],
    ['only nodes that fit the request', 'p', 2n << 30n, 'b'],
    ['none fits', 'p', 4n << 30n, undefined],
    ['only the class asked for', 'q', 1n, 'd'],
    ['a class without objects', 'r', 1n, undefined],
  ];
  test.each(rows)('%s', (_n, cls, bytes, want) => expect(roomiestNode(caps, cls, bytes)).toBe(want));
});

describe('withCurrentPromises', () => {
  const published: CSIStorageCapacity = {
    ...cap('a', 'p', '60Mi'),
    metadata: {
      name: 'pool-x',
      namespace: 'kube-system',
      labels: { 'pool.stowage.io/node': 'a' },
      annotations: { 'pool.stowage.io/path': '/pools/p', 'pool.stowage.io/total-bytes': String(100 << 20), 'pool.stowage.io/free-bytes': String(90 << 20) },
    },
  };
  const rows: [string, { node: string; details: Record<string, unknown> }[], string][] = [
    ['no promises: total, at most free', [], '90Mi'],
    ['a volume begun since the report counts', [{ node: 'a', details: { pool: '/pools/p', limitBytes: String(30 << 20) } }], '70Mi'],
    ['another node or pool does not', [{ node: 'b', details: { pool: '/pools/p', limitBytes: String(30 << 20) } }, { node: 'a', details: { pool: '/pools/q', limitBytes: String(30 << 20) } }], '90Mi'],
  ];
  test.each(rows)('%s', (_n, promises, want) => expect(withCurrentPromises([published], promises)[0].capacity).toBe(want));
  test('an object without pool figures is left as it is', () => expect(withCurrentPromises([cap('a', 'p', '1Gi')], [])[0].capacity).toBe('1Gi'));
});
