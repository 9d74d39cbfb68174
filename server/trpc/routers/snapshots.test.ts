// snapshots.* through createCaller against a real database: a developer takes a snapshot of a
// claim of their namespace and saves a schedule for it (field errors as kubectl's), never in
// another namespace; only admins move the default snapshot class, one default per driver.
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openTestApp } from '../../../test/app';
import type { AppContext } from '../../wiring/context';
import type { Principal } from '../../domain/authorization';
import { appRouter } from '../root';

let app: AppContext;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['team'] };
const viewer: Principal = { type: 'user', id: 'v', name: 'viewer', role: 'viewer', namespaces: [] };
const caller = (principal?: Principal) => appRouter.createCaller({ app, principal, setSessionCookie: () => {} });
const claim = (namespace: string, name: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '' },
});
const klass = (name: string, driver: string, isDefault = false) => ({
  apiVersion: 'snapshot.storage.k8s.io/v1',
  kind: 'VolumeSnapshotClass',
  metadata: { name, ...(isDefault ? { annotations: { 'snapshot.storage.kubernetes.io/is-default-class': 'true' } } : {}) },
  driver,
  deletionPolicy: 'Delete',
});

beforeAll(async () => {
  app = await openTestApp();
  for (const ns of ['team', 'other']) await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await app.store.create(claim('team', 'data'));
  await app.store.create(claim('other', 'data'));
});
afterAll(async () => app?.close());

describe('take', () => {
  test('a developer snapshots a claim of their namespace: a VolumeSnapshot of it, named after it', async () => {
    const vs = await caller(dev).snapshots.take({ namespace: 'team', claim: 'data' });
    expect(vs.metadata.name).toMatch(/^data-[a-z0-9]{5}$/);
    expect(vs.spec).toEqual({ source: { persistentVolumeClaimName: 'data' } });
  });
  test.each([
    { name: 'another namespace', p: dev, input: { namespace: 'other', claim: 'data' }, code: 'FORBIDDEN' },
    { name: 'a viewer', p: viewer, input: { namespace: 'team', claim: 'data' }, code: 'FORBIDDEN' },
    { name: 'a claim that does not exist', p: dev, input: { namespace: 'team', claim: 'nope' }, code: 'NOT_FOUND' },
    { name: 'an empty claim name', p: dev, input: { namespace: 'team', claim: '' }, code: 'BAD_REQUEST' },
  ])('$name is $code', async ({ p, input, code }) => {
    const err = await caller(p).snapshots.take(input).catch((e) => e);
    expect(err).toBeInstanceOf(TRPCError);
    expect(err.code).toBe(code);
  });
});

describe('saveSchedule', () => {
  test('the backup option: set with a target and keep, changed to the default target, then turned off by an edit without it', async () => {
    const made = await caller(dev).snapshots.saveSchedule({ namespace: 'team', name: 'data-bk', claimName: 'data', every: '1d', keep: 3, backup: { targetName: 'nfs', keep: 30 } });
    expect(made.spec?.backup).toEqual({ targetName: 'nfs', keep: 30 });
    const dflt = await caller(dev).snapshots.saveSchedule({ namespace: 'team', name: 'data-bk', claimName: 'data', every: '1d', keep: 3, backup: { keep: 5 }, resourceVersion: made.metadata.resourceVersion });
    expect(dflt.spec?.backup).toEqual({ keep: 5 });
    const off = await caller(dev).snapshots.saveSchedule({ namespace: 'team', name: 'data-bk', claimName: 'data', every: '1d', keep: 3, resourceVersion: dflt.metadata.resourceVersion });
    expect(off.spec?.backup).toBeUndefined();
    const bad = await caller(dev).snapshots.saveSchedule({ namespace: 'team', name: 'data-bk2', claimName: 'data', every: '1d', keep: 3, backup: { keep: 1001 } }).catch((e) => e);
    expect(bad).toBeInstanceOf(TRPCError);
    expect(bad.code).toBe('BAD_REQUEST');
  });
  test('creates, then changes every and keep (the target stays); a stale version is a CONFLICT', async () => {
    const made = await caller(dev).snapshots.saveSchedule({ namespace: 'team', name: 'data-6h', claimName: 'data', every: '6h', keep: 7 });
    expect(made.spec).toEqual({ every: '6h', keep: 7, target: { claimName: 'data' } });
    const changed = await caller(dev).snapshots.saveSchedule({ namespace: 'team', name: 'data-6h', claimName: 'data', every: '1d', keep: 3, resourceVersion: made.metadata.resourceVersion });
    expect(changed.spec).toEqual({ every: '1d', keep: 3, target: { claimName: 'data' } });
    const stale = await caller(dev).snapshots.saveSchedule({ namespace: 'team', name: 'data-6h', claimName: 'data', every: '2d', keep: 3, resourceVersion: made.metadata.resourceVersion }).catch((e) => e);
    expect(stale.code).toBe('CONFLICT');
  });
  test("the controller's status written since the form was loaded does not refuse the edit; another edit of the spec still does", async () => {
    const made = await caller(dev).snapshots.saveSchedule({ namespace: 'team', name: 'data-1d', claimName: 'data', every: '1d', keep: 3 });
    // The schedule controller records a slot (a status write: the generation stays).
    const withStatus = await app.store.update({ ...made, status: { lastScheduleTime: '2026-11-26T00:00:00Z' } }, { subresource: 'status' });
    expect(withStatus.metadata.generation).toBe(made.metadata.generation);
    const seen = { resourceVersion: made.metadata.resourceVersion, generation: made.metadata.generation };
    const edited = await caller(dev).snapshots.saveSchedule({ namespace: 'team', name: 'data-1d', claimName: 'data', every: '1d', keep: 1, ...seen });
    expect(edited.spec).toEqual({ every: '1d', keep: 1, target: { claimName: 'data' } });
    const stale = await caller(dev).snapshots.saveSchedule({ namespace: 'team', name: 'data-1d', claimName: 'data', every: '2d', keep: 1, ...seen }).catch((e) => e);
    expect(stale.code).toBe('CONFLICT');
  });
  test('an interval below 5m is refused with the field error', async () => {
    const err = await caller(dev).snapshots.saveSchedule({ namespace: 'team', name: 'fast', claimName: 'data', every: '1m', keep: 3 }).catch((e) => e);
    expect(err.code).toBe('UNPROCESSABLE_CONTENT');
    expect(err.message).toContain('spec.every: Invalid value: "1m": must be at least 5m');
  });
  test.each([
    { name: 'keep 0', input: { keep: 0 } },
    { name: 'keep 101', input: { keep: 101 } },
    { name: 'a huge interval string', input: { every: 'x'.repeat(100) } },
  ])('$name is BAD_REQUEST', async ({ input }) => {
    const err = await caller(dev).snapshots.saveSchedule({ namespace: 'team', name: 's', claimName: 'data', every: '6h', keep: 3, ...input }).catch((e) => e);
    expect(err.code).toBe('BAD_REQUEST');
  });
  test('not in another namespace', async () => {
    const err = await caller(dev).snapshots.saveSchedule({ namespace: 'other', name: 's', claimName: 'data', every: '6h', keep: 3 }).catch((e) => e);
    expect(err.code).toBe('FORBIDDEN');
  });
});

describe('setDefaultClass', () => {
  test('only admins; on makes it the one default of its driver, leaving other drivers alone', async () => {
    await app.store.create(klass('a', 'stowage.io/btrfs', true));
    await app.store.create(klass('b', 'stowage.io/btrfs'));
    await app.store.create(klass('c', 'stowage.io/loop', true));
    expect((await caller(dev).snapshots.setDefaultClass({ name: 'b', on: true }).catch((e) => e)).code).toBe('FORBIDDEN');
    expect(await caller(admin).snapshots.setDefaultClass({ name: 'b', on: true })).toEqual({ defaults: ['b'] });
    const marks = async (n: string) => (await app.store.get('VolumeSnapshotClass', undefined, n)).metadata.annotations?.['snapshot.storage.kubernetes.io/is-default-class'];
    expect([await marks('a'), await marks('b'), await marks('c')]).toEqual([undefined, 'true', 'true']);
    expect(await caller(admin).snapshots.setDefaultClass({ name: 'b', on: false })).toEqual({ defaults: [] });
    expect(await marks('b')).toBeUndefined();
  });
});
