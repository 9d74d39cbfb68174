// The garbage collector on a real Postgres with the controllers running: a Node's local PVs
// (owner reference from setPVOwnerRef) go when the Node goes, held by their protection
// finalizers as upstream; an object with two owners stays while one remains; an owner
// reference whose uid is not the current object's counts as gone; propagationPolicy Orphan
// lets the dependents keep living without the owner; the start-up pass collects what was
// orphaned while no collector ran.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildLocalVolume } from '../../server/controllers/local-volume/volume';
import { startControllers, type RunningControllers } from '../../server/controllers/start';
import type { AppContext } from '../../server/wiring/context';
import type { KubeObject } from '../../server/resources/types';
import { ensureNamespaces, openApp, waitFor } from './fixtures';

let ctx: { url: string; app: AppContext };
let running: RunningControllers | undefined;
const NS = 'gc';

beforeAll(async () => {
  ctx = await openApp();
  await ensureNamespaces(ctx.app, NS);
});
afterAll(async () => {
  await running?.stop();
  await ctx?.app.close();
});

const start = async () => {
  // Without the local-volume manager: no agent reports these disks, and it would withdraw the PVs.
  running ??= await startControllers({ app: ctx.app, connectionString: ctx.url, leaderElection: false, pendingGraceMs: 0, nodeLifecycle: false, localVolumes: false });
};
const store = () => ctx.app.store;
const node = (name: string) => store().create({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } } });
const ref = (o: KubeObject) => ({ apiVersion: 'v1', kind: o.kind, name: o.metadata.name!, uid: o.metadata.uid! });

function localPv(entry: string, owner: KubeObject) {
  return buildLocalVolume(
    { nodeName: owner.metadata.name!, className: 'local-gc', entryName: entry, hostPath: `/mnt/gc/${entry}`, pvName: `local-pv-${entry}`, volumeMode: 'Filesystem', capacityBytes: String(10 * 1024 ** 3) },
    { provisionerName: `local-volume-provisioner-${owner.metadata.name}-${owner.metadata.uid}`, reclaimPolicy: 'Retain', ownerNode: { name: owner.metadata.name!, uid: owner.metadata.uid! } },
  );
}

const configMap = (name: string, owners: KubeObject[]) =>
  store().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, ownerReferences: owners.map(ref) }, data: {} });

const gone = (kind: string, namespace: string | undefined, name: string) => async () => !(await store().tryGet(kind, namespace, name));

describe('garbage collector', () => {
  it('collects on start-up what lost its owner while no collector ran', async () => {
    const owner = await configMap('startup-owner', []);
    await configMap('startup-dependent', [owner]);
    await store().delete('ConfigMap', NS, 'startup-owner');
    await start();
    await waitFor('the dependent collected', gone('ConfigMap', NS, 'startup-dependent'));
  });

  it("a Node's local PVs go with it, each held by its finalizers (a bound one by pv-protection); another node's stay", async () => {
    await start();
    const a = await node('gc-node-a');
    const b = await node('gc-node-b');
    await store().create(localPv('a1', a));
    await store().create(localPv('a2', a));
    await store().create(localPv('b1', b));
    await store().create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'uses-a2', namespace: NS },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'local-gc', volumeName: 'local-pv-a2' },
    });
    await waitFor('a2 Bound', async () => (await store().get('PersistentVolume', undefined, 'local-pv-a2')).status?.phase === 'Bound');

    await store().delete('Node', undefined, 'gc-node-a');
    const marked = (name: string) =>
      waitFor(`${name} marked deleted`, async () => {
        const pv = await store().get('PersistentVolume', undefined, name);
        return pv.metadata.deletionTimestamp ? pv : undefined;
      });
    // Deleted as any PV is: each waits for its finalizers (the manager's cleanup one; a bound one pv-protection too).
    expect((await marked('local-pv-a1')).metadata.finalizers).toContain('local.stowage.io/cleanup');
    expect((await marked('local-pv-a2')).metadata.finalizers).toContain('kubernetes.io/pv-protection');
    const b1 = await store().get('PersistentVolume', undefined, 'local-pv-b1');
    expect(b1.metadata.deletionTimestamp).toBeUndefined();
  });

  it('an object with two owners stays while one remains (the gone one is dropped from its references), and goes with the last', async () => {
    await start();
    const one = await configMap('owner-one', []);
    const two = await configMap('owner-two', []);
    await configMap('two-owners', [one, two]);
    await store().delete('ConfigMap', NS, 'owner-one');
    const left = await waitFor('the reference to the gone owner dropped', async () => {
      const cm = await store().get('ConfigMap', NS, 'two-owners');
      return cm.metadata.ownerReferences?.length === 1 ? cm : undefined;
    });
    expect(left.metadata.ownerReferences).toEqual([ref(two)]);
    expect(left.metadata.deletionTimestamp).toBeUndefined();
    await store().delete('ConfigMap', NS, 'owner-two');
    await waitFor('the dependent collected', gone('ConfigMap', NS, 'two-owners'));
  });

  it("a chain: the collector's own deletion of a dependent brings that dependent's dependents (no echo of it is handed back)", async () => {
    await start();
    const root = await configMap('chain-root', []);
    const middle = await configMap('chain-middle', [root]);
    await configMap('chain-leaf', [middle]);
    await store().delete('ConfigMap', NS, 'chain-root');
    await waitFor('the middle collected', gone('ConfigMap', NS, 'chain-middle'));
    // The collector has no resync: only the deletion it made itself can queue the leaf.
    await waitFor('the leaf collected', gone('ConfigMap', NS, 'chain-leaf'), 10_000);
  });

  it('an owner reference whose uid is not the current object of that name counts as gone', async () => {
    await start();
    const current = await configMap('renamed-owner', []);
    await store().create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'stale-ref', namespace: NS, ownerReferences: [{ ...ref(current), uid: '00000000-0000-4000-8000-000000000000' }] },
    });
    await waitFor('the dependent collected', gone('ConfigMap', NS, 'stale-ref'));
    expect(await store().tryGet('ConfigMap', NS, 'renamed-owner')).toBeDefined();
  });

  it('an owner of a kind Stowage does not serve is never taken as gone', async () => {
    await start();
    await store().create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owned-by-deployment', namespace: NS, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: '00000000-0000-4000-8000-000000000001' }] },
    });
    // A marker collected after it proves the collector looked at both.
    const marker = await configMap('marker-owner', []);
    await configMap('marker', [marker]);
    await store().delete('ConfigMap', NS, 'marker-owner');
    await waitFor('the marker collected', gone('ConfigMap', NS, 'marker'));
    expect(await store().tryGet('ConfigMap', NS, 'owned-by-deployment')).toBeDefined();
  });

  it('propagationPolicy Orphan: the owner goes once its dependents let go of it; they stay', async () => {
    await start();
    const owner = await node('gc-node-orphan');
    await store().create(localPv('o1', owner));
    const marked = await store().delete('Node', undefined, 'gc-node-orphan', { propagationPolicy: 'Orphan' });
    expect(marked.deleted).toBe(false);
    expect(marked.object.metadata.finalizers).toContain('orphan');
    await waitFor('the node gone', gone('Node', undefined, 'gc-node-orphan'));
    const pv = await store().get('PersistentVolume', undefined, 'local-pv-o1');
    expect(pv.metadata.ownerReferences).toBeUndefined();
    expect(pv.metadata.deletionTimestamp).toBeUndefined();
  });
});
