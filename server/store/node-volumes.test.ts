// The volumes with a copy on a node, against the suite's Postgres: pinned, active and
// replica copies found, others not, a page bounded and sorted, the total counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/db';
import { replicationAnnotations } from '../domain/replication';
import { volumesOnNode } from './node-volumes';

let ts: TestStore;

function pv(name: string, o: { pinned?: string; annotations?: Record<string, string>; claim?: string } = {}) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      hostPath: { path: `/srv/${name}` },
      ...(o.claim ? { claimRef: { namespace: 'team-a', name: o.claim } } : {}),
      ...(o.pinned
        ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [o.pinned] }] }] } } }
        : {}),
    },
  };
}

beforeAll(async () => {
  ts = await openTestStore();
  for (let i = 0; i < 7; i++) await ts.store.create(pv(`local-${i}`, { pinned: 'n1', claim: `c${i}` }));
  await ts.store.create(pv('elsewhere', { pinned: 'n2' }));
  await ts.store.create(pv('active-here', { annotations: replicationAnnotations({ activeNode: 'n1', epoch: 2, replicas: [{ node: 'n2', state: 'InSync' }] }) }));
  await ts.store.create(pv('replica-here', { annotations: replicationAnnotations({ activeNode: 'n2', epoch: 1, replicas: [{ node: 'n1', state: 'Behind', lastSyncTime: '2026-01-01T00:00:00Z' }] }) }));
  // A node whose name the other's contains: "n1" must not match "n10".
  await ts.store.create(pv('replica-n10', { annotations: replicationAnnotations({ activeNode: 'n2', epoch: 1, replicas: [{ node: 'n10', state: 'InSync' }] }) }));
  await ts.store.create(pv('broken', { annotations: { 'replication.stowage.io/active-node': 'n3', 'replication.stowage.io/replicas': '{"node":"n1"' } }));
});
afterAll(async () => ts.close());

describe('volumesOnNode', () => {
  it('finds pinned, active and replica copies on the node, sorted by name, and no others', async () => {
    const page = await volumesOnNode(ts.store, 'n1', { offset: 0, limit: 50 });
    // "broken" is a substring match the caller discards (its annotation does not parse).
    expect(page.rows.map((r) => r.name)).toEqual(['active-here', 'broken', 'local-0', 'local-1', 'local-2', 'local-3', 'local-4', 'local-5', 'local-6', 'replica-here']);
    expect(page.total).toBe(10);
    const local = page.rows.find((r) => r.name === 'local-3')!;
    expect(local).toMatchObject({ pinnedNode: 'n1', claimNamespace: 'team-a', claimName: 'c3' });
    expect(page.rows.find((r) => r.name === 'replica-here')!.annotations['replication.stowage.io/active-node']).toBe('n2');
  });

  it('a page is bounded by its limit and offset; the total stays the whole count', async () => {
    const page = await volumesOnNode(ts.store, 'n1', { offset: 3, limit: 4 });
    expect(page.rows.map((r) => r.name)).toEqual(['local-1', 'local-2', 'local-3', 'local-4']);
    expect(page.total).toBe(10);
    const past = await volumesOnNode(ts.store, 'n1', { offset: 100, limit: 4 });
    expect(past.rows).toEqual([]);
    expect(past.total).toBe(10);
  });

  it('replicas only: the volumes whose replicas annotation names the node, not its own or active copies', async () => {
    const page = await volumesOnNode(ts.store, 'n1', { offset: 0, limit: 50, replicasOnly: true });
    expect(page.rows.map((r) => r.name)).toEqual(['broken', 'replica-here']);
    expect(page.total).toBe(2);
    expect((await volumesOnNode(ts.store, 'n1', { offset: 5, limit: 50, replicasOnly: true })).total).toBe(2);
  });

  it('a limit above the maximum is cut to it; a node with nothing has an empty page', async () => {
    expect((await volumesOnNode(ts.store, 'n1', { offset: 0, limit: 100_000 })).rows.length).toBe(10);
    expect(await volumesOnNode(ts.store, 'nobody', { offset: 0, limit: 10 })).toEqual({ total: 0, rows: [] });
    expect((await volumesOnNode(ts.store, 'n10', { offset: 0, limit: 10 })).rows.map((r) => r.name)).toEqual(['replica-n10']);
  });
});
