// users.* through createCaller against a real database: only admins manage users and
// other people's tokens; everyone creates, lists and revokes their own tokens; a token's
// secret is in the answer to its creation only, and it authenticates until revoked.
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openTestApp } from '../../../test/app';
import type { AppContext } from '../../wiring/context';
import type { UserPrincipal } from '../../domain/authorization';
import { appRouter } from '../root';

let app: AppContext;
let admin: UserPrincipal;
let dev: UserPrincipal;
let other: UserPrincipal;
let viewer: UserPrincipal;
const kubeApi = { server: 'https://api.example:6443' };
const caller = (principal?: UserPrincipal) => appRouter.createCaller({ app, principal, kubeApi, setSessionCookie: () => {} });
const codeOf = (p: Promise<unknown>) => p.then(() => 'OK', (e: { code?: string }) => e.code);

beforeAll(async () => {
  app = await openTestApp();
  admin = (await app.users.create({ name: 'root-admin', role: 'admin' })).user;
  dev = (await app.users.create({ name: 'dev-a', role: 'developer', namespaces: ['team-a'] })).user;
  other = (await app.users.create({ name: 'dev-b', role: 'developer', namespaces: ['team-b'] })).user;
  viewer = (await app.users.create({ name: 'view', role: 'viewer' })).user;
});
afterAll(async () => app?.close());

describe('managing users is for admins', () => {
  test('signed out is UNAUTHORIZED; a developer or viewer is FORBIDDEN for every user procedure', async () => {
    expect(await codeOf(caller().users.list())).toBe('UNAUTHORIZED');
    for (const p of [dev, viewer]) {
      const c = caller(p);
      expect(await codeOf(c.users.list())).toBe('FORBIDDEN');
      expect(await codeOf(c.users.add({ name: 'x-by-' + p.name, role: 'admin' }))).toBe('FORBIDDEN');
      expect(await codeOf(c.users.remove({ name: 'dev-b' }))).toBe('FORBIDDEN');
      expect(await codeOf(c.users.update({ name: p.name, role: 'admin' }))).toBe('FORBIDDEN');
      expect(await codeOf(c.users.resetPassword({ name: 'dev-b', password: 'password-123' }))).toBe('FORBIDDEN');
      expect(await codeOf(c.users.tokens({ user: 'dev-b' }))).toBe('FORBIDDEN');
    }
    expect((await app.users.byName('dev-a'))?.role).toBe('developer');
    expect(await app.users.byName('x-by-dev-a')).toBeUndefined();
  });

  test('an admin adds a user (password shown once), sets role and namespaces, resets the password, removes the user', async () => {
    const c = caller(admin);
    const added = await c.users.add({ name: 'carol', role: 'developer', namespaces: ['team-c'] });
    expect(added.password.length).toBeGreaterThanOrEqual(16);
    const listed = (await c.users.list()).find((u) => u.name === 'carol');
    expect(listed).toEqual({ name: 'carol', role: 'developer', namespaces: ['team-c'], tokens: 0 });
    expect(JSON.stringify(await c.users.list())).not.toContain(added.password);
    expect(await codeOf(c.users.add({ name: 'carol', role: 'viewer' }))).toBe('CONFLICT');
    expect(await codeOf(c.users.add({ name: 'dan', role: 'superuser' }))).toBe('BAD_REQUEST');

    expect(await c.users.update({ name: 'carol', role: 'viewer', namespaces: ['team-d', 'team-c'] })).toEqual({ name: 'carol', role: 'viewer', namespaces: ['team-c', 'team-d'] });

    const session = await app.users.createToken('carol', { kind: 'session', ttlMs: 60_000 });
    expect(await app.users.authenticate(session)).toBeDefined();
    const { password } = await c.users.resetPassword({ name: 'carol' });
    await expect(app.users.signIn('carol', password)).resolves.toMatchObject({ name: 'carol' });
    await expect(app.users.signIn('carol', added.password)).rejects.toMatchObject({ code: 'Unauthorized' });
    expect(await app.users.authenticate(session)).toBeUndefined(); // signed out everywhere

    await c.users.remove({ name: 'carol' });
    expect(await app.users.byName('carol')).toBeUndefined();
    expect(await codeOf(c.users.remove({ name: 'carol' }))).toBe('NOT_FOUND');
  });

  test('an admin cannot remove themself or change their own role', async () => {
    const c = caller(admin);
    expect(await codeOf(c.users.remove({ name: admin.name }))).toBe('BAD_REQUEST');
    expect(await codeOf(c.users.update({ name: admin.name, role: 'viewer' }))).toBe('BAD_REQUEST');
    expect((await app.users.byName(admin.name))?.role).toBe('admin');
  });

  test('a role change applies to the next request of a token already in use', async () => {
    await app.users.create({ name: 'erin', role: 'developer', namespaces: ['team-e'] });
    const token = await app.users.createToken('erin');
    expect((await app.users.authenticate(token))?.role).toBe('developer');
    await caller(admin).users.update({ name: 'erin', role: 'viewer' });
    expect((await app.users.authenticate(token))?.role).toBe('viewer');
  });
});

describe('tokens', () => {
  test('every user creates, lists and revokes their own tokens; the secret is shown once', async () => {
    const c = caller(dev);
    const created = await c.users.createToken({ name: 'ci', ttlDays: 30 });
    expect(created.secret).toMatch(/^swt_/);
    expect(created.token).toMatchObject({ name: 'ci', lastUsedAt: null });
    expect(Date.parse(created.token.expiresAt!) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    expect(await app.users.authenticate(created.secret)).toMatchObject({ name: 'dev-a', token: 'ci' });

    const mine = await c.users.tokens({});
    expect(mine.map((t) => t.name)).toContain('ci');
    expect(JSON.stringify(mine)).not.toContain(created.secret);
    expect(Object.keys(mine[0]).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name']);

    await c.users.revokeToken({ id: created.token.id });
    expect(await app.users.authenticate(created.secret)).toBeUndefined();
    expect((await c.users.tokens({})).map((t) => t.id)).not.toContain(created.token.id);
  });

  test("a user may not see or revoke another user's token, not even by its id", async () => {
    const theirs = await caller(other).users.createToken({ name: 'theirs' });
    expect(await codeOf(caller(dev).users.revokeToken({ id: theirs.token.id }))).toBe('NOT_FOUND');
    expect(await codeOf(caller(dev).users.revokeToken({ id: theirs.token.id, user: 'dev-b' }))).toBe('FORBIDDEN');
    expect(await codeOf(caller(viewer).users.revokeToken({ id: theirs.token.id, user: 'dev-b' }))).toBe('FORBIDDEN');
    expect(await app.users.authenticate(theirs.secret)).toMatchObject({ name: 'dev-b' });
  });

  test("an admin lists and revokes anyone's tokens, without seeing their secrets", async () => {
    const theirs = await caller(other).users.createToken({ name: 'laptop' });
    const before = (await caller(admin).users.list()).find((u) => u.name === 'dev-b')!.tokens;
    const listed = await caller(admin).users.tokens({ user: 'dev-b' });
    expect(listed).toHaveLength(before);
    expect(listed.map((t) => t.name)).toContain('laptop');
    expect(JSON.stringify(listed)).not.toContain(theirs.secret);
    await caller(admin).users.revokeToken({ id: theirs.token.id, user: 'dev-b' });
    expect(await app.users.authenticate(theirs.secret)).toBeUndefined();
  });

  test('bad names and lifetimes are BAD_REQUEST', async () => {
    expect(await codeOf(caller(dev).users.createToken({ name: '' }))).toBe('BAD_REQUEST');
    expect(await codeOf(caller(dev).users.createToken({ name: 'x', ttlDays: 0 }))).toBe('BAD_REQUEST');
    expect(await codeOf(caller(dev).users.revokeToken({ id: 'not-a-uuid' }))).toBe('BAD_REQUEST');
  });
});

describe('kubeconfig', () => {
  test("is made with a new token of the caller's own, in a developer's first namespace", async () => {
    const { fileName, text } = await caller(dev).users.kubeconfig({ tokenName: 'kubectl' });
    expect(fileName).toBe('dev-a.kubeconfig');
    const k = parse(text) as { clusters: { cluster: { server: string } }[]; users: { name: string; user: { token: string } }[]; contexts: { context: { namespace: string } }[] };
    expect(k.clusters[0].cluster.server).toBe('https://api.example:6443');
    expect(k.contexts[0].context.namespace).toBe('team-a');
    expect(await app.users.authenticate(k.users[0].user.token)).toMatchObject({ name: 'dev-a', token: 'kubectl' });
    expect((await caller(dev).users.tokens({})).map((t) => t.name)).toContain('kubectl');
  });

  test('without an API to point at it is BAD_REQUEST', async () => {
    const c = appRouter.createCaller({ app, principal: dev, setSessionCookie: () => {} });
    expect(await codeOf(c.users.kubeconfig({}))).toBe('BAD_REQUEST');
  });
});
