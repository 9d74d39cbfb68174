// Token authentication on a real Postgres: a token's user is remembered briefly, and
// revoking the token or changing the user's namespaces in this process applies at once;
// a revocation by another process (another UserService on the same database) applies
// within AUTH_CACHE_MS.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { AUTH_CACHE_MS, UserService } from '../../server/services/users';
import { openTestStore, type TestStore } from '../db';

let t: TestStore;
let users: UserService;
let other: UserService;

beforeAll(async () => {
  t = await openTestStore();
  users = new UserService(t.store);
  other = new UserService(t.store);
  await users.create({ name: 'dev', role: 'developer', namespaces: ['team-a'] });
});
afterAll(() => t.close());

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

test('a revoked token stops working at once in the process that revoked it', async () => {
  const token = await users.createToken('dev');
  expect((await users.authenticate(token))?.name).toBe('dev');
  await users.revokeToken(token);
  expect(await users.authenticate(token)).toBeUndefined();
});

test('a token revoked by another process stops working within the cache time', async () => {
  const token = await users.createToken('dev');
  expect((await users.authenticate(token))?.name).toBe('dev');
  await other.revokeToken(token);
  expect(await until(async () => (await users.authenticate(token)) === undefined, AUTH_CACHE_MS + 2_000)).toBe(true);
});

test('a namespace change applies to the next request at once', async () => {
  const token = await users.createToken('dev');
  expect((await users.authenticate(token))?.namespaces).toEqual(['team-a']);
  await users.setNamespaces('dev', ['team-a', 'team-b']);
  expect((await users.authenticate(token))?.namespaces).toEqual(['team-a', 'team-b']);
});

test('an unknown token is never remembered as a user', async () => {
  expect(await users.authenticate('no-such-token')).toBeUndefined();
  expect(await users.authenticate('')).toBeUndefined();
});
