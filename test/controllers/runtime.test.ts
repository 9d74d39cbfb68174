// The controller runtime's contract, on a real store: keys from the change log and the
// resync, retries with backoff, requeueAfter, terminal errors, bounded concurrency with one
// key never twice at once, own writes not echoed, graceful stop, metrics, event dedup.
import { register } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logger } from '../../server/services/logger';
import { Controller, LISTED_KEYS_QUEUED, type ControllerSpec, type ReconcileContext } from '../../server/controllers/runtime/controller';
import { TerminalError } from '../../server/controllers/runtime/errors';
import { EventRecorder } from '../../server/services/event-recorder';
import { openTestStore, type TestStore } from '../db';
import { sleep, waitFor } from './fixtures';

let ts: TestStore;
const running: Controller[] = [];
let n = 0;

beforeAll(async () => {
  ts = await openTestStore();
  await ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
afterAll(async () => {
  for (const c of running) await c.stop();
  await ts?.close();
});

function start(spec: Partial<ControllerSpec> & Pick<ControllerSpec, 'reconcile'>): Controller {
  const c = new Controller(
    {
      name: `test-${++n}`,
      watch: { kinds: [], keysFor: () => [] },
      listKeys: async () => [],
      ...spec,
    },
    { store: ts.store, log: logger },
  );
  running.push(c);
  return c;
}

describe('the reconcile contract', () => {
  it('a thrown error is retried with exponential backoff until it succeeds', async () => {
    const calls: number[] = [];
    const c = start({
      reconcile: async () => {
        calls.push(Date.now());
        if (calls.length < 5) throw new Error('not yet');
      },
      baseDelayMs: 20,
    });
    await c.start();
    c.queue.add('k');
    await waitFor('five attempts', async () => calls.length === 5);
    const gaps = calls.slice(1).map((t, i) => t - calls[i]);
    expect(gaps[0]).toBeGreaterThanOrEqual(15);
    expect(gaps[3]).toBeGreaterThanOrEqual(150); // 20, 40, 80, 160 ms
    expect(c.queue.numRequeues('k')).toBe(0); // success forgets the failures
  });

  it('requeueAfter looks again after that delay, without counting a failure', async () => {
    const calls: number[] = [];
    const c = start({
      reconcile: async () => {
        calls.push(Date.now());
        return calls.length === 1 ? { requeueAfter: 150 } : undefined;
      },
    });
    await c.start();
    c.queue.add('k');
    await waitFor('two calls', async () => calls.length === 2);
    expect(calls[1] - calls[0]).toBeGreaterThanOrEqual(140);
    await sleep(200);
    expect(calls).toHaveLength(2);
  });

  it('a TerminalError is recorded and not retried', async () => {
    let calls = 0;
    const errors: [string, boolean][] = [];
    const c = start({
      reconcile: async () => {
        calls++;
        throw new TerminalError('this can never work');
      },
      onError: (key, _e, terminal) => errors.push([key, terminal]),
    });
    await c.start();
    c.queue.add('bad');
    await waitFor('one call', async () => calls === 1);
    await sleep(300);
    expect(calls).toBe(1);
    expect(errors).toEqual([['bad', true]]);
    const metric = await register.getSingleMetric('stowage_controller_terminal_reconcile_errors_total')!.get();
    expect(metric.values.find((v) => v.labels.controller === c.name)?.value).toBe(1);
  });

  it('runs at most `concurrency` reconciles at once, and never one key twice at once', async () => {
    let now = 0;
    let most = 0;
    const perKey = new Map<string, number>();
    let overlap = false;
    let done = 0;
    const c = start({
      concurrency: 3,
      reconcile: async (key) => {
        now++;
        most = Math.max(most, now);
        perKey.set(key, (perKey.get(key) ?? 0) + 1);
        if (perKey.get(key)! > 1) overlap = true;
        await sleep(30);
        perKey.set(key, perKey.get(key)! - 1);
        now--;
        done++;
      },
    });
    await c.start();
    for (let round = 0; round < 5; round++) {
      for (const k of ['a', 'b', 'c', 'd', 'e']) c.queue.add(k);
      await sleep(10);
    }
    await waitFor('queue drained', async () => c.queue.length === 0 && c.queue.inFlight === 0 && done > 0);
    expect(most).toBe(3);
    expect(overlap).toBe(false);
    // Duplicates collapsed: far fewer runs than the 25 adds.
    expect(done).toBeLessThan(25);
  });

  it('sixteen workers waiting on the stop signal at once is no listener leak (no MaxListenersExceededWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      let waiting = 0;
      let done = 0;
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const c = start({
        concurrency: 16,
        reconcile: async (_key, ctx) => {
          waiting++;
          // Each worker listens on the controller's signal while it waits.
          await new Promise<void>((resolve) => {
            const onAbort = () => resolve();
            ctx.signal.addEventListener('abort', onAbort, { once: true });
            void released.then(() => {
              ctx.signal.removeEventListener('abort', onAbort);
              resolve();
            });
          });
          done++;
        },
      });
      await c.start();
      for (let i = 0; i < 16; i++) c.queue.add(`k${i}`);
      await waitFor('16 workers waiting', async () => waiting === 16);
      release();
      await waitFor('all done', async () => done === 16);
      // A warning is emitted on the next tick at the latest.
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('sources', () => {
  it('changes from the change log feed the queue; the echo of its own write is skipped', async () => {
    const seen: string[] = [];
    const c = start({
      // One worker: the echo waits in the queue until the writing reconcile has said what
      // it wrote, however early its change reaches the watch (with several workers a free
      // one may take it first and reconcile it once more, which is harmless).
      concurrency: 1,
      watch: { kinds: ['Namespace'], keysFor: (e) => [`${e.type}:${e.name}`] },
      reconcile: async (key: string, ctx: ReconcileContext) => {
        seen.push(key);
        if (key === 'ADDED:watched') {
          const ns = await ts.store.get('Namespace', undefined, 'watched');
          const written = await ts.store.update({ ...ns, metadata: { ...ns.metadata, labels: { touched: 'yes' } } });
          ctx.wrote(written.metadata.resourceVersion);
        }
      },
    });
    await c.start();
    await ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched' } });
    // Wait for the reconcile's own write too: the test's update must not race it.
    await waitFor(
      'the ADDED event and its own write',
      async () => seen.includes('ADDED:watched') && (await ts.store.get('Namespace', undefined, 'watched')).metadata.labels?.touched === 'yes',
    );
    const ns = await ts.store.get('Namespace', undefined, 'watched');
    await ts.store.update({ ...ns, metadata: { ...ns.metadata, labels: { touched: 'someone-else' } } });
    await waitFor('the other MODIFIED event', async () => seen.filter((k) => k === 'MODIFIED:watched').length === 1);
    await sleep(200);
    expect(seen).toEqual(['ADDED:watched', 'MODIFIED:watched']);
  });

  it('an echo that reaches the watch before the reconcile says it wrote it is still skipped', async () => {
    const seen: string[] = [];
    const c = start({
      concurrency: 1,
      watch: { kinds: ['Namespace'], keysFor: (e) => [`${e.type}:${e.name}`] },
      reconcile: async (key: string, ctx: ReconcileContext) => {
        seen.push(key);
        if (key === 'ADDED:late-echo') {
          const ns = await ts.store.get('Namespace', undefined, 'late-echo');
          const written = await ts.store.update({ ...ns, metadata: { ...ns.metadata, labels: { touched: 'yes' } } });
          // The echo is queued (behind this reconcile, the only worker) before `wrote`.
          await waitFor('the echo queued', async () => ctx.isQueued('MODIFIED:late-echo'));
          ctx.wrote(written.metadata.resourceVersion);
        }
      },
    });
    await c.start();
    await ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'late-echo' } });
    await waitFor('the ADDED event', async () => seen.includes('ADDED:late-echo'));
    await waitFor('its own write', async () => (await ts.store.get('Namespace', undefined, 'late-echo')).metadata.labels?.touched === 'yes');
    const ns = await ts.store.get('Namespace', undefined, 'late-echo');
    await ts.store.update({ ...ns, metadata: { ...ns.metadata, labels: { touched: 'someone-else' } } });
    await waitFor('the other MODIFIED event', async () => seen.filter((k) => k === 'MODIFIED:late-echo').length === 1);
    await sleep(200);
    expect(seen).toEqual(['ADDED:late-echo', 'MODIFIED:late-echo']);
  });

  it('lists every key at start, and again at each resync', async () => {
    const seen: string[] = [];
    let lists = 0;
    const c = start({
      listKeys: async () => {
        lists++;
        return ['x', 'y'];
      },
      resync: { everyMs: 100 },
      reconcile: async (key) => {
        seen.push(key);
      },
    });
    await c.start();
    await waitFor('three lists', async () => lists >= 3);
    expect(seen.filter((k) => k === 'x').length).toBeGreaterThanOrEqual(2);
  });

  it("queues a start's list LISTED_KEYS_QUEUED keys at a time, each once, reading its pages as needed, and resyncs only once it is all queued", async () => {
    const total = Math.floor(LISTED_KEYS_QUEUED * 2.5);
    const keys = Array.from({ length: total }, (_, i) => `l${i}`);
    const PAGE = LISTED_KEYS_QUEUED / 4;
    const seen = new Map<string, number>();
    let mostWaiting = 0;
    let pagesRead = 0;
    let pagesReadAtFirstKey: number | undefined;
    let seenAtFirstResync: number | undefined;
    const c = start({
      concurrency: 2,
      listKeys: async function* () {
        for (let i = 0; i < total; i += PAGE) {
          pagesRead++;
          yield keys.slice(i, i + PAGE);
        }
      },
      resync: {
        everyMs: 5,
        listKeys: async () => {
          seenAtFirstResync ??= seen.size;
          return [];
        },
      },
      reconcile: async (key) => {
        pagesReadAtFirstKey ??= pagesRead;
        mostWaiting = Math.max(mostWaiting, c.queue.length);
        seen.set(key, (seen.get(key) ?? 0) + 1);
        if (seen.size % 100 === 0) await new Promise((r) => setImmediate(r)); // timers may run between keys
      },
    });
    await c.start();
    await waitFor('every listed key', async () => seen.size === total);
    expect([...seen.values()].every((times) => times === 1)).toBe(true);
    expect(mostWaiting).toBeLessThanOrEqual(LISTED_KEYS_QUEUED);
    // Pages read as the queue took keys: a queue's worth (and the page in hand) before the first reconcile, not all ten.
    expect(pagesReadAtFirstKey).toBeLessThanOrEqual(LISTED_KEYS_QUEUED / PAGE + 1);
    expect(pagesRead).toBe(total / PAGE);
    await waitFor('a resync round', async () => seenAtFirstResync !== undefined);
    // The first round came after the last listed keys were queued (at most a queue's worth not yet run).
    expect(seenAtFirstResync).toBeGreaterThanOrEqual(total - LISTED_KEYS_QUEUED);
  });

  it('queues a resync round at most keysPerSecond a second, and a change goes ahead of the round', async () => {
    const keys = Array.from({ length: 40 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    const seen: { key: string; at: number }[] = [];
    let listed = 0;
    let roundStart = 0;
    const c = start({
      concurrency: 1,
      listKeys: async () => [],
      resync: {
        everyMs: 20,
        keysPerSecond: 100,
        listKeys: async () => {
          if (listed++ > 0) return [];
          roundStart = Date.now();
          return keys;
        },
      },
      reconcile: async (key) => {
        seen.push({ key, at: Date.now() });
      },
    });
    await c.start();
    await waitFor('the round started', async () => seen.length >= 1);
    c.queue.add('changed');
    await waitFor('every key of the round', async () => keys.every((k) => seen.some((s) => s.key === k)));
    // 40 keys at 100 a second, 10 per 100 ms slice: the last slice is queued 300 ms after the first.
    const last = seen.find((s) => s.key === 'k39')!;
    expect(last.at - roundStart).toBeGreaterThanOrEqual(290);
    // The change was handed out before the round's keys queued after it.
    const order = seen.map((s) => s.key);
    expect(order.indexOf('changed')).toBeLessThan(order.indexOf('k39'));
    expect(order.filter((k) => k.startsWith('k'))).toEqual(keys);
  });
});

describe('stopping and metrics', () => {
  it('stop lets the running reconcile finish and takes no more keys', async () => {
    const finished: string[] = [];
    const c = start({
      concurrency: 1,
      reconcile: async (key) => {
        await sleep(150);
        finished.push(key);
      },
    });
    await c.start();
    c.queue.add('first');
    c.queue.add('second');
    await sleep(30);
    await c.stop();
    expect(finished).toEqual(['first']);
    c.queue.add('late');
    await sleep(200);
    expect(finished).toEqual(['first']);
  });

  it('exports queue depth, reconcile duration and errors by controller', async () => {
    const c = start({ reconcile: async () => {} });
    await c.start();
    c.queue.add('k');
    await waitFor('done', async () => c.queue.length === 0 && c.queue.inFlight === 0);
    const text = await register.metrics();
    expect(text).toContain(`stowage_workqueue_depth{controller="${c.name}"}`);
    expect(text).toContain(`stowage_controller_reconcile_duration_seconds_count{controller="${c.name}"}`);
    expect(text).toContain(`stowage_controller_reconcile_total{controller="${c.name}",result="success"}`);
    expect(text).toContain('stowage_controller_reconcile_errors_total');
  });
});

describe('events', () => {
  it('a repeated event increments count on one Event instead of creating another', async () => {
    const recorder = new EventRecorder(ts.store, 'test-component', logger);
    const pv = await ts.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'ev-pv' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/x' } },
    });
    await recorder.record(pv, 'Warning', 'SomethingOdd', 'it happened');
    await recorder.record(pv, 'Warning', 'SomethingOdd', 'it happened');
    await recorder.record(pv, 'Normal', 'Other', 'something else');
    const events = ((await ts.store.list('Event', { namespace: 'default' })).items).filter((e) => e.involvedObject?.name === 'ev-pv');
    expect(events).toHaveLength(2);
    const odd = events.find((e) => e.reason === 'SomethingOdd')!;
    expect(odd).toMatchObject({ count: 2, type: 'Warning', source: { component: 'test-component' }, involvedObject: { kind: 'PersistentVolume', uid: pv.metadata.uid } });
    expect(odd.metadata.namespace).toBe('default');
    expect(odd.firstTimestamp! <= odd.lastTimestamp!).toBe(true);
  });

  it('a retry whose message carries a changing number writes at most ten Events: nine, then one combined that counts up (aggregation)', async () => {
    const recorder = new EventRecorder(ts.store, 'test-component', logger);
    const pv = await ts.store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'ev-pv-agg' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/x' } },
    });
    const messages = Array.from({ length: 14 }, (_, i) => `not enough space: ${76797532 - i * 100} bytes free`);
    // The same message again counts up on its own Event.
    await recorder.record(pv, 'Warning', 'ProvisioningFailed', messages[0]);
    for (const m of messages) await recorder.record(pv, 'Warning', 'ProvisioningFailed', m);
    const events = ((await ts.store.list('Event', { namespace: 'default' })).items).filter((e) => e.involvedObject?.name === 'ev-pv-agg');
    expect(events).toHaveLength(10);
    const combined = events.filter((e) => e.message?.startsWith('(combined from similar events): '));
    expect(combined).toHaveLength(1);
    expect(combined[0]).toMatchObject({ count: 5, reason: 'ProvisioningFailed', message: `(combined from similar events): ${messages[13]}` });
    expect(events.find((e) => e.message === messages[0])).toMatchObject({ count: 2 });
  });
});
