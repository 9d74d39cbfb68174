// ReclaimService on a real Postgres: what the center lists, previews, each action, and the
// refusals: objects in use, bound or terminating, stale previews, non-admins.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Principal } from '../../server/domain/authorization';
import type { Event } from '../../server/resources/event/schema';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';
import type { Pod } from '../../server/resources/pod/schema';
import type { KubeObject } from '../../server/resources/types';
import { ofKind } from '../../server/resources/of-kind';
import { LocalVolumeService } from '../../server/services/local-volumes';
import { ReclaimService } from '../../server/services/reclaim';
import { openTestApp } from '../app';
import { sqlOf } from '../../server/store/sql-handle';

let app: Awaited<ReturnType<typeof openTestApp>>;
let reclaim: ReclaimService;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const viewer: Principal = { type: 'user', id: 'v', name: 'viewer', role: 'viewer', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['default'] };

let n = 0;
const unique = (p: string) => `${p}-${++n}-${randomUUID().slice(0, 6)}`;

function pvManifest(name: string, extra: { claimRef?: object; annotations?: Record<string, string>; local?: string; cls?: string } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      storageClassName: extra.cls ?? 'manual',
      persistentVolumeReclaimPolicy: 'Retain',
      ...(extra.local
        ? {
            local: { path: '/mnt/disks/x' },
            nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [extra.local] }] }] } },
          }
        : { hostPath: { path: `/tmp/${name}` } }),
      ...(extra.claimRef ? { claimRef: extra.claimRef } : {}),
    },
  };
}

// The store's create and update answer the object written, here a volume.
async function volume(phase: string, extra: Parameters<typeof pvManifest>[1] = {}): Promise<PersistentVolume> {
  const name = unique('pv');
  const created = (await app.store.create(pvManifest(name, { claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: unique('gone'), uid: randomUUID() }, ...extra }))) as PersistentVolume;
  return app.store.update({ ...created, status: { ...created.status, phase } }, { subresource: 'status' });
}

async function claim(name = unique('c'), storage = '1Gi'): Promise<KubeObject> {
  return app.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, storageClassName: 'manual' },
  });
}

async function pod(claimName: string, phase = 'Running'): Promise<Pod> {
  const created = (await app.store.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: unique('pod'), namespace: 'default' },
    spec: { containers: [{ name: 'app', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] },
  })) as Pod;
  return app.store.update({ ...created, status: { ...created.status, phase } }, { subresource: 'status' });
}

const pvRef = (o: KubeObject) => ({ kind: 'PersistentVolume' as const, name: o.metadata.name! });
/** The object as stored now, of o's kind. */
const get = <T extends KubeObject>(o: T) => app.store.tryGet(o.kind, o.metadata.namespace, o.metadata.name!) as Promise<T | undefined>;

async function previewAndApply(target: Parameters<ReclaimService['preview']>[1][number]) {
  const [row] = await reclaim.preview(admin, [target]);
  const applied = await reclaim.apply(admin, [{ ...target, resourceVersion: row.resourceVersion }]);
  return { row, applied };
}

beforeAll(async () => {
  app = await openTestApp();
  await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  reclaim = new ReclaimService(app.objects, app.lists, new LocalVolumeService(app.store, app.nodeAgent));
});
afterAll(async () => app?.close());

describe('make Available', () => {
  test('a Released volume: the preview says what changes, the action clears the claimRef', async () => {
    const pv = await volume('Released');
    const ref = pv.spec!.claimRef!;
    const { row, applied } = await previewAndApply({ ...pvRef(pv), action: 'make-available' });
    expect(row.allowed).toBe(true);
    expect(row.changes).toContain(`claimRef default/${ref.name} will be cleared`);
    expect(row.changes).toContain('phase Released → Available (set by the binder)');
    expect(applied).toEqual({ done: [pv.metadata.name], skipped: [] });
    expect((await get(pv))!.spec!.claimRef).toBeUndefined();
  });

  test('a stale preview fails with a conflict and changes nothing', async () => {
    const pv = await volume('Released');
    const [row] = await reclaim.preview(admin, [{ ...pvRef(pv), action: 'make-available' }]);
    const current = (await get(pv))!;
    await app.store.update({ ...current, metadata: { ...current.metadata, labels: { touched: 'yes' } } });
    const applied = await reclaim.apply(admin, [{ ...pvRef(pv), action: 'make-available', resourceVersion: row.resourceVersion }]);
    expect(applied.done).toEqual([]);
    expect(applied.skipped[0].reason).toMatch(/changed since the preview .*preview again/);
    expect((await get(pv))!.spec!.claimRef).toEqual(pv.spec!.claimRef);
  });

  test('a volume whose claim a running pod uses is refused as in use, in the preview and the action', async () => {
    const c = await claim();
    const pv = await volume('Released', { claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: c.metadata.name, uid: c.metadata.uid } });
    const p = await pod(c.metadata.name!);
    const { row, applied } = await previewAndApply({ ...pvRef(pv), action: 'make-available' });
    expect(row).toMatchObject({ allowed: false, reason: `in use: claim default/${c.metadata.name} is used by pod ${p.metadata.name}` });
    expect(applied.skipped).toEqual([{ name: pv.metadata.name, reason: row.reason }]);
    expect((await get(pv))!.spec!.claimRef!.uid).toBe(c.metadata.uid);
  });

  test('a volume that became Bound after the preview is refused by the recheck', async () => {
    const pv = await volume('Released');
    const [row] = await reclaim.preview(admin, [{ ...pvRef(pv), action: 'make-available' }]);
    const current = (await get(pv))!;
    await app.store.update({ ...current, status: { ...current.status, phase: 'Bound' } }, { subresource: 'status' });
    const applied = await reclaim.apply(admin, [{ ...pvRef(pv), action: 'make-available', resourceVersion: row.resourceVersion }]);
    expect(applied.done).toEqual([]);
    expect((await get(pv))!.spec!.claimRef).toBeDefined();
  });
});

describe("the Volumes list's bulk Make Available", () => {
  test('clears the claimRef of Released volumes only, and only for admins', async () => {
    const released = await volume('Released');
    const bound = await volume('Bound');
    await expect(reclaim.makeAvailable(dev, [released.metadata.name!])).rejects.toMatchObject({ code: 'Forbidden' });
    const res = await reclaim.makeAvailable(admin, [released.metadata.name!, bound.metadata.name!, 'no-such-volume']);
    expect(res.done).toEqual([released.metadata.name]);
    expect(res.skipped).toEqual([
      { name: bound.metadata.name, reason: expect.stringMatching(/bound to claim/) },
      { name: 'no-such-volume', reason: 'volume no-such-volume no longer exists' },
    ]);
    expect((await get(released))!.spec!.claimRef).toBeUndefined();
    expect((await get(bound))!.spec!.claimRef).toBeDefined();
  });
});

describe('pre-bind, recycle, delete', () => {
  test('pre-bind reserves a Released volume for a Pending claim that fits', async () => {
    const pv = await volume('Released');
    const c = await claim();
    const { row, applied } = await previewAndApply({ ...pvRef(pv), action: 'pre-bind', claim: `default/${c.metadata.name}` });
    expect(row.changes[0]).toBe(`claimRef default/${pv.spec!.claimRef!.name} → default/${c.metadata.name}`);
    expect(applied.done).toHaveLength(1);
    expect((await get(pv))!.spec!.claimRef).toEqual({ kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: 'default', name: c.metadata.name });
  });

  test('pre-bind to a claim asking for more than the volume has is refused', async () => {
    const pv = await volume('Released');
    const c = await claim(unique('big'), '5Gi');
    const { row, applied } = await previewAndApply({ ...pvRef(pv), action: 'pre-bind', claim: `default/${c.metadata.name}` });
    expect(row.reason).toContain('requested PV is too small');
    expect(applied.done).toEqual([]);
  });

  test('pre-bind to a malformed claim name is refused, not crashed on', async () => {
    const pv = await volume('Released');
    const { row, applied } = await previewAndApply({ ...pvRef(pv), action: 'pre-bind', claim: '../../etc' });
    expect(row.allowed).toBe(false);
    expect(applied.skipped).toHaveLength(1);
  });

  test('recycle sets the reclaim policy to Delete on a provisioned volume, and is refused on a static one', async () => {
    const provisioned = await volume('Released', { annotations: { 'pv.kubernetes.io/provisioned-by': 'local-volume-provisioner' } });
    const r1 = await previewAndApply({ ...pvRef(provisioned), action: 'recycle' });
    expect(r1.row.changes).toContain('reclaim policy Retain → Delete');
    expect(r1.applied.done).toHaveLength(1);
    expect((await get(provisioned))!.spec!.persistentVolumeReclaimPolicy).toBe('Delete');

    const plain = await volume('Released');
    const r2 = await previewAndApply({ ...pvRef(plain), action: 'recycle' });
    expect(r2.row.reason).toContain('no provisioner made this volume');
    expect((await get(plain))!.spec!.persistentVolumeReclaimPolicy).toBe('Retain');
  });

  test('delete removes a Failed volume and refuses a Bound one', async () => {
    const failed = await volume('Failed');
    expect((await previewAndApply({ ...pvRef(failed), action: 'delete' })).applied.done).toHaveLength(1);
    expect(await get(failed)).toBeUndefined();

    const bound = await volume('Bound');
    const r = await previewAndApply({ ...pvRef(bound), action: 'delete' });
    expect(r.row.reason).toContain('bound to claim');
    expect(await get(bound)).toBeDefined();
  });

  test('a stale delete is refused by the resourceVersion precondition', async () => {
    const pv = await volume('Released');
    const [row] = await reclaim.preview(admin, [{ ...pvRef(pv), action: 'delete' }]);
    const current = (await get(pv))!;
    await app.store.update({ ...current, metadata: { ...current.metadata, labels: { touched: 'yes' } } });
    const applied = await reclaim.apply(admin, [{ ...pvRef(pv), action: 'delete', resourceVersion: row.resourceVersion }]);
    expect(applied.skipped[0].reason).toContain('changed since the preview');
    expect(await get(pv)).toBeDefined();
  });
});

describe('claims unused for N days', () => {
  test('lists claims no running pod uses; deletes an unused one and refuses one a pod started using', async () => {
    const unused = await claim();
    const used = await claim();
    await pod(used.metadata.name!);
    const finished = await claim();
    await pod(finished.metadata.name!, 'Succeeded');
    const later = await claim();

    const overview = await reclaim.overview(admin, { unusedDays: 0 });
    const names = overview.claims.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining([unused.metadata.name, finished.metadata.name, later.metadata.name]));
    expect(names).not.toContain(used.metadata.name);
    expect((await reclaim.overview(admin, { unusedDays: 30 })).claims.map((c) => c.name)).not.toContain(unused.metadata.name);

    const t = (c: KubeObject) => ({ kind: 'PersistentVolumeClaim' as const, namespace: 'default', name: c.metadata.name!, action: 'delete' as const });
    const [p1, p2] = await reclaim.preview(admin, [t(unused), t(later)]);
    expect(p1.changes).toEqual([`claim default/${unused.metadata.name} will be deleted`]);
    // A pod starts using `later` between the preview and the action.
    const p = await pod(later.metadata.name!);
    const applied = await reclaim.apply(admin, [
      { ...t(unused), resourceVersion: p1.resourceVersion },
      { ...t(later), resourceVersion: p2.resourceVersion },
    ]);
    expect(applied.done).toEqual([`default/${unused.metadata.name}`]);
    expect(applied.skipped).toEqual([{ name: `default/${later.metadata.name}`, reason: `in use by pod ${p.metadata.name}` }]);
    expect(await get(unused)).toBeUndefined();
    expect(await get(later)).toBeDefined();
  });
});

describe('overview', () => {
  test('lists Released and Failed volumes and local volumes whose node is gone, with what each allows', async () => {
    const released = await volume('Released');
    const failed = await volume('Failed');
    const ghost = unique('ghost-node');
    const orphan = await volume('Available', { local: ghost, claimRef: undefined });
    const c = await claim();
    const inUse = await volume('Released', { claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: c.metadata.name, uid: c.metadata.uid } });
    const p = await pod(c.metadata.name!);
    const o = await reclaim.overview(admin, { unusedDays: 7 });
    const byName = new Map(o.volumes.map((v) => [v.name, v]));
    expect(byName.get(released.metadata.name!)).toMatchObject({ categories: ['released'], actions: { 'make-available': { allowed: true }, recycle: { allowed: false } } });
    expect(byName.get(failed.metadata.name!)).toMatchObject({ categories: ['failed'], actions: { 'make-available': { allowed: false } } });
    expect(byName.get(inUse.metadata.name!)!.actions.delete).toEqual({ allowed: false, reason: `in use: claim default/${c.metadata.name} is used by pod ${p.metadata.name}` });
    expect(byName.get(orphan.metadata.name!)).toMatchObject({ categories: ['node-gone'], node: ghost, nodeProblem: `node ${ghost} does not exist`, actions: { delete: { allowed: true } } });
  });

  test('lists failed and quarantined cleanups, which the existing retry queues again', async () => {
    const { job } = await app.nodeAgent.jobs.record({
      nodeName: 'node-x', pvName: unique('lpv'), pvUid: randomUUID(), hostPath: `/mnt/${unique('d')}`, className: 'local',
      volumeMode: 'Filesystem', method: 'files', command: [], fsType: '', state: 'quarantined', lastError: 'disk busy',
    } as never);
    const o = await reclaim.overview(admin, { unusedDays: 7 });
    expect(o.cleanups.map((j) => j.id)).toContain(job.id);
    expect((await reclaim.retryCleanup(admin, job.id)).state).toBe('queued');
    expect((await reclaim.overview(admin, { unusedDays: 7 })).cleanups.map((j) => j.id)).not.toContain(job.id);
  });

  test('a developer may not see the center; a viewer sees it but may not act', async () => {
    await expect(reclaim.overview(dev, { unusedDays: 1 })).rejects.toMatchObject({ code: 'Forbidden' });
    const pv = await volume('Released');
    const [row] = await reclaim.preview(viewer, [{ ...pvRef(pv), action: 'make-available' }]);
    const applied = reclaim.apply(viewer, [{ ...pvRef(pv), action: 'make-available', resourceVersion: row.resourceVersion }]);
    const result = await applied;
    expect(result.done).toEqual([]);
    expect(result.skipped[0].reason).toMatch(/forbidden/);
    expect((await get(pv))!.spec!.claimRef).toBeDefined();
  });
});

/** The Events recorded about an object, as the dashboard lists them. */
async function eventsOf(o: KubeObject): Promise<Event[]> {
  const res = await app.store.list('Event', {
    namespace: o.metadata.namespace || 'default',
    fieldSelector: `involvedObject.kind=${o.kind},involvedObject.name=${o.metadata.name}`,
  });
  return ofKind(res.items, 'Event').filter((e) => e.involvedObject?.uid === o.metadata.uid);
}

describe('each applied action records an Event on its object', () => {
  test.each([
    { action: 'make-available' as const, reason: 'MadeAvailable', says: /^user admin made the volume Available from the reclaim center: claimRef default\/gone-\d+-\w+ cleared/ },
    { action: 'recycle' as const, reason: 'RecycleRequested', says: /^user admin asked from the reclaim center to wipe and recycle the volume: reclaim policy Retain → Delete$/ },
    { action: 'delete' as const, reason: 'DeletedFromReclaimCenter', says: /^user admin deleted the volume from the reclaim center \(reclaim policy Retain\)$/ },
  ])('$action: a Normal $reason Event naming the actor, written in the action’s transaction', async ({ action, reason, says }) => {
    const pv = await volume('Released', { annotations: { 'pv.kubernetes.io/provisioned-by': 'local-volume-provisioner' } });
    expect(await eventsOf(pv)).toEqual([]);
    const { applied } = await previewAndApply({ ...pvRef(pv), action });
    expect(applied.done).toEqual([pv.metadata.name]);
    const events = await eventsOf(pv);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'Normal',
      reason,
      involvedObject: { kind: 'PersistentVolume', name: pv.metadata.name, uid: pv.metadata.uid },
      source: { component: 'stowage-reclaim-center' },
      count: 1,
    });
    expect(events[0].message).toMatch(says);
    // One transaction: the history rows of the change and of its Event share the
    // transaction's timestamp and actor.
    const rows = await sqlOf(app.store).$queryRawUnsafe<{ kind: string; actor: string; at: string }[]>(
      `SELECT kind, actor, created_at::text AS at FROM history WHERE (kind = 'PersistentVolume' AND uid = $1 AND action <> 'create' AND action <> 'status') OR (kind = 'Event' AND involved_uid = $1) ORDER BY rv`,
      pv.metadata.uid,
    );
    expect(rows.map((r) => [r.kind, r.actor])).toEqual([
      ['PersistentVolume', 'user:admin'],
      ['Event', 'user:admin'],
    ]);
    expect(rows[0].at).toBe(rows[1].at);
  });

  test('pre-bind names the claim; an API token is named as the token', async () => {
    const pv = await volume('Released');
    const c = await claim();
    const viaToken: Principal = { ...admin, token: 'ci' };
    const [row] = await reclaim.preview(viaToken, [{ ...pvRef(pv), action: 'pre-bind', claim: `default/${c.metadata.name}` }]);
    await reclaim.apply(viaToken, [{ ...pvRef(pv), action: 'pre-bind', claim: `default/${c.metadata.name}`, resourceVersion: row.resourceVersion }]);
    const [e] = await eventsOf(pv);
    expect(e).toMatchObject({ reason: 'PreBound', type: 'Normal' });
    expect(e.message).toBe(`token admin/ci pre-bound the volume to claim default/${c.metadata.name} from the reclaim center (claimRef was default/${pv.spec!.claimRef!.name})`);
  });

  test('a bulk action records one Event per object; a claim’s Event is in its namespace', async () => {
    const a = await volume('Released');
    const b = await volume('Released');
    const res = await reclaim.makeAvailable(admin, [a.metadata.name!, b.metadata.name!]);
    expect(res.done).toHaveLength(2);
    for (const v of [a, b]) expect((await eventsOf(v)).map((e) => e.reason)).toEqual(['MadeAvailable']);

    const c = await claim();
    await previewAndApply({ kind: 'PersistentVolumeClaim', namespace: 'default', name: c.metadata.name!, action: 'delete' });
    const [e] = await eventsOf(c);
    expect(e).toMatchObject({ reason: 'DeletedFromReclaimCenter', metadata: { namespace: 'default' }, involvedObject: { kind: 'PersistentVolumeClaim', namespace: 'default', uid: c.metadata.uid } });
  });

  test('a refused action records none: in use, stale, forbidden', async () => {
    const c = await claim();
    const inUse = await volume('Released', { claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: c.metadata.name, uid: c.metadata.uid } });
    await pod(c.metadata.name!);
    expect((await previewAndApply({ ...pvRef(inUse), action: 'make-available' })).applied.skipped).toHaveLength(1);

    const stale = await volume('Released');
    const [row] = await reclaim.preview(admin, [{ ...pvRef(stale), action: 'delete' }]);
    const current = (await get(stale))!;
    await app.store.update({ ...current, metadata: { ...current.metadata, labels: { touched: 'yes' } } });
    expect((await reclaim.apply(admin, [{ ...pvRef(stale), action: 'delete', resourceVersion: row.resourceVersion }])).skipped).toHaveLength(1);

    const other = await volume('Released');
    const [r2] = await reclaim.preview(viewer, [{ ...pvRef(other), action: 'make-available' }]);
    expect((await reclaim.apply(viewer, [{ ...pvRef(other), action: 'make-available', resourceVersion: r2.resourceVersion }])).skipped).toHaveLength(1);

    for (const o of [inUse, stale, other]) expect(await eventsOf(o)).toEqual([]);
    expect(await get(stale)).toBeDefined();
  });
});

describe('claims unused for N days: pods deleted since count, through the history', () => {
  /** A claim as if made `days` ago: the store stamps creation itself, so the row is backdated in place. */
  async function oldClaim(days: number): Promise<KubeObject> {
    const c = await claim();
    const when = new Date(Date.now() - days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await sqlOf(app.store).$executeRawUnsafe(
      `UPDATE objects SET object = jsonb_set(object::jsonb, '{metadata,creationTimestamp}', to_jsonb($1::text))::json
        WHERE kind = 'PersistentVolumeClaim' AND namespace = 'default' AND name = $2`,
      when,
      c.metadata.name,
    );
    return (await get(c))!;
  }

  test('a pod created and deleted makes the claim used then, not unused; a claim no pod ever named stays unused', async () => {
    const usedOnce = await oldClaim(30);
    const never = await oldClaim(30);
    const p = await pod(usedOnce.metadata.name!, 'Succeeded');
    await app.store.delete('Pod', 'default', p.metadata.name!, { gracePeriodSeconds: 0 });
    expect(await get(p)).toBeUndefined();

    const week = await reclaim.overview(admin, { unusedDays: 7 });
    const names = week.claims.map((c) => c.name);
    expect(names).toContain(never.metadata.name);
    expect(names).not.toContain(usedOnce.metadata.name);
    expect(week.usageComplete).toBe(true);
    expect(week.claims.find((c) => c.name === never.metadata.name)).toMatchObject({ lastUseKnown: false, unusedDays: 30 });

    // Two days on, with a one-day window: the pod's deletion is a use two days ago.
    const later = new ReclaimService(app.objects, app.lists, new LocalVolumeService(app.store, app.nodeAgent), () => new Date(Date.now() + 2 * 86_400_000));
    const row = (await later.overview(admin, { unusedDays: 1 })).claims.find((c) => c.name === usedOnce.metadata.name);
    expect(row).toMatchObject({ lastUseKnown: true, unusedDays: 2 });
    expect(Date.parse(row!.lastUsed)).toBeGreaterThan(Date.now() - 60_000);
  });

  test('a pod in another namespace naming a claim of the same name is no use of it', async () => {
    await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'elsewhere' } }).catch(() => undefined);
    const c = await oldClaim(30);
    const p = await app.store.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: unique('pod'), namespace: 'elsewhere' },
      spec: { containers: [{ name: 'app', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: c.metadata.name } }] },
    });
    await app.store.delete('Pod', 'elsewhere', p.metadata.name, { gracePeriodSeconds: 0 });
    expect((await reclaim.overview(admin, { unusedDays: 7 })).claims.map((x) => x.name)).toContain(c.metadata.name);
  });
});
