import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue';

const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

/** A worker's `get`, checked to be still waiting after a tick: `key` is 'none' until the queue hands it one. */
async function waitingGet(q: WorkQueue): Promise<{ key: string | undefined }> {
  const w: { key: string | undefined } = { key: 'none' };
  void q.get().then((k) => (w.key = k));
  await tick();
  expect(w.key).toBe('none');
  return w;
}

/** What the waiting `get` holds a tick after `act`. */
async function handedAfter(w: { key: string | undefined }, act: () => void): Promise<string | undefined> {
  act();
  await tick();
  return w.key;
}

describe('WorkQueue', () => {
  it('hands keys out in the order they were added', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('collapses duplicates while a key waits', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.length).toBe(0);
  });

  it('never hands out a key that is being processed; re-adds it at done', async () => {
    const q = new WorkQueue();
    q.add('a');
    const first = await q.get();
    expect(q.isPending('a')).toBe(false);
    q.add('a');
    expect(q.isPending('a')).toBe(true);
    q.add('b');
    expect(await q.get()).toBe('b');
    expect(q.length).toBe(0);
    q.done(first!);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('a');
  });

  it('a key done without being re-added does not come back', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.done((await q.get())!);
    expect(q.length).toBe(0);
    expect(q.has('a')).toBe(false);
  });

  it('wakes a waiting worker when a key arrives', async () => {
    const q = new WorkQueue();
    const got = q.get();
    q.add('x');
    expect(await got).toBe('x');
    expect(q.has('x')).toBe(true);
  });

  it('addAfter delays the key; the earliest pending delay wins', async () => {
    const q = new WorkQueue();
    q.addAfter('a', 200);
    q.addAfter('a', 20);
    q.addAfter('a', 500);
    expect(q.length).toBe(0);
    await tick(60);
    expect(q.length).toBe(1);
  });

  it('backs off exponentially per key until forgotten', () => {
    const q = new WorkQueue({ baseDelayMs: 5, maxDelayMs: 1000 });
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      delays.push(q.backoffOf('k'));
      q.addRateLimited('k');
    }
    expect(delays).toEqual([5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
    expect(q.numRequeues('k')).toBe(10);
    q.forget('k');
    expect(q.backoffOf('k')).toBe(5);
    q.shutDown();
  });

  it('shutDown releases waiting workers and refuses new keys', async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.shutDown();
    expect(await waiting).toBeUndefined();
    q.add('late');
    expect(q.length).toBe(0);
    expect(await q.get()).toBeUndefined();
  });

  it('reports depth changes', () => {
    const depths: number[] = [];
    const q = new WorkQueue({ onDepth: (n) => depths.push(n) });
    q.add('a');
    q.add('b');
    void q.get();
    expect(depths).toEqual([1, 2, 1]);
  });

  it('hands background keys out after every other key, in their own order', async () => {
    const q = new WorkQueue();
    q.add('listed-1', true);
    q.add('listed-2', true);
    q.add('change-1');
    q.add('listed-3', true);
    q.add('change-2');
    expect(q.length).toBe(5);
    expect(q.backgroundLength).toBe(3);
    const order: string[] = [];
    for (let i = 0; i < 5; i++) order.push((await q.get())!);
    expect(order).toEqual(['change-1', 'change-2', 'listed-1', 'listed-2', 'listed-3']);
    expect(q.length).toBe(0);
  });

  it('moves a waiting background key ahead when a change adds it, and hands it out once', async () => {
    const q = new WorkQueue();
    q.add('a', true);
    q.add('b', true);
    q.add('c', true);
    q.add('b');
    q.add('b', true); // still due: no-op
    expect(q.length).toBe(3);
    expect(q.backgroundLength).toBe(2);
    const order: string[] = [];
    for (let i = 0; i < 3; i++) order.push((await q.get())!);
    expect(order).toEqual(['b', 'a', 'c']);
    expect(q.length).toBe(0);
    // b's stale background entry is skipped: nothing more to hand out.
    const handed = await waitingGet(q);
    expect(await handedAfter(handed, () => q.add('d'))).toBe('d');
  });

  it('a key added again while processed goes behind when done only if every add was background', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    const a = (await q.get())!;
    const b = (await q.get())!;
    q.add('a', true);
    q.add('b', true);
    q.add('b');
    q.add('z');
    q.done(a);
    q.done(b);
    expect(q.backgroundLength).toBe(1);
    const order: string[] = [];
    for (let i = 0; i < 3; i++) order.push((await q.get())!);
    expect(order).toEqual(['z', 'b', 'a']);
  });

  it('processes at most maxBackgroundInFlight background keys at once; changes are handed out meanwhile', async () => {
    const q = new WorkQueue({ maxBackgroundInFlight: 2 });
    for (const k of ['b1', 'b2', 'b3', 'b4']) q.add(k, true);
    const first = [(await q.get())!, (await q.get())!];
    expect(first).toEqual(['b1', 'b2']);
    // No room for b3: a worker waits...
    const third = await waitingGet(q);
    // ...and takes a change as soon as one comes, or b3 once a background key is done.
    expect(await handedAfter(third, () => q.add('change'))).toBe('change');
    const fourth = await waitingGet(q);
    // A change done makes no room for background keys.
    expect(await handedAfter(fourth, () => q.done('change'))).toBe('none');
    expect(await handedAfter(fourth, () => q.done('b1'))).toBe('b3');
    // A waiting background key that a change adds again goes out at once, room or not.
    const fifth = await waitingGet(q);
    expect(await handedAfter(fifth, () => q.add('b4'))).toBe('b4');
    expect(q.length).toBe(0);
  });
});
