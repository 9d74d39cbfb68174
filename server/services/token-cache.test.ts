import { afterEach, describe, expect, it, vi } from 'vitest';
import { TokenCache } from './token-cache';

afterEach(() => {
  vi.useRealTimers();
});

/** A lookup that counts its calls and answers `value` (undefined: not found). */
function lookup(value: string | undefined, expiresAtMs?: number) {
  const calls = { n: 0 };
  const fn = async () => {
    calls.n++;
    return value === undefined ? undefined : { value, expiresAtMs };
  };
  return { calls, fn };
}

describe('TokenCache', () => {
  it('remembers a found token for its time, then asks again', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const c = new TokenCache<string>(2000);
    const l = lookup('node-a');
    expect(await c.get('h', l.fn)).toBe('node-a');
    vi.setSystemTime(1_001_999);
    expect(await c.get('h', l.fn)).toBe('node-a');
    expect(l.calls.n).toBe(1);
    vi.setSystemTime(1_002_000);
    expect(await c.get('h', l.fn)).toBe('node-a');
    expect(l.calls.n).toBe(2);
  });

  it('never remembers a token not found', async () => {
    const c = new TokenCache<string>(2000);
    const l = lookup(undefined);
    expect(await c.get('h', l.fn)).toBeUndefined();
    expect(await c.get('h', l.fn)).toBeUndefined();
    expect(l.calls.n).toBe(2);
  });

  it('keeps a token no longer than its own expiry', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const c = new TokenCache<string>(2000);
    const l = lookup('user', 1_000_500);
    await c.get('h', l.fn);
    vi.setSystemTime(1_000_500);
    await c.get('h', l.fn);
    expect(l.calls.n).toBe(2);
  });

  it('forgets what it is told to at once, and a lookup under way then is not remembered', async () => {
    const c = new TokenCache<string>(60_000);
    await c.get('a', lookup('node-a').fn);
    await c.get('b', lookup('node-b').fn);
    c.forget((node) => node === 'node-a');
    const again = lookup('node-a');
    await c.get('a', again.fn);
    await c.get('b', again.fn);
    expect(again.calls.n).toBe(1);

    let finish!: () => void;
    const slow = c.get('c', async () => {
      await new Promise<void>((r) => (finish = r));
      return { value: 'node-c' };
    });
    c.forget((node) => node === 'node-c');
    finish();
    expect(await slow).toBe('node-c');
    const after = lookup('node-c');
    await c.get('c', after.fn);
    expect(after.calls.n).toBe(1);
  });

  it('holds at most its bound, dropping the oldest', async () => {
    const c = new TokenCache<string>(60_000, 2);
    for (const h of ['1', '2', '3']) await c.get(h, lookup(`v${h}`).fn);
    const l = lookup('v1');
    await c.get('1', l.fn);
    await c.get('3', l.fn);
    expect(l.calls.n).toBe(1);
  });
});
