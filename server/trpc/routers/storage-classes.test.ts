// storageClasses.replaceInPlace through createCaller against a real database: hostile input
// is refused before any service runs, a non-admin before the manifest is parsed, and a
// dry run then the write replace the class under its own name.
import { TRPCError } from '@trpc/server';
import { stringify } from 'yaml';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openTestApp } from '../../../test/app';
import type { AppContext } from '../../wiring/context';
import type { Principal } from '../../domain/authorization';
import { appRouter } from '../root';

let app: AppContext;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['default'] };
const viewer: Principal = { type: 'user', id: 'v', name: 'viewer', role: 'viewer', namespaces: [] };
const caller = (principal?: Principal) => appRouter.createCaller({ app, principal, setSessionCookie: () => {} });
const sc = (name: string, reclaimPolicy = 'Delete') => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'example.com/x', reclaimPolicy, volumeBindingMode: 'Immediate' });

beforeAll(async () => {
  app = await openTestApp();
});
afterAll(async () => app?.close());

test.each([
  { name: 'no version', input: { name: 'a', resourceVersion: '', manifest: 'x', makeDefault: false } },
  { name: 'an empty name', input: { name: '', resourceVersion: '1', manifest: 'x', makeDefault: false } },
  { name: 'a name too long', input: { name: 'a'.repeat(300), resourceVersion: '1', manifest: 'x', makeDefault: false } },
  { name: 'no makeDefault', input: { name: 'a', resourceVersion: '1', manifest: 'x' } },
  { name: 'a manifest that is no string', input: { name: 'a', resourceVersion: '1', manifest: { kind: 'StorageClass' }, makeDefault: false } },
])('$name is BAD_REQUEST', async ({ input }) => {
  const err = await caller(admin).storageClasses.replaceInPlace(input as never).catch((e) => e);
  expect(err).toBeInstanceOf(TRPCError);
  expect(err.code).toBe('BAD_REQUEST');
});

test('signed out is UNAUTHORIZED; a developer or viewer is FORBIDDEN whatever the manifest holds', async () => {
  const input = { name: 'a', resourceVersion: '1', manifest: '{{{ not yaml', makeDefault: false };
  expect((await caller().storageClasses.replaceInPlace(input).catch((e) => e)).code).toBe('UNAUTHORIZED');
  for (const p of [dev, viewer]) expect((await caller(p).storageClasses.replaceInPlace(input).catch((e) => e)).code).toBe('FORBIDDEN');
});

test('a dry run then the write replace the class under its name; the old version is then a CONFLICT', async () => {
  const original = await app.store.create(sc('rep'));
  const input = { name: 'rep', resourceVersion: original.metadata.resourceVersion!, manifest: stringify(sc('rep', 'Retain')), makeDefault: false };
  const dry = await caller(admin).storageClasses.replaceInPlace({ ...input, dryRun: true });
  expect(dry.dryRun).toBe(true);
  expect((await app.store.get('StorageClass', undefined, 'rep')).metadata.uid).toBe(original.metadata.uid);
  const done = await caller(admin).storageClasses.replaceInPlace(input);
  expect(done.class.reclaimPolicy).toBe('Retain');
  expect((await app.store.get('StorageClass', undefined, 'rep')).metadata.uid).toBe(done.class.metadata.uid);
  expect((await caller(admin).storageClasses.replaceInPlace(input).catch((e) => e)).code).toBe('CONFLICT');
  const invalid = await caller(admin).storageClasses.replaceInPlace({ ...input, resourceVersion: done.class.metadata.resourceVersion!, manifest: stringify(sc('rep', 'Recycle')) }).catch((e) => e);
  expect(invalid.code).toBe('UNPROCESSABLE_CONTENT');
});
