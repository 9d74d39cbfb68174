// The dashboard's procedures through createCaller against a real database.
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openTestApp } from '../../../test/app';
import type { AppContext } from '../../wiring/context';
import { appRouter } from '../root';

let app: AppContext;
let cookies: (string | null)[] = [];

function caller(principal?: Awaited<ReturnType<AppContext['users']['authenticate']>>) {
  return appRouter.createCaller({ app, principal, setSessionCookie: (t) => cookies.push(t) });
}

beforeAll(async () => {
  app = await openTestApp();
  await app.users.create({ name: 'admin', role: 'admin', password: 'correct-horse' });
  await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
afterAll(async () => app?.close());

async function signedIn() {
  cookies = [];
  await caller().auth.signIn({ name: 'admin', password: 'correct-horse' });
  const principal = await app.users.authenticate(cookies[0] ?? undefined);
  return caller(principal);
}

describe('auth', () => {
  test('a wrong password is UNAUTHORIZED and sets no cookie', async () => {
    cookies = [];
    const err = await caller().auth.signIn({ name: 'admin', password: 'nope' }).catch((e) => e);
    expect(err).toBeInstanceOf(TRPCError);
    expect(err.code).toBe('UNAUTHORIZED');
    expect(cookies).toEqual([]);
  });
  test('signing in sets a session that authenticates as the user', async () => {
    const c = await signedIn();
    expect(await c.auth.me()).toEqual({ name: 'admin', role: 'admin', namespaces: [] });
  });
  test('procedures need a session', async () => {
    await expect(caller().objects.list({ kind: 'PersistentVolume' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });
});

describe('objects from manifests', () => {
  const pvYaml = (name: string, size = '5Gi') => `apiVersion: v1
kind: PersistentVolume
metadata:
  name: ${name}
spec:
  capacity:
    storage: ${size}
  accessModes: [ReadWriteOnce]
  hostPath:
    path: /tmp/${name}
`;

  test('creates a PV from YAML and lists it', async () => {
    const c = await signedIn();
    const o = await c.objects.create({ manifest: pvYaml('pv-yaml') });
    expect(o.metadata.name).toBe('pv-yaml');
    const list = await c.objects.list({ kind: 'PersistentVolume' });
    expect(list.items.map((i) => i.metadata.name)).toContain('pv-yaml');
  });

  test.each([
    { why: 'invalid YAML', manifest: 'kind: [unclosed', code: 'BAD_REQUEST', message: /invalid YAML/ },
    { why: 'no kind', manifest: 'apiVersion: v1\nmetadata: {name: x}\n', code: 'BAD_REQUEST', message: /Kind/ },
    { why: 'unknown kind', manifest: 'apiVersion: v1\nkind: Deployment\nmetadata: {name: x}\n', code: 'BAD_REQUEST', message: /Deployment/ },
    { why: 'wrong apiVersion', manifest: 'apiVersion: v2\nkind: PersistentVolume\nmetadata: {name: x}\n', code: 'BAD_REQUEST', message: /apiVersion/ },
    { why: 'two documents', manifest: `${pvYaml('a1')}---\n${pvYaml('a2')}`, code: 'BAD_REQUEST', message: /several documents/ },
  ])('$why is $code and creates nothing', async ({ manifest, code, message }) => {
    const c = await signedIn();
    const before = await app.store.currentResourceVersion();
    const err = await c.objects.create({ manifest }).catch((e) => e);
    expect(err.code).toBe(code);
    expect(err.message).toMatch(message);
    expect(await app.store.currentResourceVersion()).toBe(before);
  });

  test('a validation error carries the offending field paths', async () => {
    const c = await signedIn();
    const err = await c.objects.create({ manifest: pvYaml('pv-bad-size', 'lots') }).catch((e) => e);
    expect(err.code).toBe('UNPROCESSABLE_CONTENT');
    expect(err.cause.details.causes.map((x: { field: string }) => x.field)).toContain('spec.capacity[storage]');
    expect(await app.store.tryGet('PersistentVolume', undefined, 'pv-bad-size')).toBeUndefined();
  });

  test('update keeps kind and name; delete removes', async () => {
    const c = await signedIn();
    const o = await c.objects.create({ manifest: pvYaml('pv-upd') });
    const updated = await c.objects.update({
      kind: 'PersistentVolume',
      name: 'pv-upd',
      manifest: JSON.stringify({ ...o, metadata: { ...o.metadata, labels: { tier: 'gold' } } }),
    });
    expect(updated.metadata.labels).toEqual({ tier: 'gold' });
    await expect(
      c.objects.update({ kind: 'PersistentVolume', name: 'other', manifest: JSON.stringify(o) }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const stale = await c.objects.update({ kind: 'PersistentVolume', name: 'pv-upd', manifest: JSON.stringify(o) }).catch((e) => e);
    expect(stale.code).toBe('CONFLICT');
    // kubernetes.io/pv-protection (from admission) holds it until its controller sees it unbound.
    const held = await c.objects.delete({ kind: 'PersistentVolume', name: 'pv-upd' });
    expect(held).toMatchObject({ deleted: false, object: { metadata: { finalizers: ['kubernetes.io/pv-protection'] } } });
  });
});
