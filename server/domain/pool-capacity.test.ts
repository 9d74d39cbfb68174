import { describe, expect, test } from 'vitest';
import type { CSIStorageCapacity } from '../resources/csi-storage-capacity/schema';
import { largestVolume, roomiestNode, roomOnNode, silencedCapacity, withCurrentPromises } from './pool-capacity';
import type { Node } from '../resources/node/schema';
import { annPoolFree, annPoolPath, annPoolProblem, annPoolTotal } from './well-known/annotations';
import { labelPoolNode } from './well-known/labels';

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

describe('silencedCapacity: the pools of a silent node offer no room', () => {
  const reported = (): CSIStorageCapacity => ({
    ...cap('n1', 'p', '3Gi', '3Gi'),
    metadata: { name: 'p-n1', namespace: 'kube-system', labels: { [labelPoolNode]: 'n1' }, annotations: { [annPoolPath]: '/pool', [annPoolTotal]: String(4n << 30n), [annPoolFree]: String(3n << 30n) } },
  });
  const node = (ready?: { status: string; reason?: string }): Node => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n1' },
    status: { conditions: ready ? [{ type: 'Ready', ...ready }] : [] },
  });
  const rows: [string, Node | undefined, string][] = [
    ['Ready: kept as reported', node({ status: 'True' }), 'kept'],
    ['gone: deleted', undefined, 'delete'],
    ['Ready Unknown (no heartbeat): no room, with why', node({ status: 'Unknown', reason: 'NodeStatusUnknown' }), 'node "n1" is not ready (Ready=Unknown, NodeStatusUnknown): its agent\'s last report is not trusted'],
    ['Ready False: no room', node({ status: 'False' }), 'node "n1" is not ready (Ready=False): its agent\'s last report is not trusted'],
    ['no Ready condition yet: no room', node(), 'node "n1" is not ready (no Ready condition): its agent\'s last report is not trusted'],
  ];
  test.each(rows)('%s', (_n, n, want) => {
    const out = silencedCapacity(reported(), n);
    if (want === 'kept') return expect(out).toBeUndefined();
    if (want === 'delete') return expect(out).toBe('delete');
    const c = out as CSIStorageCapacity;
    expect(largestVolume(c)).toBe(0n);
    expect(c.metadata.annotations?.[annPoolProblem]).toBe(want);
    // No figures left to compute room from, even with no volume promised.
    expect(largestVolume(withCurrentPromises([c], [])[0])).toBe(0n);
    expect(roomiestNode([c], 'p', 1n)).toBeUndefined();
    // Already silenced: nothing to write again.
    expect(silencedCapacity(c, n)).toBeUndefined();
  });

  test('an object that is not a pool of a node is left alone', () => {
    expect(silencedCapacity(cap('n1', 'p', '1Gi'), undefined)).toBeUndefined();
  });
});
