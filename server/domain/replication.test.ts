import { describe, expect, it } from 'vitest';
import {
  assetOnNode,
  failoverTarget,
  pickReplicaNodes,
  readReplication,
  replicaState,
  replicatedVolumeNodeProblem,
  replicationAnnotations,
  replicationParameters,
  type ReplicaFacts,
  type ReplicationView,
} from './replication';
import { annReplicationActiveNode, annReplicationReplicas } from './well-known/annotations';

describe('replicationParameters', () => {
  it.each([
    [{}, { replicas: 1, intervalSeconds: 30 }, []],
    [{ replicas: '2' }, { replicas: 2, intervalSeconds: 30 }, []],
    [{ replicas: '3', replicationInterval: '1m' }, { replicas: 3, intervalSeconds: 60 }, []],
    [{ replicas: '2', replicationInterval: '5s' }, { replicas: 2, intervalSeconds: 5 }, []],
    [{ replicas: '0' }, { replicas: 1, intervalSeconds: 30 }, ['must be a whole number from 1 to 3']],
    [{ replicas: '4' }, { replicas: 1, intervalSeconds: 30 }, ['must be a whole number from 1 to 3']],
    [{ replicas: 'two' }, { replicas: 1, intervalSeconds: 30 }, ['must be a whole number from 1 to 3']],
    [{ replicas: '2.5' }, { replicas: 1, intervalSeconds: 30 }, ['must be a whole number from 1 to 3']],
    [{ replicas: '2', replicationInterval: '30' }, { replicas: 2, intervalSeconds: 30 }, ['not a duration']],
    [{ replicas: '2', replicationInterval: '1s' }, { replicas: 2, intervalSeconds: 30 }, ['must be from 5s to 60m']],
    [{ replicas: '2', replicationInterval: '2h' }, { replicas: 2, intervalSeconds: 30 }, ['must be from 5s to 60m']],
    [{ replicas: '1', replicationInterval: '10s' }, { replicas: 1, intervalSeconds: 10 }, ['no effect']],
    [{ replicas: '2', replicationInterval: '1m30s' }, { replicas: 2, intervalSeconds: 90 }, []],
    [{ replicas: '2', replicationInterval: '1.5m' }, { replicas: 2, intervalSeconds: 30 }, ['not a duration']],
  ])('%j', (params, value, problems) => {
    const r = replicationParameters(params);
    expect(r.value).toEqual(value);
    expect(r.problems).toHaveLength(problems.length);
    problems.forEach((p, i) => expect(r.problems[i]).toContain(p));
  });
});

describe('pickReplicaNodes', () => {
  const GiB = 1n << 30n;
  const c = (node: string, room: bigint | undefined, zone?: string, ready = true) => ({ node, roomBytes: room, zone, ready });
  it.each([
    { what: 'the roomiest other node', cands: [c('a', 10n * GiB), c('b', 5n * GiB), c('c', 8n * GiB)], taken: [{ node: 'a' }], count: 1, want: ['c'] },
    { what: 'never a node holding a copy', cands: [c('a', 10n * GiB)], taken: [{ node: 'a' }], count: 1, want: [] },
    { what: 'not a node without room', cands: [c('a', 10n * GiB), c('b', GiB / 2n)], taken: [{ node: 'a' }], count: 1, want: [] },
    { what: 'not a node without the pool', cands: [c('a', 10n * GiB), c('b', undefined)], taken: [{ node: 'a' }], count: 1, want: [] },
    { what: 'not a NotReady node', cands: [c('a', 10n * GiB), c('b', 10n * GiB, undefined, false)], taken: [{ node: 'a' }], count: 1, want: [] },
    { what: 'another zone first, even with less room', cands: [c('a', 10n * GiB, 'z1'), c('b', 9n * GiB, 'z1'), c('c', 2n * GiB, 'z2')], taken: [{ node: 'a', zone: 'z1' }], count: 1, want: ['c'] },
    { what: 'two replicas in two new zones', cands: [c('a', 9n * GiB, 'z1'), c('b', 9n * GiB, 'z2'), c('c', 8n * GiB, 'z2'), c('d', 2n * GiB, 'z3')], taken: [{ node: 'a', zone: 'z1' }], count: 2, want: ['b', 'd'] },
    { what: 'the same zone when no other', cands: [c('a', 9n * GiB, 'z1'), c('b', 9n * GiB, 'z1')], taken: [{ node: 'a', zone: 'z1' }], count: 1, want: ['b'] },
    { what: 'name order on a tie', cands: [c('z', 9n * GiB), c('y', 9n * GiB), c('x', 9n * GiB)], taken: [{ node: 'x' }], count: 1, want: ['y'] },
    { what: 'fewer than asked', cands: [c('a', 9n * GiB), c('b', 9n * GiB)], taken: [{ node: 'a' }], count: 2, want: ['b'] },
  ])('$what', ({ cands, taken, count, want }) => {
    expect(pickReplicaNodes(cands, taken, count, GiB)).toEqual(want);
  });
});

describe('replicaState', () => {
  const now = new Date('2026-01-01T00:10:00Z');
  const f = (o: Partial<ReplicaFacts>): ReplicaFacts => ({ node: 'b', role: 'replica', nodeReady: true, ...o });
  it.each([
    [f({ role: 'fenced' }), 'Fenced'],
    [f({ nodeReady: false, ackedSeq: 3, ackedAt: now }), 'Unreachable'],
    [f({}), 'Rebuilding'],
    [f({ ackedSeq: 1, ackedAt: new Date(now.getTime() - 80_000) }), 'InSync'],
    [f({ ackedSeq: 1, ackedAt: new Date(now.getTime() - 90_000) }), 'InSync'],
    [f({ ackedSeq: 1, ackedAt: new Date(now.getTime() - 91_000) }), 'Behind'],
  ])('%j → %s', (facts, want) => {
    expect(replicaState(facts, 30, now)).toBe(want);
  });
});

describe('replication annotations', () => {
  const view: ReplicationView = { activeNode: 'a', epoch: 2, replicas: [{ node: 'b', state: 'InSync', lastSyncTime: '2026-01-01T00:00:00Z' }, { node: 'c', state: 'Rebuilding', progress: { doneBytes: '5', totalBytes: '10' } }] };
  it('round-trips', () => {
    expect(readReplication(replicationAnnotations(view))).toEqual(view);
  });
  it.each([
    [undefined, undefined],
    [{}, undefined],
    [{ [annReplicationActiveNode]: 'a', [annReplicationReplicas]: 'not json' }, { activeNode: 'a', epoch: 0, replicas: [] }],
    [{ [annReplicationActiveNode]: 'a', [annReplicationReplicas]: '[{"node":"b","state":"Owned"},{"node":3,"state":"InSync"},null,{"node":"c","state":"Behind","__proto__":{"x":1}}]' }, { activeNode: 'a', epoch: 0, replicas: [{ node: 'c', state: 'Behind' }] }],
    [{ [annReplicationActiveNode]: 'a', 'replication.stowage.io/epoch': '-3' }, { activeNode: 'a', epoch: 0, replicas: [] }],
  ])('reads hostile annotations %j safely', (ann, want) => {
    expect(readReplication(ann as Record<string, string> | undefined)).toEqual(want);
  });
});

describe('replicatedVolumeNodeProblem', () => {
  const view: ReplicationView = { activeNode: 'a', epoch: 1, replicas: [{ node: 'b', state: 'InSync', lastSyncTime: 't' }, { node: 'c', state: 'Rebuilding' }, { node: 'd', state: 'Fenced', lastSyncTime: 't' }] };
  it.each([
    { node: 'a', ready: ['a'], ok: true },
    { node: 'a', ready: [], ok: true },
    { node: 'b', ready: ['a', 'b'], ok: false },
    { node: 'b', ready: ['b'], ok: true },
    { node: 'c', ready: ['c'], ok: false },
    { node: 'd', ready: ['d'], ok: false },
    { node: 'e', ready: ['e'], ok: false },
  ])('$node with Ready $ready → ok $ok', ({ node, ready, ok }) => {
    expect(replicatedVolumeNodeProblem(view, node, (n) => ready.includes(n)) === undefined).toBe(ok);
  });
});

describe('failoverTarget', () => {
  const r = (node: string, o: Partial<ReplicaFacts> = {}): ReplicaFacts => ({ node, role: 'replica', nodeReady: true, ackedSeq: 4, ackedAt: new Date(), ...o });
  it.each([
    { what: 'active node Ready: nothing', f: { activeNode: 'a', activeNodeReady: true, pods: [{ name: 'p', node: 'b' }], replicas: [r('b')] }, want: undefined },
    { what: 'no pod on a replica: nothing', f: { activeNode: 'a', activeNodeReady: false, pods: [{ name: 'p', node: '' }], replicas: [r('b')] }, want: undefined },
    { what: 'a pod left on the dead node: wait', f: { activeNode: 'a', activeNodeReady: false, pods: [{ name: 'old', node: 'a' }, { name: 'new', node: 'b' }], replicas: [r('b')] }, want: 'wait' },
    { what: 'replica without a snapshot: wait', f: { activeNode: 'a', activeNodeReady: false, pods: [{ name: 'p', node: 'b' }], replicas: [r('b', { ackedSeq: undefined, ackedAt: undefined })] }, want: 'wait' },
    { what: 'fenced copy: wait', f: { activeNode: 'a', activeNodeReady: false, pods: [{ name: 'p', node: 'b' }], replicas: [r('b', { role: 'fenced' })] }, want: 'wait' },
    { what: 'promote the pod’s replica', f: { activeNode: 'a', activeNodeReady: false, pods: [{ name: 'p', node: 'c' }], replicas: [r('b'), r('c')] }, want: 'c' },
  ])('$what', ({ f, want }) => {
    const got = failoverTarget(f);
    if (want === undefined) expect(got).toBeUndefined();
    else if (want === 'wait') expect(got).toHaveProperty('wait');
    else expect(got).toEqual({ promote: want });
  });
});

describe('assetOnNode (the asset annotation after a failover)', () => {
  it.each([
    { what: 'names the old node', asset: '{"pool":"/p","path":"/p/v","node":"a"}', node: 'b', want: '{"pool":"/p","path":"/p/v","node":"b"}' },
    { what: 'names the node already', asset: '{"pool":"/p","path":"/p/v","node":"b"}', node: 'b', want: undefined },
    { what: 'absent', asset: undefined, node: 'b', want: undefined },
    { what: 'not JSON', asset: 'nope', node: 'b', want: undefined },
    { what: 'an array', asset: '["a"]', node: 'b', want: undefined },
    { what: 'no node field', asset: '{"pool":"/p"}', node: 'b', want: undefined },
    { what: '__proto__ kept as data', asset: '{"node":"a","__proto__":{"x":1}}', node: 'b', want: '{"node":"b","__proto__":{"x":1}}' },
  ])('$what', ({ asset, node, want }) => {
    expect(assetOnNode(asset, node)).toBe(want);
  });
});
