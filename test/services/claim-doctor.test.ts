// The claim page on a real Postgres: used bytes of a host-path volume measured in real
// temporary directories (bounded, rate-limited, written only when changed) and shown on its
// claim; the doctor's fixes applied, and refused for developers and stale previews.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { logger } from '../../server/services/logger';
import { syncVolumeUsage } from '../../server/controllers/volume-usage/volume-usage';
import type { ReconcileContext } from '../../server/controllers/runtime/controller';
import type { Principal } from '../../server/domain/authorization';
import { AssetStore } from '../../server/store/provisioned-assets';
import { createHostPathPlugin } from '../../server/provisioners/host-path';
import { createRealOs } from '../../server/provisioners/os';
import { provisionOptionsFor } from '../../server/provisioners/plugin';
import { testClass } from '../../server/provisioners/testing';
import type { PersistentVolumeClaim } from '../../server/resources/persistent-volume-claim/schema';
import type { KubeObject } from '../../server/resources/types';
import { ClaimDoctorService } from '../../server/services/claim-doctor';
import { EventRecorder } from '../../server/services/event-recorder';
import { PodPublishing } from '../../server/services/pod-publishing';
import { openTestApp } from '../app';
import { annUsedBytes, annUsedBytesTime } from '../../server/domain/well-known/annotations';
import { btrfsProvisioner, hostPathProvisioner } from '../../server/domain/well-known/provisioners';
import { annPoolFree, annPoolPath, annPoolProblem, annPoolTotal } from '../../server/domain/well-known/annotations';
import { labelHostname, labelPoolNode } from '../../server/domain/well-known/labels';

let app: Awaited<ReturnType<typeof openTestApp>>;
let doctor: ClaimDoctorService;
let dir: string;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['team-a'] };
const ctx: ReconcileContext = { controller: 'test', signal: new AbortController().signal, log: logger, enqueue: () => {}, isQueued: () => false, wrote: () => {} };

let n = 0;
const unique = (p: string) => `${p}-${++n}-${randomUUID().slice(0, 6)}`;

async function claim(o: { cls?: string; size?: string; selector?: object; finalizers?: string[] } = {}): Promise<PersistentVolumeClaim> {
  return app.objects.create(admin, {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: unique('data'), namespace: 'team-a', labels: { app: 'web' }, ...(o.finalizers ? { finalizers: o.finalizers } : {}) },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: o.size ?? '1Gi' } }, storageClassName: o.cls ?? 'manual', ...(o.selector ? { selector: o.selector } : {}) },
  });
}

async function availablePv(name: string, o: { size?: string; labels?: Record<string, string> } = {}): Promise<KubeObject> {
  const pv = await app.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, ...(o.labels ? { labels: o.labels } : {}) },
    spec: { capacity: { storage: o.size ?? '2Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', hostPath: { path: `/tmp/${name}` } },
  });
  return app.store.update({ ...pv, status: { phase: 'Available' } }, { subresource: 'status' });
}

beforeAll(async () => {
  app = await openTestApp();
  doctor = new ClaimDoctorService(app.objects);
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-usage-'));
  await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
  await app.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'manual' }, provisioner: 'kubernetes.io/no-provisioner' });
  await app.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: hostPathProvisioner, parameters: { basePath: path.join(dir, 'fast') } });
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
  await app?.close();
});

describe('used bytes of a host-path volume', () => {
  test('measured in a real directory, written once, not again while young or unchanged, shown on the claim', async () => {
    const assets = new AssetStore(app.store);
    const plugin = createHostPathPlugin({ os: createRealOs('node-1'), assets, nodeName: 'node-1' });
    const c = await claim({ cls: 'fast' });
    const opts = provisionOptionsFor(c, testClass(hostPathProvisioner, { basePath: path.join(dir, 'fast') }));
    const made = await plugin.provision(opts);
    expect(made.error).toBeUndefined();
    const volDir: string = (made.volume!.source as { hostPath: { path: string } }).hostPath.path;
    await fs.writeFile(path.join(volDir, 'a.bin'), Buffer.alloc(256 * 1024, 1));
    await fs.mkdir(path.join(volDir, 'sub'));
    await fs.writeFile(path.join(volDir, 'sub', 'b.bin'), Buffer.alloc(128 * 1024, 1));
    const pv = await app.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: opts.pvName, annotations: { 'pv.kubernetes.io/provisioned-by': hostPathProvisioner } },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'fast', hostPath: { path: volDir, type: 'Directory' }, claimRef: { kind: 'PersistentVolumeClaim', namespace: 'team-a', name: c.metadata.name, uid: c.metadata.uid } },
    });
    await app.store.update({ ...pv, status: { phase: 'Bound' } }, { subresource: 'status' });
    const bound = await app.store.update({ ...c, spec: { ...c.spec, volumeName: opts.pvName } });
    await app.store.update({ ...bound, status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] } }, { subresource: 'status' });

    let now = Date.parse('2026-03-01T00:00:00Z');
    const d = { store: app.store, plugins: new Map([[plugin.name, plugin]]), assets, node: 'node-1' };
    const o = { minIntervalMs: 60_000, now: () => now, budget: { ms: 5000, entries: 10_000 } };
    expect(await syncVolumeUsage(d, ctx, opts.pvName, o)).toBe('written');
    const first = await app.store.get('PersistentVolume', undefined, opts.pvName);
    const bytes = BigInt(first.metadata.annotations![annUsedBytes]);
    expect(bytes).toBeGreaterThanOrEqual(384n * 1024n);
    expect(bytes).toBeLessThan(1024n * 1024n);
    expect(first.metadata.annotations![annUsedBytesTime]).toBe('2026-03-01T00:00:00Z');

    // Young: not measured at all. Unchanged after the interval: not written.
    now += 10_000;
    expect(await syncVolumeUsage(d, ctx, opts.pvName, o)).toBe('recent');
    now += 120_000;
    expect(await syncVolumeUsage(d, ctx, opts.pvName, o)).toBe('unchanged');
    expect((await app.store.get('PersistentVolume', undefined, opts.pvName)).metadata.resourceVersion).toBe(first.metadata.resourceVersion);

    // A tiny entry budget: the walk stops early and says so.
    await fs.writeFile(path.join(volDir, 'c.bin'), Buffer.alloc(64 * 1024, 1));
    expect(await syncVolumeUsage(d, ctx, opts.pvName, { ...o, budget: { ms: 5000, entries: 1 } })).toBe('written');
    expect((await app.store.get('PersistentVolume', undefined, opts.pvName)).metadata.annotations!['stowage.io/used-bytes-partial']).toBe('true');

    now += 120_000;
    expect(await syncVolumeUsage(d, ctx, opts.pvName, o)).toBe('written');
    const view = await doctor.overview(dev, 'team-a', c.metadata.name!);
    expect(view.capacity).toMatchObject({ requested: '1Gi', provisioned: '1Gi', partial: false });
    expect(BigInt(view.capacity.usedBytes!)).toBeGreaterThanOrEqual(448n * 1024n);
    expect(view.capacity.percent).toBeGreaterThan(0);
    expect(view.fixes).toEqual([]);
  });

  test("a local volume's used bytes from its node agent's pod report: kept, rate-limited, hostile values refused", async () => {
    const c = await claim();
    const pvName = unique('local');
    const pv = await app.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: pvName },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'manual',
        local: { path: '/mnt/disks/a' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }] } },
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'team-a', name: c.metadata.name, uid: c.metadata.uid },
      },
    });
    await app.store.update({ ...pv, status: { phase: 'Bound' } }, { subresource: 'status' });
    const bound = await app.store.update({ ...c, spec: { ...c.spec, volumeName: pvName } });
    await app.store.update({ ...bound, status: { phase: 'Bound', capacity: { storage: '1Gi' } } }, { subresource: 'status' });
    const pod = await app.store.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: unique('pod'), namespace: 'team-a' },
      spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'busybox' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: c.metadata.name } }] },
    });
    const pub = new PodPublishing(app.store, logger);
    const report = (usedBytes: unknown, node = 'node-1') => pub.report(node, { namespace: 'team-a', name: pod.metadata.name, uid: pod.metadata.uid, volumes: [{ name: 'd', ready: true, usedBytes }] });

    await expect(report('-5')).rejects.toMatchObject({ message: expect.stringMatching(/usedBytes must be a decimal byte count/) });
    await expect(report('1', 'node-2')).rejects.toMatchObject({ code: 'Forbidden' });
    await report('1048576');
    const first = await app.store.get('PersistentVolume', undefined, pvName);
    expect(first.metadata.annotations![annUsedBytes]).toBe('1048576');
    // A second report within the minute changes nothing: no write storm.
    await report('2097152');
    expect((await app.store.get('PersistentVolume', undefined, pvName)).metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    const view = await doctor.overview(dev, 'team-a', c.metadata.name!);
    expect(view.capacity).toMatchObject({ used: '1Mi', provisioned: '1Gi', percent: 0.09 });
  });

  test('a volume nothing measures: usage unknown, with why', async () => {
    const c = await claim();
    const view = await doctor.overview(dev, 'team-a', c.metadata.name!);
    expect(view.capacity).toMatchObject({ requested: '1Gi', unknownBecause: 'the claim is not bound to a volume yet' });
    expect(view.capacity.used).toBeUndefined();
  });
});

describe('fixes', () => {
  test('developers see the class fix but not volumes, and cannot pre-bind', async () => {
    const pvName = unique('pv');
    await availablePv(pvName, { labels: { tier: 'bronze' } });
    const c = await claim({ selector: { matchLabels: { tier: 'gold' } } });
    const asDev = await doctor.overview(dev, 'team-a', c.metadata.name!);
    expect(asDev.prefill).toBeUndefined();
    expect(asDev.fixes.find((f) => f.kind === 'create-volume')).toMatchObject({ allowed: false });
    expect(asDev.fixes.find((f) => f.kind === 'recreate-with-class')).toMatchObject({ target: 'fast', allowed: true });
    expect(asDev.fixes.some((f) => f.kind === 'pre-bind')).toBe(false);
    await expect(doctor.apply(dev, { namespace: 'team-a', name: c.metadata.name!, kind: 'pre-bind', target: pvName, resourceVersion: c.metadata.resourceVersion! })).rejects.toMatchObject({ code: 'Forbidden' });
    expect((await app.store.get('PersistentVolumeClaim', 'team-a', c.metadata.name!)).spec!.volumeName).toBeUndefined();
  });

  test('an admin pre-binds to an Available volume the selector rejects; a stale preview is refused first', async () => {
    const pvName = unique('pv');
    await availablePv(pvName, { labels: { tier: 'bronze' } });
    const c = await claim({ selector: { matchLabels: { tier: 'gold' } } });
    const view = await doctor.overview(admin, 'team-a', c.metadata.name!);
    expect(view.prefill).toMatchObject({ capacity: '1Gi', accessModes: ['ReadWriteOnce'], storageClassName: 'manual', labels: { tier: 'gold' } });
    expect(view.fixes.find((f) => f.kind === 'pre-bind' && f.target === pvName)).toMatchObject({ allowed: true });
    const preview = await doctor.preview(admin, { namespace: 'team-a', name: c.metadata.name!, kind: 'pre-bind', target: pvName });
    expect(preview.allowed).toBe(true);
    // Someone changes the claim after the preview: the fix is refused and changes nothing.
    const changed = await app.store.update({ ...(await app.store.get('PersistentVolumeClaim', 'team-a', c.metadata.name!)), metadata: { ...c.metadata, labels: { app: 'web', touched: 'yes' } } });
    await expect(doctor.apply(admin, { namespace: 'team-a', name: c.metadata.name!, kind: 'pre-bind', target: pvName, resourceVersion: preview.resourceVersion })).rejects.toMatchObject({ code: 'Conflict' });
    expect((await app.store.get('PersistentVolumeClaim', 'team-a', c.metadata.name!)).spec!.volumeName).toBeUndefined();
    const done = await doctor.apply(admin, { namespace: 'team-a', name: c.metadata.name!, kind: 'pre-bind', target: pvName, resourceVersion: changed.metadata.resourceVersion! });
    expect(done.claim.spec!.volumeName).toBe(pvName);
  });

  test('an admin cannot pre-bind to a volume that does not fit', async () => {
    const pvName = unique('pv');
    await availablePv(pvName, { size: '100Mi' });
    const c = await claim();
    await expect(doctor.apply(admin, { namespace: 'team-a', name: c.metadata.name!, kind: 'pre-bind', target: pvName, resourceVersion: c.metadata.resourceVersion! })).rejects.toMatchObject({
      code: 'Invalid',
      message: expect.stringMatching(/not an Available volume that fits/),
    });
  });

  test('re-create with a class that provisions: same name and labels, new class; refused while a pod uses the claim', async () => {
    const c = await claim({ finalizers: ['kubernetes.io/pvc-protection'] });
    const pod = await app.store.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: unique('pod'), namespace: 'team-a' },
      spec: { containers: [{ name: 'app', image: 'busybox' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: c.metadata.name } }] },
    });
    const refused = await doctor.preview(dev, { namespace: 'team-a', name: c.metadata.name!, kind: 'recreate-with-class', target: 'fast' });
    expect(refused).toMatchObject({ allowed: false, reason: expect.stringMatching(/uses the claim/) });
    await expect(doctor.apply(dev, { namespace: 'team-a', name: c.metadata.name!, kind: 'recreate-with-class', target: 'fast', resourceVersion: refused.resourceVersion })).rejects.toMatchObject({ code: 'Invalid', message: expect.stringMatching(/uses the claim/) });
    expect((await app.store.get('PersistentVolumeClaim', 'team-a', c.metadata.name!)).metadata.uid).toBe(c.metadata.uid);

    await app.store.delete('Pod', 'team-a', pod.metadata.name, { gracePeriodSeconds: 0 });
    const preview = await doctor.preview(dev, { namespace: 'team-a', name: c.metadata.name!, kind: 'recreate-with-class', target: 'fast' });
    expect(preview).toMatchObject({ allowed: true, claim: { metadata: { name: c.metadata.name, labels: { app: 'web' } }, spec: { storageClassName: 'fast' } } });
    const done = await doctor.apply(dev, { namespace: 'team-a', name: c.metadata.name!, kind: 'recreate-with-class', target: 'fast', resourceVersion: preview.resourceVersion });
    expect(done.claim.metadata.uid).not.toBe(c.metadata.uid);
    const now = await app.store.get('PersistentVolumeClaim', 'team-a', c.metadata.name!);
    expect(now.spec!.storageClassName).toBe('fast');
    expect(now.metadata.labels).toEqual({ app: 'web' });
  });

  test('switch class on a claim that has none; not offered to a viewer', async () => {
    const c = await app.objects.create(admin, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: unique('nocls'), namespace: 'team-a' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    const viewer: Principal = { type: 'user', id: 'v', name: 'viewer', role: 'viewer', namespaces: [] };
    const asViewer = await doctor.overview(viewer, 'team-a', c.metadata.name);
    expect(asViewer.fixes.find((f) => f.kind === 'switch-class' && f.target === 'fast')).toMatchObject({ allowed: false });
    const done = await doctor.apply(dev, { namespace: 'team-a', name: c.metadata.name, kind: 'switch-class', target: 'fast', resourceVersion: c.metadata.resourceVersion! });
    expect(done.claim.spec!.storageClassName).toBe('fast');
    expect(done.claim.metadata.uid).toBe(c.metadata.uid);
  });

  test('re-create in a namespace at its quota: the original does not count twice; a class the quota forbids is refused naming the claim', async () => {
    const ns = unique('quota-ns');
    await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await app.objects.create(admin, {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'storage', namespace: ns },
      spec: { hard: { 'requests.storage': '1Gi', 'slow.storageclass.storage.k8s.io/requests.storage': '0' } },
    });
    await app.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'slow' }, provisioner: hostPathProvisioner, parameters: { basePath: path.join(dir, 'slow') } });
    const c = await app.objects.create(admin, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: unique('full'), namespace: ns, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{"storageClassName":"manual"}}', note: 'kept' } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'manual' },
    });
    const ref = { namespace: ns, name: c.metadata.name };
    const refused = await doctor.preview(admin, { ...ref, kind: 'recreate-with-class', target: 'slow' });
    expect(refused.allowed).toBe(false);
    expect(refused.reason).toContain(`persistentvolumeclaims "${c.metadata.name}" is forbidden: exceeded quota: storage`);
    expect(refused.reason).not.toContain('-check-');
    const preview = await doctor.preview(admin, { ...ref, kind: 'recreate-with-class', target: 'fast' });
    expect(preview).toMatchObject({ allowed: true, claim: { metadata: { annotations: { note: 'kept' } } } });
    expect(preview.claim!.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration']).toBeUndefined();
    const done = await doctor.apply(admin, { ...ref, kind: 'recreate-with-class', target: 'fast', resourceVersion: preview.resourceVersion });
    expect(done.claim.spec!.storageClassName).toBe('fast');
    expect(done.claim.metadata.annotations!['kubectl.kubernetes.io/last-applied-configuration']).toBeUndefined();
  });

  test('a class whose provisioner and parameters fail the same way is not offered while provisioning fails', async () => {
    await app.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast-twin' }, provisioner: hostPathProvisioner, parameters: { basePath: path.join(dir, 'fast') } }).catch(() => undefined);
    const c = await claim({ cls: 'fast' });
    const before = await doctor.overview(admin, 'team-a', c.metadata.name!);
    expect(before.fixes.some((f) => f.target === 'fast-twin')).toBe(true);
    const recorder = new EventRecorder(app.store, 'test', logger);
    await recorder.record(c, 'Warning', 'ProvisioningFailed', 'not enough space: 76797532 bytes free');
    const after = await doctor.overview(admin, 'team-a', c.metadata.name!);
    expect(after.fixes.some((f) => f.target === 'fast-twin')).toBe(false);
  });
});

describe('pools of a btrfs claim', () => {
  const capacity = (node: string, room: string, problem?: string) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIStorageCapacity',
    metadata: { name: unique(`pool-${node}`), namespace: 'kube-system', labels: { [labelPoolNode]: node }, annotations: { [annPoolPath]: '/pool-doc', ...(problem ? { [annPoolProblem]: problem } : { [annPoolTotal]: String(512 << 20), [annPoolFree]: String(512 << 20) }) } },
    storageClassName: 'pooled-doc',
    nodeTopology: { matchLabels: { [labelHostname]: node } },
    capacity: room,
    maximumVolumeSize: room,
  });

  beforeAll(async () => {
    await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } }).catch(() => {});
    await app.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'pooled-doc' }, provisioner: btrfsProvisioner, parameters: { pool: '/pool-doc' }, volumeBindingMode: 'WaitForFirstConsumer' });
    await app.store.create(capacity('doc-a', '512Mi'));
    await app.store.create(capacity('doc-b', '0', 'quotas are not enabled on this btrfs filesystem (btrfs quota enable)'));
    await app.store.create(capacity('doc-c', '0', 'the path does not exist on this node'));
  });

  test('an admin sees each node\'s room or why its pool cannot serve, and none has room in upstream\'s words', async () => {
    const c = await claim({ cls: 'pooled-doc', size: '1Gi' });
    const view = await doctor.overview(admin, 'team-a', c.metadata.name!);
    expect(view.pools?.summary).toBe('0/3 nodes are available: 1 node(s) did not have enough free storage, 2 node(s) did not have a usable pool. None has room for 1Gi in pool /pool-doc.');
    expect(view.pools?.nodes).toEqual([
      { node: 'doc-a', path: '/pool-doc', roomBytes: String(512 << 20), room: '512Mi', fits: false },
      { node: 'doc-b', path: '/pool-doc', roomBytes: '0', room: '0', fits: false, problem: 'quotas are not enabled on this btrfs filesystem (btrfs quota enable)' },
      { node: 'doc-c', path: '/pool-doc', roomBytes: '0', room: '0', fits: false, problem: 'the path does not exist on this node' },
    ]);
  });

  test('a smaller claim fits; a volume being made on that node counts against its room at once', async () => {
    const c = await claim({ cls: 'pooled-doc', size: '256Mi' });
    expect((await doctor.overview(admin, 'team-a', c.metadata.name!)).pools?.summary).toBe('1 of 3 node(s) have room for 256Mi in pool /pool-doc: doc-a');
    const assets = new AssetStore(app.store);
    const { record } = await assets.begin({ plugin: btrfsProvisioner, pvName: `pvc-${randomUUID()}`, node: 'doc-a', details: { pool: '/pool-doc', limitBytes: String(384 << 20) } });
    try {
      expect((await doctor.overview(admin, 'team-a', c.metadata.name!)).pools?.summary).toBe('0/3 nodes are available: 1 node(s) did not have enough free storage, 2 node(s) did not have a usable pool. None has room for 256Mi in pool /pool-doc.');
    } finally {
      await assets.remove(record);
    }
  });

  test('a developer gets the counts, not the nodes', async () => {
    const c = await claim({ cls: 'pooled-doc', size: '1Gi' });
    const view = await doctor.overview(dev, 'team-a', c.metadata.name!);
    expect(view.pools?.nodes).toEqual([]);
    expect(view.pools?.summary).toMatch(/^0\/3 nodes are available: /);
  });

  test('a claim of another class has no pool section', async () => {
    const c = await claim();
    expect((await doctor.overview(admin, 'team-a', c.metadata.name!)).pools).toBeUndefined();
  });
});

describe('replication of the bound volume', () => {
  test("a developer sees what their claim's volume says of its copies; not a volume bound to another claim", async () => {
    const bindTo = async (c: PersistentVolumeClaim, pvName: string, claimUid: string | undefined) => {
      const replicas = JSON.stringify([{ node: 'node-b', state: 'Rebuilding', progress: { doneBytes: '40', totalBytes: '100' } }, { node: 'node-c', state: 'garbled' }]);
      await app.store.create({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: pvName, annotations: { 'replication.stowage.io/active-node': 'node-a', 'replication.stowage.io/epoch': '4', 'replication.stowage.io/replicas': replicas } },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', hostPath: { path: `/tmp/${pvName}` }, claimRef: { kind: 'PersistentVolumeClaim', namespace: 'team-a', name: c.metadata.name, uid: claimUid } },
      });
      const cur = await app.store.get('PersistentVolumeClaim', 'team-a', c.metadata.name!);
      await app.store.update({ ...cur, spec: { ...cur.spec, volumeName: pvName } });
    };
    const mine = await claim();
    await bindTo(mine, unique('pv-repl'), mine.metadata.uid);
    expect((await doctor.overview(dev, 'team-a', mine.metadata.name!)).replication).toEqual({
      activeNode: 'node-a',
      epoch: 4,
      replicas: [{ node: 'node-b', state: 'Rebuilding', progress: { doneBytes: '40', totalBytes: '100' } }],
    });
    const other = await claim();
    await bindTo(other, unique('pv-repl'), randomUUID());
    expect((await doctor.overview(dev, 'team-a', other.metadata.name!)).replication).toBeUndefined();
    expect((await doctor.overview(dev, 'team-a', (await claim()).metadata.name!)).replication).toBeUndefined();
  });
});
