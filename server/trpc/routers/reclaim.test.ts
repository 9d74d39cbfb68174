// The reclaim center's procedures through createCaller against a real database: hostile
// input is refused before any service runs; a preview then its action work end to end.
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestApp } from '../../../test/app';
import type { AppContext } from '../../wiring/context';
import type { Principal } from '../../domain/authorization';
import { appRouter } from '../root';

let app: AppContext;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['default'] };
const caller = (principal?: Principal) => appRouter.createCaller({ app, principal, setSessionCookie: () => {} });

beforeAll(async () => {
  app = await openTestApp();
});
afterAll(async () => app?.close());

test.each([
  { name: 'negative days', call: () => caller(admin).reclaim.overview({ unusedDays: -1 }) },
  { name: 'fractional days', call: () => caller(admin).reclaim.overview({ unusedDays: 1.5 }) },
  { name: 'an unknown action', call: () => caller(admin).reclaim.preview({ targets: [{ kind: 'PersistentVolume', name: 'x', action: 'format' as never }] }) },
  { name: 'another kind', call: () => caller(admin).reclaim.preview({ targets: [{ kind: 'Secret' as never, name: 'x', action: 'delete' }] }) },
  { name: 'no targets', call: () => caller(admin).reclaim.preview({ targets: [] }) },
  { name: 'an action without a version', call: () => caller(admin).reclaim.act({ items: [{ kind: 'PersistentVolume', name: 'x', action: 'delete', resourceVersion: '' }] }) },
  { name: 'a cleanup id that is no uuid', call: () => caller(admin).reclaim.retryCleanup({ jobId: "1' OR 1=1" }) },
])('$name is BAD_REQUEST', async ({ call }) => {
  const err = await call().catch((e) => e);
  expect(err).toBeInstanceOf(TRPCError);
  expect(err.code).toBe('BAD_REQUEST');
});

test('signed out is UNAUTHORIZED; a developer is FORBIDDEN', async () => {
  expect((await caller().reclaim.overview({ unusedDays: 1 }).catch((e) => e)).code).toBe('UNAUTHORIZED');
  expect((await caller(dev).reclaim.overview({ unusedDays: 1 }).catch((e) => e)).code).toBe('FORBIDDEN');
});

test('preview then act makes a Released volume Available; acting again on the old version is left alone', async () => {
  const created = await app.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pv-released' },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' }, claimRef: { namespace: 'default', name: 'gone', uid: 'u-1' } },
  });
  await app.store.update({ ...created, status: { phase: 'Released' } }, { subresource: 'status' });
  const c = caller(admin);
  const [row] = await c.reclaim.preview({ targets: [{ kind: 'PersistentVolume', name: 'pv-released', action: 'make-available' }] });
  expect(row.changes[0]).toBe('claimRef default/gone will be cleared');
  const item = { kind: 'PersistentVolume' as const, name: 'pv-released', action: 'make-available' as const, resourceVersion: row.resourceVersion };
  expect(await c.reclaim.act({ items: [item] })).toEqual({ done: ['pv-released'], skipped: [] });
  const again = await c.reclaim.act({ items: [item] });
  expect(again.done).toEqual([]);
  expect(again.skipped[0].reason).toContain('changed since the preview');
});
