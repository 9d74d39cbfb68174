// Storage quotas enforced in the services layer, seen through both transports (the
// Kubernetes REST API and tRPC) on a real Postgres: upstream's 403 "exceeded quota"
// message, dry run, resize, status.used kept current, room for the claim form, and
// concurrent creates that never overrun a quota.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AppContext } from '../../server/wiring/context';
import { logger } from '../../server/services/logger';
import { resourceQuotaSpec } from '../../server/controllers/resource-quota/resource-quota';
import { Manager } from '../../server/controllers/runtime/manager';
import type { Principal } from '../../server/domain/authorization';
import type { KubeObject } from '../../server/resources/types';
import { ClaimCheckService } from '../../server/services/claim-check';
import { ListService } from '../../server/services/lists';
import { appRouter } from '../../server/trpc/root';
import { apiClient } from '../kube/api-client';
import { startKubeHarness, waitFor, type KubeHarness } from '../kube/harness';

let h: KubeHarness;
let api: ReturnType<typeof apiClient>;
let controllers: Manager;
let dev: Principal;
let admin: Principal;

const claims = (ns: string) => `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
const quotas = (ns: string) => `/api/v1/namespaces/${ns}/resourcequotas`;
const claim = (name: string, size: string, cls = 'fast', ns = 'team-a'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: ns },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: cls },
});
const quota = (name: string, hard: Record<string, string>, ns = 'team-a'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name, namespace: ns },
  spec: { hard },
});

function trpc(p: Principal) {
  const app = { ...h.app, lists: new ListService(h.ts.store), claims: new ClaimCheckService(h.ts.store, 'node-1') } as unknown as AppContext;
  return appRouter.createCaller({ app, principal: p, setSessionCookie: () => {} });
}

async function used(ns: string, name: string): Promise<Record<string, string | number> | undefined> {
  return (await h.ts.store.tryGet('ResourceQuota', ns, name))?.status?.used;
}

beforeAll(async () => {
  h = await startKubeHarness();
  api = apiClient(h);
  admin = (await h.app.users.authenticate(h.adminToken))!;
  dev = (await h.app.users.authenticate(h.devToken))!;
  for (const ns of ['race', 'resize', 'gone']) await h.ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await h.ts.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'example.com/fast', allowVolumeExpansion: true });
  controllers = new Manager({ store: h.ts.store, log: logger, specs: () => [resourceQuotaSpec({ store: h.ts.store })], leaderElection: false });
  await controllers.start();
});
afterAll(async () => {
  await controllers?.stop();
  await h?.close();
});

describe('the ResourceQuota kind', () => {
  test('an admin creates a quota over REST; its status is counted at once', async () => {
    const r = await api({ method: 'POST', path: quotas('team-a'), body: quota('storage', { 'requests.storage': '12Gi', persistentvolumeclaims: '5', pods: '4' }) });
    expect(r.status, r.text).toBe(201);
    expect(r.json.status).toEqual({ hard: { 'requests.storage': '12Gi', persistentvolumeclaims: '5', pods: '4' }, used: { persistentvolumeclaims: '0', 'requests.storage': '0' } });
  });

  test('a developer reads the quotas of their namespace but may not write them', async () => {
    expect((await api({ path: `${quotas('team-a')}/storage`, token: 'dev' })).status).toBe(200);
    expect((await api({ path: quotas('other'), token: 'dev' })).status).toBe(403);
    const r = await api({ method: 'POST', path: quotas('team-a'), token: 'dev', body: quota('mine', { 'requests.storage': '1Ti' }) });
    expect(r.status).toBe(403);
    expect(await h.ts.store.tryGet('ResourceQuota', 'team-a', 'mine')).toBeUndefined();
    await expect(trpc(dev).objects.delete({ kind: 'ResourceQuota', namespace: 'team-a', name: 'storage' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  test.each([
    ['a negative limit', { 'requests.storage': '-1Gi' }, 'spec.hard[requests.storage]: Invalid value: "-1Gi": must be greater than or equal to 0'],
    ['a fractional claim count', { persistentvolumeclaims: '1500m' }, 'spec.hard[persistentvolumeclaims]: Invalid value: "1500m": must be an integer'],
    ['an unknown resource', { disks: '3' }, 'spec.hard[disks]: Invalid value: "disks": must be a standard resource for quota'],
  ])('%s is refused as Invalid (422)', async (_n, hard, message) => {
    const r = await api({ method: 'POST', path: quotas('team-a'), body: quota('bad', hard) });
    expect(r.status).toBe(422);
    expect(r.json.message).toContain(message);
  });

  test('a malformed quantity is a 400, as upstream decodes it', async () => {
    const r = await api({ method: 'POST', path: quotas('team-a'), body: quota('bad', { 'requests.storage': 'lots' }) });
    expect(r.status).toBe(400);
  });
});

describe('enforcement on create, through both transports', () => {
  test('claims within the quota are admitted and charged to status.used', async () => {
    const r = await api({ method: 'POST', path: claims('team-a'), token: 'dev', body: claim('one', '4Gi') });
    expect(r.status, r.text).toBe(201);
    await trpc(dev).objects.create({ manifest: JSON.stringify(claim('two', '6Gi')), namespace: 'team-a' });
    expect(await used('team-a', 'storage')).toEqual({ persistentvolumeclaims: '2', 'requests.storage': '10Gi' });
  });

  test('REST: a create over the quota is 403 Forbidden with upstream message, and writes nothing', async () => {
    const before = (await h.ts.store.currentResourceVersion()).toString();
    const r = await api({ method: 'POST', path: claims('team-a'), token: 'dev', body: claim('three', '5Gi') });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: 'persistentvolumeclaims "three" is forbidden: exceeded quota: storage, requested: requests.storage=5Gi, used: requests.storage=10Gi, limited: requests.storage=12Gi',
    });
    expect(await h.ts.store.tryGet('PersistentVolumeClaim', 'team-a', 'three')).toBeUndefined();
    expect((await h.ts.store.currentResourceVersion()).toString()).toBe(before);
  });

  test('tRPC: the same create is FORBIDDEN with the same message', async () => {
    const err = await trpc(dev)
      .objects.create({ manifest: JSON.stringify(claim('three', '5Gi')), namespace: 'team-a' })
      .catch((e) => e);
    expect(err).toMatchObject({ code: 'FORBIDDEN' });
    expect(err.message).toBe(
      'persistentvolumeclaims "three" is forbidden: exceeded quota: storage, requested: requests.storage=5Gi, used: requests.storage=10Gi, limited: requests.storage=12Gi',
    );
  });

  test('dry run refuses the same way, and an admitted dry run charges nothing', async () => {
    const refused = await api({ method: 'POST', path: `${claims('team-a')}?dryRun=All`, token: 'dev', body: claim('three', '5Gi') });
    expect(refused.status).toBe(403);
    expect(refused.json.message).toContain('exceeded quota: storage');
    const ok = await api({ method: 'POST', path: `${claims('team-a')}?dryRun=All`, token: 'dev', body: claim('three', '2Gi') });
    expect(ok.status).toBe(201);
    expect(await used('team-a', 'storage')).toEqual({ persistentvolumeclaims: '2', 'requests.storage': '10Gi' });
    expect(await h.ts.store.tryGet('PersistentVolumeClaim', 'team-a', 'three')).toBeUndefined();
  });

  test('a class limit is named in the refusal; claims of other classes pass', async () => {
    await h.app.objects.create(admin, quota('fast-only', { 'fast.storageclass.storage.k8s.io/requests.storage': '11Gi' }));
    const r = await api({ method: 'POST', path: claims('team-a'), token: 'dev', body: claim('three', '2Gi') });
    expect(r.status).toBe(403);
    expect(r.json.message).toBe(
      'persistentvolumeclaims "three" is forbidden: exceeded quota: fast-only, requested: fast.storageclass.storage.k8s.io/requests.storage=2Gi, used: fast.storageclass.storage.k8s.io/requests.storage=10Gi, limited: fast.storageclass.storage.k8s.io/requests.storage=11Gi',
    );
    const other = await api({ method: 'POST', path: claims('team-a'), token: 'dev', body: claim('three', '1Gi', 'slow') });
    expect(other.status, other.text).toBe(201);
    expect(await used('team-a', 'fast-only')).toEqual({ 'fast.storageclass.storage.k8s.io/requests.storage': '10Gi' });
    expect(await used('team-a', 'storage')).toEqual({ persistentvolumeclaims: '3', 'requests.storage': '11Gi' });
  });

  test('the claim form is told the room left and that the claim would be refused', async () => {
    const room = await trpc(dev).claims.quota({ claim: claim('four', '2Gi') });
    expect(room.limits.map((l) => l.text)).toEqual(['1 of 11 Gi left in team-a for class fast', '1 of 12 Gi left in team-a', '2 of 5 claims left in team-a']);
    expect(room.refusal).toMatch(/^exceeded quota: fast-only, requested: fast.storageclass.storage.k8s.io\/requests.storage=2Gi/);
    const fits = await trpc(dev).claims.quota({ claim: claim('four', '512Mi') });
    expect(fits.refusal).toBeUndefined();
    await expect(trpc(dev).claims.quota({ claim: claim('x', '1Gi', 'fast', 'other') })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('enforcement on resize', () => {
  test('growing a bound claim past the quota is refused with only the growth requested; within it is charged', async () => {
    await h.app.objects.create(admin, quota('q', { 'requests.storage': '20Gi' }, 'resize'));
    const c = await h.app.objects.create(admin, claim('data', '10Gi', 'fast', 'resize'));
    await h.ts.store.update({ ...c, status: { phase: 'Bound', capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'] } }, { subresource: 'status' });
    const grow = (size: string) =>
      api({
        method: 'PATCH',
        path: `${claims('resize')}/data`,
        headers: { 'Content-Type': 'application/merge-patch+json' },
        body: { spec: { resources: { requests: { storage: size } } } },
      });
    const refused = await grow('25Gi');
    expect(refused.status).toBe(403);
    expect(refused.json.message).toBe(
      'persistentvolumeclaims "data" is forbidden: exceeded quota: q, requested: requests.storage=15Gi, used: requests.storage=10Gi, limited: requests.storage=20Gi',
    );
    const ok = await grow('20Gi');
    expect(ok.status, ok.text).toBe(200);
    expect(await used('resize', 'q')).toEqual({ 'requests.storage': '20Gi' });
  });
});

describe('status.used follows deletes (the controller)', () => {
  test('a deleted claim gives its room back', async () => {
    await h.app.objects.create(admin, quota('q', { persistentvolumeclaims: '1' }, 'gone'));
    await h.app.objects.create(admin, claim('a', '1Gi', 'fast', 'gone'));
    expect(await used('gone', 'q')).toEqual({ persistentvolumeclaims: '1' });
    await h.app.objects.delete(admin, 'PersistentVolumeClaim', 'gone', 'a');
    await waitFor(async () => (await used('gone', 'q'))?.persistentvolumeclaims === '0', 'the quota to count 0 claims');
    await h.app.objects.create(admin, claim('b', '1Gi', 'fast', 'gone'));
    expect(await used('gone', 'q')).toEqual({ persistentvolumeclaims: '1' });
  });
});

describe('a Terminating claim (upstream: it counts until it is gone)', () => {
  test('holds its room while a finalizer keeps it, and gives it back once removed', async () => {
    await h.ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'held' } });
    await h.app.objects.create(admin, quota('q', { persistentvolumeclaims: '1' }, 'held'));
    const held = claim('a', '1Gi', 'fast', 'held');
    held.metadata.finalizers = ['example.com/hold'];
    await h.app.objects.create(admin, held);
    await h.app.objects.delete(admin, 'PersistentVolumeClaim', 'held', 'a');
    expect((await h.ts.store.tryGet('PersistentVolumeClaim', 'held', 'a'))?.metadata.deletionTimestamp).toBeTruthy();
    await expect(h.app.objects.create(admin, claim('b', '1Gi', 'fast', 'held'))).rejects.toThrow(/exceeded quota: q, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=1/);
    await h.app.objects.patch(admin, 'PersistentVolumeClaim', 'held', 'a', (c) => ({
      ...c,
      metadata: { ...c.metadata, finalizers: (c.metadata.finalizers ?? []).filter((f) => f !== 'example.com/hold') },
    }));
    await waitFor(async () => !(await h.ts.store.tryGet('PersistentVolumeClaim', 'held', 'a')), 'the claim to be gone');
    await waitFor(async () => (await used('held', 'q'))?.persistentvolumeclaims === '0', 'the quota to count 0 claims');
    await h.app.objects.create(admin, claim('b', '1Gi', 'fast', 'held'));
  });
});

describe('concurrent creates', () => {
  test('of 12 parallel creates with room for 3, exactly 3 succeed', async () => {
    await h.app.objects.create(admin, quota('three', { persistentvolumeclaims: '3', 'requests.storage': '100Gi' }, 'race'));
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? h.app.objects.create(admin, claim(`c${i}`, '1Gi', 'fast', 'race'))
          : trpc(admin).objects.create({ manifest: JSON.stringify(claim(`c${i}`, '1Gi', 'fast', 'race')), namespace: 'race' }),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(ok).toHaveLength(3);
    for (const r of refused) expect(String((r).reason?.message)).toMatch(/exceeded quota: three, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=3/);
    expect((await h.ts.store.list('PersistentVolumeClaim', { namespace: 'race' })).items).toHaveLength(3);
    expect(await used('race', 'three')).toEqual({ persistentvolumeclaims: '3', 'requests.storage': '3Gi' });
  });
});

describe('hostile input to the form\'s quota check', () => {
  test.each<[string, Record<string, unknown>]>([
    ['no kind', { metadata: { namespace: 'team-a' } }],
    ['metadata not an object', { kind: 'PersistentVolumeClaim', metadata: 'x' }],
    ['a numeric namespace', { kind: 'PersistentVolumeClaim', metadata: { namespace: 5 } }],
    ['a NUL in the namespace', { kind: 'PersistentVolumeClaim', metadata: { namespace: 'team-a\u0000' } }],
    ['storage as an object', { kind: 'PersistentVolumeClaim', metadata: { namespace: 'team-a' }, spec: { resources: { requests: { storage: { a: 1 } } } } }],
    ['annotations as a list', { kind: 'PersistentVolumeClaim', metadata: { namespace: 'team-a', annotations: ['x'] }, spec: 'nope' }],
    ['a huge quantity', { kind: 'PersistentVolumeClaim', metadata: { namespace: 'team-a' }, spec: { storageClassName: 'fast', resources: { requests: { storage: '9'.repeat(500) } } } }],
  ])('%s: a clear answer or a 4xx, never a 500', async (_n, claim) => {
    for (const p of [admin, dev]) {
      const r = await trpc(p).claims.quota({ claim }).then(
        (v) => ({ ok: true as const, v }),
        (e) => ({ ok: false as const, code: String(e.code) }),
      );
      if (!r.ok) expect(['BAD_REQUEST', 'FORBIDDEN', 'NOT_FOUND', 'UNPROCESSABLE_CONTENT']).toContain(r.code);
      else expect(Array.isArray(r.v.limits)).toBe(true);
    }
  });
});
