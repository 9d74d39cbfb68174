// History: every committed change leaves exactly one history row with its actor, whoever
// writes (REST with a token, tRPC with a session, a controller, the store with no actor);
// dry runs and rolled-back transactions leave none; compaction keeps history; the audit
// query shows each role what it may read, and no secret reaches a non-admin.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { AppContext } from '../../server/wiring/context';
import type { Principal } from '../../server/domain/authorization';
import { logger } from '../../server/services/logger';
import { controllerActor } from '../../server/domain/actor';
import { EventRecorder } from '../../server/services/event-recorder';
import { HistoryService } from '../../server/services/history';
import { runAs } from '../../server/store/actor-context';
import type { HistoryRow } from '../../server/store/history';
import { appRouter } from '../../server/trpc/root';
import { createTestDatabase, openTestStore, rawQuery } from '../db';
import { nastyString } from '../fuzz/arbitraries';
import { fuzzRuns } from '../fuzz/properties';
import { apiClient } from '../kube/api-client';
import { DEV_NAMESPACE, startKubeHarness, type KubeHarness } from '../kube/harness';

let h: KubeHarness;
let api: ReturnType<typeof apiClient>;
let history: HistoryService;
let admin: Principal;
let dev: Principal;
let viewer: Principal;
let ciToken: string;

const claim = (name: string, namespace = DEV_NAMESPACE) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'manual' },
});
const volume = (name: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', hostPath: { path: `/tmp/${name}` } },
});

function trpc(principal: Principal) {
  const app = { ...h.app, history } as unknown as AppContext;
  return appRouter.createCaller({ app, principal, setSessionCookie: () => {} });
}

type Row = Pick<HistoryRow, 'rv' | 'type' | 'action' | 'actor' | 'kind' | 'namespace' | 'name'>;
const historyRows = () => rawQuery<Row>(h.ts.url, 'SELECT rv::text AS rv, type, action, actor, kind, namespace, name FROM history ORDER BY history.rv');
const changeRows = () =>
  rawQuery<Omit<Row, 'action' | 'actor'>>(h.ts.url, "SELECT rv::text AS rv, type, kind, namespace, name FROM change_log WHERE type <> 'GAP' ORDER BY change_log.rv");
const rowsOf = async (kind: string, name: string) => (await historyRows()).filter((r) => r.kind === kind && r.name === name);

beforeAll(async () => {
  h = await startKubeHarness({ protection: true });
  api = apiClient(h);
  history = new HistoryService(h.ts.store, h.app.objects);
  await h.app.users.create({ name: 'vera', role: 'viewer' });
  admin = (await h.app.users.byName('admin'))!;
  dev = (await h.app.users.byName('dev'))!;
  viewer = (await h.app.users.byName('vera'))!;
  ciToken = await h.app.users.createToken('dev', { name: 'ci' });
}, 60_000);
afterAll(async () => h?.close());

describe('every write leaves exactly one history row with its actor', () => {
  test('REST with tokens, tRPC with a session, a controller, the store alone', async () => {
    // REST, a developer's named token: a claim (its protection finalizer comes with the create).
    const created = await api({ method: 'POST', path: `/api/v1/namespaces/${DEV_NAMESPACE}/persistentvolumeclaims`, token: ciToken, body: claim('data') });
    expect(created.status).toBe(201);
    expect((await rowsOf('PersistentVolumeClaim', 'data')).map((r) => [r.action, r.actor])).toEqual([['create', 'token:dev/ci']]);

    // REST, the admin's token: a volume and a status update.
    const pv = await api({ method: 'POST', path: '/api/v1/persistentvolumes', body: volume('pv-a') });
    expect(pv.status).toBe(201);
    const cur = await api({ path: '/api/v1/persistentvolumes/pv-a' });
    const status = await api({ method: 'PUT', path: '/api/v1/persistentvolumes/pv-a/status', body: { ...cur.json, status: { phase: 'Available' } } });
    expect(status.status).toBe(200);
    expect((await rowsOf('PersistentVolume', 'pv-a')).map((r) => [r.action, r.actor])).toEqual([
      ['create', 'token:admin/unnamed'],
      ['status', 'token:admin/unnamed'],
    ]);

    // A dry run writes nothing.
    const before = (await historyRows()).length;
    const dry = await api({ method: 'POST', path: '/api/v1/persistentvolumes?dryRun=All', body: volume('pv-dry') });
    expect(dry.status).toBe(201);
    const dryTrpc = await trpc(admin).objects.create({ manifest: JSON.stringify(volume('pv-dry2')), dryRun: true });
    expect(dryTrpc).toBeDefined();
    expect((await historyRows()).length).toBe(before);

    // A transaction that wrote and then failed leaves nothing.
    await expect(
      h.ts.store.transact(async (tx) => {
        await tx.create(volume('pv-rolled-back'));
        await tx.flush();
        throw new Error('give up after writing');
      }),
    ).rejects.toThrow('give up after writing');
    expect((await historyRows()).length).toBe(before);

    // tRPC with a session: a claim created and deleted by the developer.
    await trpc(dev).objects.create({ manifest: JSON.stringify(claim('scratch')) });
    await trpc(dev).objects.delete({ kind: 'PersistentVolumeClaim', namespace: DEV_NAMESPACE, name: 'scratch' });
    await vi.waitFor(async () => expect((await rowsOf('PersistentVolumeClaim', 'scratch')).at(-1)?.type).toBe('DELETED'), { timeout: 10_000 });
    expect((await rowsOf('PersistentVolumeClaim', 'scratch')).map((r) => [r.type, r.action, r.actor])).toEqual([
      ['ADDED', 'create', 'user:dev'],
      ['MODIFIED', 'delete', 'user:dev'],
      ['DELETED', 'update', 'controller:pvc-protection-controller'],
    ]);

    // The store with no actor: system; then pv-protection (a controller) adds the finalizer.
    await h.ts.store.create(volume('pv-system'));
    await vi.waitFor(async () => expect((await rowsOf('PersistentVolume', 'pv-system')).length).toBe(2), { timeout: 10_000 });
    expect((await rowsOf('PersistentVolume', 'pv-system')).map((r) => [r.action, r.actor])).toEqual([
      ['create', 'system'],
      ['update', 'controller:pv-protection-controller'],
    ]);

    // One history row per change-log row, same version, same change, nothing else.
    const changes = await changeRows();
    const rows = await historyRows();
    expect(rows.map(({ rv, type, kind, namespace, name }) => ({ rv, type, kind, namespace, name }))).toEqual(changes);
    for (const r of rows) expect(r.actor).toMatch(/^(user:|token:|controller:|agent:|system$)/);
  }, 60_000);

  test('compaction of the change log keeps every history row', async () => {
    const before = (await historyRows()).length;
    await h.ts.store.compact(0, 0);
    expect((await changeRows()).length).toBeLessThan(before);
    expect((await historyRows()).length).toBe(before);
  });
});

describe('the migration', () => {
  test('gives the changes the change log holds a history row of an unknown actor', async () => {
    const sqlFile = readFileSync(path.join(import.meta.dirname, '../../prisma/migrations/20261124200000_history/migration.sql'), 'utf8');
    const backfill = sqlFile.slice(sqlFile.indexOf('INSERT INTO "history"'));
    const db = await createTestDatabase();
    const ts = await openTestStore(db);
    try {
      await ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'old' } });
      await ts.store.create(claim('old-claim', 'old'));
      await rawQuery(db, 'DELETE FROM history');
      await rawQuery(db, backfill);
      const rows = await rawQuery<{ rv: string; action: string; actor: string; kind: string; uid: string }>(
        db,
        'SELECT h.rv::text AS rv, action, actor, h.kind, uid FROM history h JOIN change_log c USING (rv) ORDER BY h.rv',
      );
      expect(rows.map((r) => [r.kind, r.action, r.actor])).toEqual([
        ['Namespace', 'create', 'system'],
        ['PersistentVolumeClaim', 'create', 'system'],
      ]);
      expect(rows[1].uid).toBe((await ts.store.get('PersistentVolumeClaim', 'old', 'old-claim')).metadata.uid);
    } finally {
      await ts.close();
    }
  });
});

describe('timeline', () => {
  test('a claim re-created under the same name shows two incarnations, with diffs and actors', async () => {
    await trpc(dev).objects.create({ manifest: JSON.stringify(claim('scratch')) });
    await vi.waitFor(async () => expect((await rowsOf('PersistentVolumeClaim', 'scratch')).length).toBe(4), { timeout: 10_000 });
    const t = await trpc(dev).history.timeline({ kind: 'PersistentVolumeClaim', namespace: DEV_NAMESPACE, name: 'scratch' });
    expect(t.groups).toHaveLength(2);
    expect(t.groups[0].exists).toBe(true);
    expect(t.groups[1].exists).toBe(false);
    const old = t.groups[1].entries.filter((e) => e.entry === 'change');
    expect(old.map((e) => [e.summary[0], e.actor])).toEqual([
      ['Created', 'user:dev'],
      ['Deletion requested', 'user:dev'],
      ['Deleted', 'controller:pvc-protection-controller'],
    ]);
    expect(old[1].changes.map((c) => c.path)).toEqual(expect.arrayContaining(['metadata.deletionTimestamp']));
  });

  test("the object's events are in its timeline, with the controller that recorded them", async () => {
    const c = await h.ts.store.get('PersistentVolumeClaim', DEV_NAMESPACE, 'data');
    const recorder = new EventRecorder(h.ts.store, 'tester', logger);
    await runAs(controllerActor('tester'), () => recorder.record(c, 'Warning', 'ProvisioningFailed', 'no plugin for class manual'));
    await runAs(controllerActor('tester'), () => recorder.record(c, 'Warning', 'ProvisioningFailed', 'no plugin for class manual'));
    const t = await trpc(dev).history.timeline({ kind: 'PersistentVolumeClaim', namespace: DEV_NAMESPACE, name: 'data' });
    const events = t.groups[0].entries.filter((e) => e.entry === 'event');
    expect(events.map((e) => [e.summary[0], e.actor, e.event?.message])).toEqual([
      ['ProvisioningFailed', 'controller:tester', 'no plugin for class manual'],
      ['ProvisioningFailed (×2)', 'controller:tester', 'no plugin for class manual'],
    ]);
    // Events are left out of the audit unless asked for.
    expect((await trpc(admin).history.audit({ actor: 'controller:tester' })).items).toEqual([]);
    expect((await trpc(admin).history.audit({ actor: 'controller:tester', kind: 'Event' })).items).toHaveLength(2);
  });

  test('a developer may not read a volume timeline', async () => {
    await expect(trpc(dev).history.timeline({ kind: 'PersistentVolume', name: 'pv-a' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  test('secrets of a class never reach a non-admin, not even in a diff', async () => {
    const sc = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'vault' }, provisioner: 'example.com/x', parameters: { password: 'hunter2' } };
    await trpc(admin).objects.create({ manifest: JSON.stringify(sc) });
    // Parameters are immutable; an annotation may hold a credential too.
    const annotated = { ...sc, metadata: { name: 'vault', annotations: { 'example.com/password': 'hunter3' } } };
    await trpc(admin).objects.update({ kind: 'StorageClass', name: 'vault', manifest: JSON.stringify(annotated) });
    const mine = await trpc(admin).history.timeline({ kind: 'StorageClass', name: 'vault' });
    expect(mine.groups[0].entries.at(-1)!.changes).toEqual([{ path: 'metadata.annotations', after: { 'example.com/password': 'hunter3' } }]);
    for (const who of [dev, viewer]) {
      const theirs = await trpc(who).history.timeline({ kind: 'StorageClass', name: 'vault' });
      expect(theirs.groups[0].entries.length).toBe(mine.groups[0].entries.length);
      expect(JSON.stringify(theirs)).not.toContain('hunter');
    }
  });
});

describe('audit', () => {
  test('an admin finds who deleted a claim', async () => {
    const page = await trpc(admin).history.audit({ kind: 'PersistentVolumeClaim', action: 'delete', actor: 'dev' });
    expect(page.items.map((r) => [r.name, r.actor, r.type])).toEqual([['scratch', 'user:dev', 'MODIFIED']]);
  });

  test('each role sees the rows of the objects it may read', async () => {
    await h.ts.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'other' }, data: { a: 'b' } });
    await h.ts.store.create(claim('theirs', 'other'));
    const kinds = async (p: Principal) => new Set((await trpc(p).history.audit({ limit: 500 })).items.map((r) => `${r.kind} ${r.namespace}`));
    const a = await kinds(admin);
    const v = await kinds(viewer);
    const d = await kinds(dev);
    expect(a.has('ConfigMap other')).toBe(true);
    expect(v.has('ConfigMap other')).toBe(false);
    expect(v.has('PersistentVolume ')).toBe(true);
    expect(v.has('PersistentVolumeClaim other')).toBe(true);
    expect([...d].sort()).toEqual(['Namespace ', `PersistentVolumeClaim ${DEV_NAMESPACE}`, 'StorageClass ']);
    for (const r of (await trpc(dev).history.audit({ kind: 'Namespace', limit: 500 })).items) expect(r.name).toBe(DEV_NAMESPACE);
  });

  test("node heartbeats are left out unless asked for; the node lifecycle's own writes stay", async () => {
    const node = await h.ts.store.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'hb-node' } });
    let cur = node;
    for (let i = 0; i < 3; i++) {
      cur = await runAs('agent:hb-node', () => h.ts.store.update({ ...cur, status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: `2026-01-01T00:00:0${i}Z` }] } }, { subresource: 'status' }));
    }
    await runAs(controllerActor('node-lifecycle'), () => h.ts.store.update({ ...cur, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } }, { subresource: 'status' }));
    const rows = async (heartbeats?: boolean) => (await trpc(admin).history.audit({ kind: 'Node', name: 'hb-node', ...(heartbeats ? { heartbeats } : {}) })).items.map((r) => `${r.action} ${r.actor}`);
    expect(await rows()).toEqual(['status controller:node-lifecycle', 'create system']);
    expect(await rows(true)).toEqual(['status controller:node-lifecycle', 'status agent:hb-node', 'status agent:hb-node', 'status agent:hb-node', 'create system']);
  });

  test('pages follow the cursor without repeats', async () => {
    const first = await trpc(admin).history.audit({ limit: 3 });
    expect(first.items).toHaveLength(3);
    const second = await trpc(admin).history.audit({ limit: 3, cursor: first.next });
    expect(BigInt(second.items[0].rv)).toBeLessThan(BigInt(first.items[2].rv));
  });

  test('hostile filters are 4xx', async () => {
    for (const input of [{ cursor: 'abc' }, { action: 'drop' }, { from: 'yesterday' }, { actor: 'a\u0000b' }, { kind: 'Nope' }, { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }]) {
      const e = await trpc(admin).history.audit(input).catch((x) => x);
      expect(['BAD_REQUEST', 'NOT_FOUND']).toContain(e.code);
    }
  });

  test('no input makes a 5xx', async () => {
    const field = fc.oneof(nastyString, fc.string(), fc.constantFrom('9999999999999999999', '2026-13-45', '2026-01-01T25:00:00Z', '%', '_', '\\'));
    const input = fc.record(
      { actor: field, namespace: field, kind: field, name: field, action: field, from: field, to: field, cursor: field },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(input, fc.constantFrom(admin, dev, viewer), async (i, who) => {
        for (const call of [
          () => trpc(who).history.audit(i),
          () => trpc(who).history.export({ format: 'csv', filter: i }),
          () => trpc(who).history.timeline({ kind: i.kind || 'PersistentVolumeClaim', namespace: i.namespace, name: i.name || 'x' }),
        ]) {
          const e = await call().then(() => undefined, (x) => x);
          if (e) expect(['BAD_REQUEST', 'NOT_FOUND', 'FORBIDDEN']).toContain(e.code);
        }
      }),
      { numRuns: fuzzRuns(60) },
    );
  }, 60_000);

  test('the CSV and JSON exports hold the filtered rows', async () => {
    const csv = await trpc(admin).history.export({ format: 'csv', filter: { kind: 'PersistentVolumeClaim', action: 'delete' } });
    expect(csv.contentType).toBe('text/csv');
    const lines = csv.content.trim().split('\r\n');
    expect(lines[0]).toBe('time,actor,action,kind,namespace,name,uid,resourceVersion,change');
    expect(lines.slice(1).map((l) => l.split(',').slice(1, 6).join(','))).toEqual([`user:dev,delete,PersistentVolumeClaim,${DEV_NAMESPACE},scratch`]);
    const json = await trpc(dev).history.export({ format: 'json', filter: {} });
    const rows = JSON.parse(json.content) as Row[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.kind !== 'PersistentVolume' && r.namespace !== 'other')).toBe(true);
  });
});
