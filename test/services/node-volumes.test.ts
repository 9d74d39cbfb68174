// The node page's volumes through the service, on a real Postgres: which copy the node holds
// (only, active, replica with its state), claim names, the replicas-only view, and who may ask.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Principal } from '../../server/domain/authorization';
import { replicationAnnotations } from '../../server/domain/replication';
import { openTestApp } from '../app';

let app: Awaited<ReturnType<typeof openTestApp>>;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['team-a'] };

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
      ...(o.pinned ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [o.pinned] }] }] } } } : {}),
    },
  };
}

beforeAll(async () => {
  app = await openTestApp();
  await app.store.create(pv('pvc-local', { pinned: 'n1', claim: 'data' }));
  await app.store.create(pv('pvc-active', { claim: 'db', annotations: replicationAnnotations({ activeNode: 'n1', epoch: 1, replicas: [{ node: 'n2', state: 'InSync' }] }) }));
  const recent = new Date(Date.now() - 5_000).toISOString();
  await app.store.create(pv('pvc-replica', { claim: 'web', annotations: replicationAnnotations({ activeNode: 'n2', epoch: 1, replicas: [{ node: 'n1', state: 'InSync', lastSyncTime: recent }] }) }));
  await app.store.create(pv('pvc-broken', { annotations: { 'replication.stowage.io/active-node': 'n3', 'replication.stowage.io/replicas': '{"node":"n1"' } }));
});
afterAll(async () => app.close());

describe('LocalVolumeService.nodeVolumes', () => {
  test('each volume with its claim and the copy the node holds; an annotation that does not parse is left out', async () => {
    const res = await app.localVolumes.nodeVolumes(admin, 'n1', { offset: 0, limit: 50 });
    expect(res.items.map((v) => [v.pvName, v.claim, v.copy.role])).toEqual([
      ['pvc-active', 'team-a/db', 'active'],
      ['pvc-local', 'team-a/data', 'only'],
      ['pvc-replica', 'team-a/web', 'replica'],
    ]);
    const replica = res.items.find((v) => v.pvName === 'pvc-replica')!.copy;
    expect(replica).toMatchObject({ role: 'replica', state: 'InSync' });
    expect(replica.role === 'replica' && replica.behindSeconds !== undefined && replica.behindSeconds < 60).toBe(true);
  });

  test('replicas only: the copies it holds for other nodes', async () => {
    const res = await app.localVolumes.nodeVolumes(admin, 'n1', { offset: 0, limit: 50, replicasOnly: true });
    expect(res.items.map((v) => v.pvName)).toEqual(['pvc-replica']);
  });

  test('a developer may not list volumes; a bad node name is refused before any query', async () => {
    await expect(app.localVolumes.nodeVolumes(dev, 'n1', { offset: 0, limit: 50 })).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(app.localVolumes.nodeVolumes(admin, 'N1/../x', { offset: 0, limit: 50 })).rejects.toMatchObject({ code: 'Invalid' });
  });
});
