import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/db';
import { UserAccounts } from './user-accounts';

let ts: TestStore;
let accounts: UserAccounts;

beforeAll(async () => {
  ts = await openTestStore();
  accounts = new UserAccounts(ts.store);
});
afterAll(async () => ts.close());

describe('user accounts', () => {
  it('creates a user with its namespaces once; a taken name creates nothing', async () => {
    const made = await accounts.create({ name: 'dev', role: 'developer', passwordHash: 'h1', namespaces: ['team-b', 'team-a', 'team-a'] });
    expect(made).toMatchObject({ name: 'dev', role: 'developer', passwordHash: 'h1', namespaces: ['team-a', 'team-b'] });
    expect(await accounts.create({ name: 'dev', role: 'admin', passwordHash: 'h2', namespaces: ['other'] })).toBeUndefined();
    expect(await accounts.byName('dev')).toEqual(made);
    expect(await accounts.count()).toBe(1);
  });

  it('replaces namespaces and lists users in name order', async () => {
    await accounts.create({ name: 'boss', role: 'admin', passwordHash: 'h', namespaces: [] });
    const dev = (await accounts.byName('dev'))!;
    await accounts.setNamespaces(dev.id, ['team-c']);
    expect((await accounts.list()).map((u) => [u.name, u.namespaces])).toEqual([
      ['boss', []],
      ['dev', ['team-c']],
    ]);
  });

  it('finds a token with its user by hash, and forgets it', async () => {
    const dev = (await accounts.byName('dev'))!;
    const expiresAt = new Date(Date.now() + 60_000);
    await accounts.createToken({ userId: dev.id, kind: 'session', name: 'browser', tokenHash: 'hash-1', expiresAt });
    const t = await accounts.token('hash-1');
    expect(t).toMatchObject({ kind: 'session', name: 'browser', user: { name: 'dev', namespaces: ['team-c'] } });
    expect(t?.expiresAt?.getTime()).toBe(expiresAt.getTime());
    await accounts.deleteToken('hash-1');
    expect(await accounts.token('hash-1')).toBeUndefined();
  });
});
