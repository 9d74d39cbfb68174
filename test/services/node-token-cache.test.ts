// Node token authentication on a real Postgres: a node token is remembered briefly, a
// revocation in this process applies at once, and one made by another process (another
// NodeAgentService on the same database, as the CLI's `stowage node revoke`) applies within
// NODE_TOKEN_CACHE_MS.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { NODE_TOKEN_CACHE_MS, NodeAgentService } from '../../server/services/node-agent';
import { openTestStore, type TestStore } from '../db';

let t: TestStore;
let agents: NodeAgentService;
let other: NodeAgentService;

beforeAll(async () => {
  t = await openTestStore();
  agents = new NodeAgentService(t.store);
  other = new NodeAgentService(t.store);
});
afterAll(() => t.close());

/** Polls `check` until it holds or `ms` have passed; the answer at the deadline. */
async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

test('a node token revoked in this process is refused at once', async () => {
  const token = await agents.createToken('node-here');
  expect(await agents.authenticate(token)).toEqual({ type: 'node', nodeName: 'node-here' });
  expect(await agents.authenticate(token)).toEqual({ type: 'node', nodeName: 'node-here' }); // remembered
  expect(await agents.revoke('node-here')).toBe(1);
  expect(await agents.authenticate(token)).toBeUndefined();
});

test('a node token revoked by another process is refused within NODE_TOKEN_CACHE_MS', async () => {
  expect(NODE_TOKEN_CACHE_MS).toBeLessThanOrEqual(5_000);
  const token = await agents.createToken('node-there');
  expect(await agents.authenticate(token)).toEqual({ type: 'node', nodeName: 'node-there' });
  const revoked = Date.now();
  expect(await other.revoke('node-there')).toBe(1);
  expect(await other.authenticate(token)).toBeUndefined();
  expect(await until(async () => (await agents.authenticate(token)) === undefined, NODE_TOKEN_CACHE_MS + 2_000)).toBe(true);
  expect(Date.now() - revoked).toBeLessThan(NODE_TOKEN_CACHE_MS + 2_000);
});

test('a new token works at once, and an unknown one is refused and not remembered', async () => {
  expect(await agents.authenticate('swn_no-such-token')).toBeUndefined();
  expect(await agents.authenticate(undefined)).toBeUndefined();
  const token = await other.createToken('node-new');
  expect(await agents.authenticate(token)).toEqual({ type: 'node', nodeName: 'node-new' });
  expect(await agents.authenticate(`${token}x`)).toBeUndefined();
});
