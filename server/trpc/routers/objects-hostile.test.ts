// Hostile manifests through the dashboard's procedures: each is a typed BAD_REQUEST (or
// FORBIDDEN for a viewer, before anything is parsed), writes nothing, and leaves
// Object.prototype as it was.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openTestApp } from '../../../test/app';
import type { AppContext } from '../../wiring/context';
import type { Principal } from '../../domain/authorization';
import { appRouter } from '../root';

let app: AppContext;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const viewer: Principal = { type: 'user', id: 'v', name: 'viewer', role: 'viewer', namespaces: [] };
const caller = (principal: Principal) => appRouter.createCaller({ app, principal, setSessionCookie: () => {} });

beforeAll(async () => {
  app = await openTestApp();
  await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
afterAll(async () => app?.close());

const ns = (rest: string) => `apiVersion: v1\nkind: Namespace\n${rest}`;

describe('hostile manifests', () => {
  test.each([
    { why: 'a __proto__ key', who: admin, manifest: ns('metadata: {name: x}\n__proto__: {polluted: "1"}\n'), code: 'BAD_REQUEST' },
    { why: 'a nested __proto__ key', who: admin, manifest: ns('metadata: {name: x, labels: {__proto__: {polluted: "1"}}}\n'), code: 'BAD_REQUEST' },
    { why: 'a !!binary tag', who: admin, manifest: ns('metadata: {name: !!binary eA==}\n'), code: 'BAD_REQUEST' },
    { why: 'a custom tag', who: admin, manifest: ns('metadata: !evil {name: x}\n'), code: 'BAD_REQUEST' },
    { why: 'a NUL in the name', who: admin, manifest: ns('metadata: {name: "a\\0b"}\n'), code: 'BAD_REQUEST' },
    { why: 'nesting 3000 deep', who: admin, manifest: ns(`metadata: {name: x}\nspec: ${'['.repeat(3000)}${']'.repeat(3000)}\n`), code: 'BAD_REQUEST' },
    { why: 'a quantity past the byte column', who: admin, manifest: 'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: big}\nspec: {capacity: {storage: 1e65}, accessModes: [ReadWriteOnce], hostPath: {path: /x}}\n', code: 'UNPROCESSABLE_CONTENT' },
    { why: 'a viewer, whatever the manifest holds', who: viewer, manifest: ns('metadata: {name: x}\n__proto__: {polluted: "1"}\n'), code: 'FORBIDDEN' },
  ])('$why is $code', async ({ who, manifest, code }) => {
    const before = await app.store.currentResourceVersion();
    for (const dryRun of [true, false]) {
      const err = await caller(who).objects.create({ manifest, dryRun }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code });
    }
    expect(await app.store.currentResourceVersion()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Still answering.
    expect((await caller(admin).objects.list({ kind: 'Namespace' })).items.map((o) => o.metadata.name)).toEqual(['default']);
  });
});
