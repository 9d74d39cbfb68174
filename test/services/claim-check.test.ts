// The claim form's check on a real Postgres: the binder's search, what the class would
// do, field errors from a dry run, and no volume names for developers.
import { ofKind } from '../../server/resources/of-kind';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Principal } from '../../server/domain/authorization';
import type { KubeObject } from '../../server/resources/types';
import { openTestApp } from '../app';

let app: Awaited<ReturnType<typeof openTestApp>>;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['team-a'] };

const claim = (size: string, cls?: string, modes = ['ReadWriteOnce']): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'team-a' },
  spec: { accessModes: modes, resources: { requests: { storage: size } }, ...(cls !== undefined ? { storageClassName: cls } : {}) },
});

beforeAll(async () => {
  app = await openTestApp();
  await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
  await app.store.create({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'local', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true', 'storageclass.kubernetes.io/description': 'Fast disks on this node' } },
    provisioner: 'stowage.io/host-path',
    parameters: { basePath: '/tmp/x' },
  });
  await app.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'manual' }, provisioner: 'kubernetes.io/no-provisioner' });
  const pv = await app.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'disk-5g' },
    spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', hostPath: { path: '/tmp/d' } },
  });
  await app.store.update({ ...pv, status: { phase: 'Available' } }, { subresource: 'status' });
  await app.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'disks' }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'WaitForFirstConsumer' });
  const disk = await app.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'local-disk-1' },
    spec: {
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'disks',
      local: { path: '/mnt/disks/a' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['vm-2'] }] }] } },
    },
  });
  await app.store.update({ ...disk, status: { phase: 'Available' } }, { subresource: 'status' });
});
afterAll(async () => app?.close());

describe('check', () => {
  test('a claim an Available volume fits binds now (admins see which)', async () => {
    expect(await app.claims.check(admin, claim('2Gi', 'manual'))).toMatchObject({ outcome: 'binds', volume: 'disk-5g', capacity: '5Gi' });
  });
  test('a developer is told it binds, not to which volume', async () => {
    const plan = await app.claims.check(dev, claim('2Gi', 'manual'));
    expect(plan.outcome).toBe('binds');
    expect(JSON.stringify(plan)).not.toContain('disk-5g');
  });
  test('too big for every volume: Pending, with the nearest and why, nameless for developers', async () => {
    const plan = await app.claims.check(dev, claim('50Gi', 'manual'));
    expect(plan).toMatchObject({ outcome: 'pending', nearCount: 1, nearest: [{ name: '', reasons: [expect.stringMatching(/5Gi/)] }] });
    expect(plan.summary).toMatch(/cannot provision/);
    expect(JSON.stringify(plan)).not.toContain('disk-5g');
  });
  test('a static WaitForFirstConsumer class with a fitting volume binds once a pod uses it, and says on which node', async () => {
    const plan = await app.claims.check(dev, claim('2Gi', 'disks'));
    expect(plan).toMatchObject({ outcome: 'binds', onFirstUse: true, nodes: ['vm-2'] });
    expect(plan.summary).toMatch(/^Binds when a pod first uses it: 1 existing volume fits on node vm-2/);
    expect(JSON.stringify(plan)).not.toContain('local-disk-1');
    const tooBig = await app.claims.check(dev, claim('20Gi', 'disks'));
    expect(tooBig).toMatchObject({ outcome: 'pending' });
  });
  test('a pool class says on which node the claim would land, from the published capacity', async () => {
    await app.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'pooled' }, provisioner: 'stowage.io/btrfs', parameters: { pool: '/srv/pool' } });
    await app.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'pooled-wffc' }, provisioner: 'stowage.io/btrfs', parameters: { pool: '/srv/pool' }, volumeBindingMode: 'WaitForFirstConsumer' });
    if (!(await app.store.tryGet('Namespace', undefined, 'kube-system'))) await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } });
    const cap = (node: string, cls: string, capacity: string, problem?: string) =>
      app.store.create({
        apiVersion: 'storage.k8s.io/v1',
        kind: 'CSIStorageCapacity',
        metadata: { name: `pool-${node}-${cls}`, namespace: 'kube-system', labels: { 'pool.stowage.io/node': node }, annotations: problem ? { 'pool.stowage.io/problem': problem } : {} },
        storageClassName: cls,
        nodeTopology: { matchLabels: { 'kubernetes.io/hostname': node } },
        capacity,
      });
    for (const cls of ['pooled', 'pooled-wffc']) {
      await cap('vm-1', cls, '3Gi');
      await cap('vm-2', cls, '8Gi');
      await cap('vm-3', cls, '0', 'not a btrfs filesystem');
    }
    expect(await app.claims.check(dev, claim('2Gi', 'pooled'))).toMatchObject({ outcome: 'provisions', node: 'vm-2', summary: expect.stringMatching(/on node vm-2, the one with the most room \(8Gi free/) });
    const wffc = await app.claims.check(dev, claim('4Gi', 'pooled-wffc'));
    expect(wffc).toMatchObject({ outcome: 'provisions', onFirstUse: true, summary: expect.stringMatching(/on the pod's node .*fits on node vm-2 \(8Gi free\)\.$/) });
    const tooBig = await app.claims.check(dev, claim('9Gi', 'pooled'));
    expect(tooBig).toMatchObject({ outcome: 'pending', summary: expect.stringMatching(/vm-3: not a btrfs filesystem/) });
  });
  test('no class named: the default class provisions it on the node', async () => {
    expect(await app.claims.check(dev, claim('50Gi'))).toMatchObject({ outcome: 'provisions', provisioner: 'stowage.io/host-path', className: 'local', node: 'node-1' });
  });
  test('a mode the plugin cannot make is Pending with the reason', async () => {
    const plan = await app.claims.check(dev, claim('1Gi', 'local', ['ReadWriteMany']));
    expect(plan).toMatchObject({ outcome: 'pending', problems: [expect.stringMatching(/cannot make ReadWriteMany/)] });
  });
  test('an invalid claim reports the fields a create would, and writes nothing', async () => {
    const before = await app.store.currentResourceVersion();
    const plan = await app.claims.check(dev, claim('lots', 'local'));
    expect(plan.outcome).toBe('invalid');
    expect(plan.outcome === 'invalid' && plan.causes.map((c) => c.field)).toContain('spec.resources[storage]'); // upstream's name for the storage request
    expect(await app.store.currentResourceVersion()).toBe(before);
  });
  test("a developer sees neither another namespace's claim nor other volumes' labels; an admin sees both", async () => {
    const disk = async (name: string, labels: Record<string, string>, claimRef?: { namespace: string; name: string }) => {
      const v = await app.store.create({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name, labels },
        spec: { capacity: { storage: '20Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', hostPath: { path: `/tmp/${name}` }, ...(claimRef ? { claimRef } : {}) },
      });
      await app.store.update({ ...v, status: { phase: claimRef ? 'Bound' : 'Available' } }, { subresource: 'status' });
    };
    await disk('gold-20g', { tier: 'gold', project: 'team-b-secret-project' });
    await disk('taken-20g', { app: 'db' }, { namespace: 'team-b', name: 'their-data' });
    const base = claim('10Gi', 'manual');
    const selective: KubeObject = { ...base, spec: { ...(base.spec as Record<string, unknown>), selector: { matchLabels: { app: 'db' } } } };
    const seenByAdmin = JSON.stringify(await app.claims.check(admin, selective));
    for (const s of ['tier=gold', 'team-b/their-data']) expect(seenByAdmin).toContain(s);
    const plan = await app.claims.check(dev, selective);
    expect(plan.outcome).toBe('pending');
    const seen = JSON.stringify(plan);
    for (const hidden of ['gold-20g', 'taken-20g', 'tier=gold', 'team-b-secret-project', 'team-b', 'their-data']) expect(seen).not.toContain(hidden);
    expect(seen).toContain('another claim');
    expect(seen).toContain("its labels do not match the claim's selector app=db");
  });

  test('another namespace is Forbidden', async () => {
    await expect(app.claims.check(dev, { ...claim('1Gi'), metadata: { name: 'x', namespace: 'other' } })).rejects.toMatchObject({ code: 'Forbidden' });
  });
});

test('classes carry description, default and what the provisioner makes', async () => {
  const classes = await app.claims.classes(dev);
  expect(classes.find((c) => c.name === 'local')).toMatchObject({
    isDefault: true,
    description: 'Fast disks on this node',
    accessModes: ['ReadWriteOnce', 'ReadWriteOncePod'],
    volumeModes: ['Filesystem'],
  });
  expect(classes.find((c) => c.name === 'manual')).toMatchObject({ isDefault: false, accessModes: ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] });
});

test('a class that makes no volumes is flagged with how many of its volumes are Available (counted for a developer too)', async () => {
  const classes = await app.claims.classes(dev);
  const local = classes.find((c) => c.name === 'local')!;
  expect(local.staticOnly).toBe(false);
  expect(local).not.toHaveProperty('availableVolumes');
  // Counted from the volumes themselves: Available, unclaimed, of the class (other tests here add some).
  const pvs = ofKind((await app.store.list('PersistentVolume')).items, 'PersistentVolume');
  const available = pvs.filter((v) => v.spec?.storageClassName === 'manual' && !v.spec.claimRef && v.status?.phase === 'Available').length;
  expect(available).toBeGreaterThan(0);
  expect(classes.find((c) => c.name === 'manual')).toMatchObject({ staticOnly: true, availableVolumes: available });
  // A class with no volume of its own counts 0.
  await app.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'static-empty' }, provisioner: 'kubernetes.io/no-provisioner' });
  expect((await app.claims.classes(dev)).find((c) => c.name === 'static-empty')).toMatchObject({ staticOnly: true, availableVolumes: 0 });
});
