// The reads the controllers and the node agents' server side use instead of one read per
// object or a whole list per key: several objects by key in one read, the pods on a node
// by the indexed column, the pods naming a claim, and whole small-kind lists kept until
// the watch sees a change of the kind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KindLists } from '../../server/controllers/runtime/kind-lists';
import { podsNamingClaim } from '../../server/store/consumer-queries';
import { openTestStore, type TestStore } from '../db';

let t: TestStore;

const claim = (ns: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { namespace: ns, name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
});
const pod = (ns: string, name: string, claims: string[], nodeName?: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace: ns, name },
  spec: {
    ...(nodeName ? { nodeName } : {}),
    containers: [{ name: 'c', image: 'busybox' }],
    volumes: claims.map((c, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName: c } })),
  },
});

beforeAll(async () => {
  t = await openTestStore();
  for (const ns of ['ns-a', 'ns-b']) await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await t.store.create(claim('ns-a', 'data'));
  await t.store.create(claim('ns-a', 'logs'));
  await t.store.create(claim('ns-b', 'data'));
  await t.store.create(pod('ns-a', 'uses-data', ['data']));
  await t.store.create(pod('ns-a', 'uses-both', ['logs', 'data'], 'node-1'));
  await t.store.create(pod('ns-a', 'uses-logs', ['logs'], 'node-2'));
  await t.store.create(pod('ns-b', 'other-ns', ['data'], 'node-1'));
  await t.store.create(pod('ns-a', 'no-claims', [], 'node-1'));
});
afterAll(() => t.close());

describe('tryGetMany', () => {
  it('answers the objects that exist, keyed namespace/name; missing, NUL and other-namespace keys are absent', async () => {
    const got = await t.store.tryGetMany('PersistentVolumeClaim', [
      { namespace: 'ns-a', name: 'data' },
      { namespace: 'ns-b', name: 'data' },
      { namespace: 'ns-a', name: 'missing' },
      { namespace: 'ns-a', name: 'da\u0000ta' },
      { namespace: 'ns-b', name: 'logs' },
    ]);
    expect([...got.keys()].sort()).toEqual(['ns-a/data', 'ns-b/data']);
    expect(got.get('ns-b/data')?.metadata.namespace).toBe('ns-b');
  });

  it('cluster-scoped objects are keyed with an empty namespace; no keys, no read', async () => {
    await t.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } });
    const got = await t.store.tryGetMany('Node', [{ name: 'node-1' }, { name: 'node-9' }]);
    expect([...got.keys()]).toEqual(['/node-1']);
    expect((await t.store.tryGetMany('Node', [])).size).toBe(0);
  });
});

describe('onNode', () => {
  it('answers the pods placed on the node, in namespace and name order, up to the limit', async () => {
    const names = (await t.store.onNode('Pod', 'node-1', 10)).map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
    expect(names).toEqual(['ns-a/no-claims', 'ns-a/uses-both', 'ns-b/other-ns']);
    expect(await t.store.onNode('Pod', 'node-1', 1)).toHaveLength(1);
    expect(await t.store.onNode('Pod', 'node-\u0000', 10)).toEqual([]);
  });
});

describe('podsNamingClaim', () => {
  it('finds the pods of the namespace whose volumes name the claim, and only the unplaced ones when asked', async () => {
    const names = async (ns: string, c: string, unscheduled = false) => (await podsNamingClaim(t.store, ns, c, { unscheduled })).map((p) => p.metadata.name);
    expect(await names('ns-a', 'data')).toEqual(['uses-both', 'uses-data']);
    expect(await names('ns-a', 'data', true)).toEqual(['uses-data']);
    expect(await names('ns-a', 'logs')).toEqual(['uses-both', 'uses-logs']);
    expect(await names('ns-b', 'data')).toEqual(['other-ns']);
    expect(await names('ns-a', 'nothing')).toEqual([]);
  });
});

describe('KindLists', () => {
  it('keeps a list until a change of its kind is seen, then lists again', async () => {
    const lists = new KindLists(t.store, ['StorageClass', 'Node']);
    const sc = (name: string) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'example.com/x' });
    await t.store.create(sc('first'));
    const names = async () => (await lists.get('StorageClass')).map((c) => c.metadata.name);
    expect(await names()).toEqual(['first']);
    await t.store.create(sc('second'));
    expect(await names()).toEqual(['first']); // kept: no change seen yet
    lists.changed('Node');
    expect(await names()).toEqual(['first']); // another kind's change keeps it
    lists.changed('StorageClass');
    expect(await names()).toEqual(['first', 'second']);
  });

  it('drops a list older than its age limit', async () => {
    const lists = new KindLists(t.store, ['Node'], 0);
    expect((await lists.get('Node')).map((n) => n.metadata.name)).toContain('node-1');
    await t.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-late' } });
    expect((await lists.get('Node')).map((n) => n.metadata.name)).toContain('node-late');
  });
});
