// ListService on a real Postgres: paging, sorting and filtering in SQL, authorization of
// pages, bulk actions, the one default StorageClass.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Principal } from '../../server/domain/authorization';
import type { KubeObject } from '../../server/resources/types';
import { isDefaultClass } from '../../server/services/lists';
import { ofKind } from '../../server/resources/of-kind';
import { openTestApp } from '../app';

let app: Awaited<ReturnType<typeof openTestApp>>;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['team-a'] };

const SIZES = ['1Gi', '5Gi', '2Gi', '10Gi', '500Mi'];
const CLASSES = ['fast', 'slow'];

function pv(i: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `pv-${String(i).padStart(3, '0')}`, labels: { tier: i % 2 ? 'odd' : 'even', 'app.io/n': String(i) } },
    spec: {
      capacity: { storage: SIZES[i % SIZES.length] },
      accessModes: ['ReadWriteOnce'],
      storageClassName: CLASSES[i % CLASSES.length],
      persistentVolumeReclaimPolicy: 'Retain',
      hostPath: { path: `/tmp/pv-${i}` },
    },
  };
}

async function setPhase(name: string, phase: string) {
  const o = await app.store.get('PersistentVolume', undefined, name);
  await app.store.update({ ...o, status: { ...o.status, phase } }, { subresource: 'status' });
}

beforeAll(async () => {
  app = await openTestApp();
  for (const ns of ['team-a', 'team-b']) await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (let i = 0; i < 25; i++) await app.store.create(pv(i));
  await setPhase('pv-003', 'Released');
  await setPhase('pv-004', 'Failed');
  for (const [ns, n] of [['team-a', 3], ['team-b', 2]] as const) {
    for (let i = 0; i < n; i++) {
      await app.store.create({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: `c-${i}`, namespace: ns },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'none' },
      });
    }
  }
});
afterAll(async () => app?.close());

const names = (items: KubeObject[]) => items.map((o) => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name));

describe('page', () => {
  test('pages by offset with the total of all pages', async () => {
    const first = await app.lists.page(admin, { kind: 'PersistentVolume', limit: 10 });
    const third = await app.lists.page(admin, { kind: 'PersistentVolume', limit: 10, offset: 20 });
    expect(first.total).toBe(25);
    expect(names(first.items)).toEqual(Array.from({ length: 10 }, (_, i) => `pv-${String(i).padStart(3, '0')}`));
    expect(names(third.items)).toEqual(['pv-020', 'pv-021', 'pv-022', 'pv-023', 'pv-024']);
    expect(BigInt(first.resourceVersion)).toBeGreaterThan(0n);
  });

  test('sorts by capacity in bytes, not as text', async () => {
    const res = await app.lists.page(admin, { kind: 'PersistentVolume', sort: { key: 'capacity', dir: 'desc' }, limit: 25 });
    const sizes = ofKind(res.items, 'PersistentVolume').map((o) => o.spec!.capacity!.storage);
    expect(sizes.slice(0, 5)).toEqual(['10Gi', '10Gi', '10Gi', '10Gi', '10Gi']);
    expect(sizes.at(-1)).toBe('500Mi');
  });

  test.each([
    { name: 'label selector', input: { labelSelector: 'tier=odd,app.io/n in (1,3,4)' }, want: ['pv-001', 'pv-003'] },
    { name: 'label Gt', input: { labelSelector: 'app.io/n>22' }, want: ['pv-023', 'pv-024'] },
    { name: 'phase', input: { fields: { phase: ['Released', 'Failed'] } }, want: ['pv-003', 'pv-004'] },
    { name: 'class and text', input: { fields: { storageClass: ['slow'] }, text: 'pv-01' }, want: ['pv-011', 'pv-013', 'pv-015', 'pv-017', 'pv-019'] },
    { name: 'text with LIKE characters matches literally', input: { text: 'pv_0' }, want: [] },
    { name: 'text is case-insensitive and matches labels and phase', input: { text: 'RELEASED' }, want: ['pv-003'] },
    { name: 'every word must match', input: { text: 'odd pv-00' }, want: ['pv-001', 'pv-003', 'pv-005', 'pv-007', 'pv-009'] },
  ])('filters: $name', async ({ input, want }) => {
    const res = await app.lists.page(admin, { kind: 'PersistentVolume', limit: 100, ...input });
    expect(names(res.items)).toEqual(want);
    expect(res.total).toBe(want.length);
  });

  test('a text search pages with the total of all its matches, also past the last page', async () => {
    const page = await app.lists.page(admin, { kind: 'PersistentVolume', text: 'pv-0', limit: 4, offset: 8 });
    expect(names(page.items)).toEqual(['pv-008', 'pv-009', 'pv-010', 'pv-011']);
    expect(page.total).toBe(25);
    const past = await app.lists.page(admin, { kind: 'PersistentVolume', text: 'pv-0', limit: 4, offset: 40 });
    expect(past.items).toEqual([]);
    expect(past.total).toBe(25);
  });

  test('a developer pages only their namespaces; volumes are forbidden', async () => {
    const res = await app.lists.page(dev, { kind: 'PersistentVolumeClaim' });
    expect(names(res.items)).toEqual(['team-a/c-0', 'team-a/c-1', 'team-a/c-2']);
    expect(res.total).toBe(3);
    await expect(app.lists.page(dev, { kind: 'PersistentVolumeClaim', namespace: 'team-b' })).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(app.lists.page(dev, { kind: 'PersistentVolume' })).rejects.toMatchObject({ code: 'Forbidden' });
  });

  test('an invalid label selector is a BadRequest', async () => {
    await expect(app.lists.page(admin, { kind: 'PersistentVolume', labelSelector: 'a in (' })).rejects.toMatchObject({ code: 'BadRequest' });
  });
});

describe('bulk actions', () => {
  test('label sets and removes a label on each object', async () => {
    const refs = [{ name: 'pv-010' }, { name: 'pv-012' }];
    expect(await app.lists.label(admin, 'PersistentVolume', refs, 'team', 'blue')).toEqual({ done: ['pv-010', 'pv-012'], skipped: [] });
    expect(names((await app.lists.page(admin, { kind: 'PersistentVolume', labelSelector: 'team=blue' })).items)).toEqual(['pv-010', 'pv-012']);
    await app.lists.label(admin, 'PersistentVolume', refs, 'team', null);
    expect((await app.lists.page(admin, { kind: 'PersistentVolume', labelSelector: 'team' })).total).toBe(0);
  });

  test.each([{ key: '__proto__' }, { key: 'bad key!' }, { key: 'constructor/x/y' }])('label key $key is refused and nothing is written', async ({ key }) => {
    const before = await app.store.currentResourceVersion();
    await expect(app.lists.label(admin, 'PersistentVolume', [{ name: 'pv-010' }], key, 'x')).rejects.toMatchObject({ code: 'BadRequest' });
    expect(await app.store.currentResourceVersion()).toBe(before);
  });

  test('bulk delete leaves Bound volumes alone', async () => {
    await setPhase('pv-024', 'Bound');
    const res = await app.lists.delete(admin, 'PersistentVolume', [{ name: 'pv-024' }, { name: 'pv-023' }]);
    expect(res.done).toEqual(['pv-023']);
    expect(res.skipped[0]).toMatchObject({ name: 'pv-024', reason: expect.stringMatching(/in use/) });
    expect(await app.store.tryGet('PersistentVolume', undefined, 'pv-024')).toBeDefined();
    expect(await app.store.tryGet('PersistentVolume', undefined, 'pv-023')).toBeUndefined();
  });
});

describe('the default StorageClass', () => {
  const sc = (name: string, isDefault: boolean): KubeObject => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name, annotations: isDefault ? { 'storageclass.kubernetes.io/is-default-class': 'true' } : {} },
    provisioner: 'example.com/ext',
  });
  const defaults = async () =>
    (await app.store.list('StorageClass')).items.filter(isDefaultClass).map((o) => o.metadata.name);

  test('moving the default leaves exactly one, in one transaction', async () => {
    // The API tolerates several defaults, as upstream does.
    await app.store.create(sc('gold', true));
    await app.store.create(sc('silver', true));
    await app.store.create(sc('bronze', false));
    expect(await defaults()).toEqual(['gold', 'silver']);
    const before = await app.store.currentResourceVersion();
    expect(await app.lists.setDefaultClass(admin, 'bronze', true)).toEqual({ defaults: ['bronze'] });
    expect(await defaults()).toEqual(['bronze']);
    // All three writes carry consecutive versions of one commit.
    const after = await app.store.currentResourceVersion();
    expect(after - before).toBe(3n);
  });

  test('a developer may not move it; an unknown class changes nothing', async () => {
    await expect(app.lists.setDefaultClass(dev, 'gold', true)).rejects.toMatchObject({ code: 'Forbidden' });
    await expect(app.lists.setDefaultClass(admin, 'nope', true)).rejects.toMatchObject({ code: 'NotFound' });
    expect(await defaults()).toEqual(['bronze']);
  });

  test('switching the default off takes only that class\'s mark away', async () => {
    await app.store.create(sc('copper', true));
    expect(await app.lists.setDefaultClass(admin, 'bronze', false)).toEqual({ defaults: ['copper'] });
    expect(await defaults()).toEqual(['copper']);
    // Switching on the class that is already the only default writes nothing.
    const before = await app.store.currentResourceVersion();
    await app.lists.setDefaultClass(admin, 'copper', true);
    expect(await app.store.currentResourceVersion()).toBe(before);
  });
});

describe('health', () => {
  test('counts volumes by phase and capacity per class; developers see only their claims', async () => {
    const h = await app.lists.health(admin);
    expect(h.phases.PersistentVolume.Failed).toBe(1);
    expect(h.phases.PersistentVolumeClaim.Pending).toBe(5);
    expect(h.classes.find((c) => c.storageClass === 'fast')?.volumes).toBeGreaterThan(0);
    const d = await app.lists.health(dev);
    expect(d.seeVolumes).toBe(false);
    expect(d.phases.PersistentVolumeClaim.Pending).toBe(3);
    expect(d.phases.PersistentVolume).toEqual({});
  });
});

describe('Pending claims waiting for a pod', () => {
  test('are counted apart on the home page and filtered apart in the claims list', async () => {
    await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-w' } });
    const reasons: [string, string | undefined][] = [['late-1', 'WaitForFirstConsumer'], ['late-2', 'WaitForPodScheduled'], ['stuck-1', 'NoMatchingVolume'], ['fresh-1', undefined]];
    for (const [name, reason] of reasons) {
      const c = await app.store.create({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name, namespace: 'team-w' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'late' },
      });
      const conditions = reason ? [{ type: 'Bindable', status: 'False', reason, message: 'waiting' }] : [];
      await app.store.update({ ...c, status: { phase: 'Pending', conditions } }, { subresource: 'status' });
    }
    const waiting = await app.lists.page(admin, { kind: 'PersistentVolumeClaim', namespace: 'team-w', pending: 'waiting' });
    expect(names(waiting.items).sort()).toEqual(['team-w/late-1', 'team-w/late-2']);
    const stuck = await app.lists.page(admin, { kind: 'PersistentVolumeClaim', namespace: 'team-w', pending: 'stuck' });
    expect(names(stuck.items).sort()).toEqual(['team-w/fresh-1', 'team-w/stuck-1']);
    const h = await app.lists.health(admin);
    expect(h.waitingClaims).toBe(2);
    // Developers count only their namespaces' claims.
    expect((await app.lists.health(dev)).waitingClaims).toBe(0);
    });
});

// Last: it binds claims, which the counts above do not expect.
describe('used', () => {
  test('sorts volumes and claims by used bytes, and a page of claims carries its volumes\' usage in one answer', async () => {
    const used = async (name: string, bytes: string, claim?: { namespace: string; name: string }) => {
      const o = await app.store.get('PersistentVolume', undefined, name);
      const annotations = { ...o.metadata.annotations, 'stowage.io/used-bytes': bytes, 'stowage.io/used-bytes-time': '2026-11-25T00:00:00Z' };
      const spec = claim ? { ...o.spec, claimRef: { ...claim, kind: 'PersistentVolumeClaim' } } : o.spec;
      await app.store.update({ ...o, metadata: { ...o.metadata, annotations }, spec });
    };
    const bind = async (ns: string, name: string, volume: string) => {
      const c = await app.store.get('PersistentVolumeClaim', ns, name);
      const b = await app.store.update({ ...c, spec: { ...c.spec, volumeName: volume } });
      await app.store.update({ ...b, status: { phase: 'Bound', capacity: { storage: '1Gi' } } }, { subresource: 'status' });
    };
    await used('pv-020', '300', { namespace: 'team-a', name: 'c-1' });
    await used('pv-021', '9000000000', { namespace: 'team-b', name: 'c-0' });
    await used('pv-022', 'not a number');
    await bind('team-a', 'c-1', 'pv-020');
    await bind('team-b', 'c-0', 'pv-021');
    const vols = await app.lists.page(admin, { kind: 'PersistentVolume', sort: { key: 'used', dir: 'desc' }, limit: 3 });
    expect(names(vols.items)).toEqual(['pv-021', 'pv-020', 'pv-024']);
    const claims = await app.lists.page(admin, { kind: 'PersistentVolumeClaim', sort: { key: 'used', dir: 'desc' } });
    expect(names(claims.items).slice(0, 2)).toEqual(['team-b/c-0', 'team-a/c-1']);
    expect(claims.used).toEqual({ 'team-b/c-0': { bytes: '9000000000', partial: false }, 'team-a/c-1': { bytes: '300', partial: false } });
    const asc = await app.lists.page(admin, { kind: 'PersistentVolumeClaim', sort: { key: 'used', dir: 'asc' } });
    expect(names(asc.items).slice(-2)).toEqual(['team-a/c-1', 'team-b/c-0']);
    // A developer's page: their namespace's claims and their usage only.
    const mine = await app.lists.page(dev, { kind: 'PersistentVolumeClaim', sort: { key: 'used', dir: 'desc' } });
    expect(mine.used).toEqual({ 'team-a/c-1': { bytes: '300', partial: false } });
    await expect(app.lists.page(admin, { kind: 'StorageClass', sort: { key: 'used', dir: 'asc' } })).rejects.toThrow(/cannot sort by "used" \(StorageClass\)/);
  });
});

// After `used`: it reuses that block's bound claims (team-a/c-1 on pv-020, team-b/c-0 on pv-021).
describe('replication', () => {
  test("a page of claims carries each Bound claim's replicated volume's replication annotations, and no one else's", async () => {
    const replicas = JSON.stringify([{ node: 'node-b', state: 'Behind', lastSyncTime: '2026-11-25T00:00:00Z' }]);
    const o = await app.store.get('PersistentVolume', undefined, 'pv-020');
    const annotations = { ...o.metadata.annotations, 'replication.stowage.io/active-node': 'node-a', 'replication.stowage.io/epoch': '3', 'replication.stowage.io/replicas': replicas };
    await app.store.update({ ...o, metadata: { ...o.metadata, annotations } });
    const want = { 'team-a/c-1': { 'replication.stowage.io/active-node': 'node-a', 'replication.stowage.io/epoch': '3', 'replication.stowage.io/replicas': replicas } };
    expect((await app.lists.page(admin, { kind: 'PersistentVolumeClaim' })).replication).toEqual(want);
    expect((await app.lists.page(dev, { kind: 'PersistentVolumeClaim' })).replication).toEqual(want);
    expect((await app.lists.page(admin, { kind: 'PersistentVolumeClaim', namespace: 'team-b' })).replication).toEqual({});
  });
});

// Last: it adds volumes.
describe('lagging replicas on the home page', () => {
  test('volumes with a copy Behind or Unreachable, bounded, by name; not for developers', async () => {
    const replicated = async (name: string, replicas: unknown[]) => {
      await app.store.create({
        ...pv(900),
        metadata: { name, annotations: { 'replication.stowage.io/active-node': 'node-a', 'replication.stowage.io/epoch': '1', 'replication.stowage.io/replicas': JSON.stringify(replicas) } },
      });
    };
    await replicated('repl-ok', [{ node: 'node-b', state: 'InSync' }]);
    await replicated('repl-rebuilding', [{ node: 'node-b', state: 'Rebuilding' }]);
    await replicated('repl-unreachable', [{ node: 'node-b', state: 'Unreachable' }]);
    for (let i = 0; i < 21; i++) await replicated(`repl-behind-${String(i).padStart(2, '0')}`, [{ node: 'node-c', state: 'Behind', lastSyncTime: '2026-11-25T00:00:00Z' }]);
    const h = await app.lists.health(admin);
    const shown = h.laggingReplicas!.volumes.map((v) => v.name);
    expect(shown).toHaveLength(20);
    // pv-020 is Behind since the block above.
    expect(shown.slice(0, 2)).toEqual(['pv-020', 'repl-behind-00']);
    expect(shown).not.toContain('repl-ok');
    expect(shown).not.toContain('repl-rebuilding');
    expect(h.laggingReplicas!.more).toBe(true);
    expect(h.laggingReplicas!.volumes[0].annotations['replication.stowage.io/active-node']).toBe('node-a');
    expect((await app.lists.health(dev)).laggingReplicas).toBeUndefined();
    // Fewer than the bound: all of them, nothing more.
    for (let i = 0; i < 21; i++) await app.store.delete('PersistentVolume', undefined, `repl-behind-${String(i).padStart(2, '0')}`);
    const after = await app.lists.health(admin);
    expect(after.laggingReplicas).toEqual({ volumes: [expect.objectContaining({ name: 'pv-020' }), expect.objectContaining({ name: 'repl-unreachable' })], more: false });
  });
});
