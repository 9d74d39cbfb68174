// The binder's batch prefetch on real Postgres: a batch of claims gets, in three
// statements, the volumes binding them one at a time would give; the reconciles then bind
// without another round trip; side-by-side batches never choose the same volume; and a
// claim that looks for a volume itself leaves the others' chosen volumes alone; the
// volumes a batch's volume reconciles will write are locked in one statement.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findMatchInStore, lockClaimForBinding, writeBinding } from '../../server/controllers/binder/bind';
import { bindPrefetcher, prefetchBindings, prefetchedVolume } from '../../server/controllers/binder/bind-prefetch';
import { transact, type ControllerTx } from '../../server/controllers/runtime/controller-tx';
import type { PersistentVolumeClaim } from '../../server/resources/persistent-volume-claim/schema';
import { countStatements, openTestStore, type TestStore } from '../db';

let ts: TestStore;
beforeAll(async () => {
  ts = await openTestStore();
});
afterAll(async () => {
  await ts?.close();
});

async function volume(name: string, size: string, cls: string): Promise<void> {
  await ts.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], storageClassName: cls, persistentVolumeReclaimPolicy: 'Retain', hostPath: { path: `/tmp/${name}` } },
  });
  const v = await ts.store.get('PersistentVolume', undefined, name);
  await ts.store.update({ ...v, status: { phase: 'Available' } }, { subresource: 'status' });
}

async function claim(ns: string, name: string, size: string, cls: string, extra: Record<string, unknown> = {}): Promise<PersistentVolumeClaim> {
  // create returns the claim it stored.
  return ts.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: ns },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName: cls, ...extra },
  });
}

/** Another transaction reads (and so locks) the volume and holds it until `release` (which resolves once it has ended). */
async function holdVolume(name: string): Promise<{ release(): Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let holding!: () => void;
  const isHeld = new Promise<void>((r) => (holding = r));
  const done = transact(ts.store, async (tx) => {
    await tx.get('PersistentVolume', undefined, name);
    holding();
    await held;
  });
  await isHeld;
  return {
    release: async () => {
      release();
      await done;
    },
  };
}

/** Binds each claim in order as a reconcile does; returns claim name -> volume name. */
async function bindAll(tx: ControllerTx, claims: PersistentVolumeClaim[]): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  for (const c of claims) {
    const { claim: locked, reserved } = await lockClaimForBinding(tx, c.metadata.namespace!, c.metadata.name!);
    const { match } = await findMatchInStore(tx, locked!, {}, reserved);
    if (match) await writeBinding(tx, match.volume, locked!);
    out[c.metadata.name!] = match?.volume.metadata.name ?? null;
  }
  return out;
}

describe('prefetch', () => {
  test('a batch gets the volumes one-at-a-time binding gives, and binds without another statement', async () => {
    await ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pf-a' } });
    for (const [n, s] of [['pa-1', '1Gi'], ['pa-2', '2Gi'], ['pa-3', '3Gi'], ['pa-5', '5Gi'], ['pa-8', '8Gi']]) await volume(n, s, 'pf-a');
    const claims = [await claim('pf-a', 'c0', '2Gi', 'pf-a'), await claim('pf-a', 'c1', '1Gi', 'pf-a'), await claim('pf-a', 'c2', '2Gi', 'pf-a'), await claim('pf-a', 'c3', '6Gi', 'pf-a'), await claim('pf-a', 'c4', '9Gi', 'pf-a')];
    const got = await transact(ts.store, async (tx) => {
      await prefetchBindings(tx, claims.map((c) => ({ bind: { claim: c, opts: {} } })));
      const count = countStatements(tx);
      const bound = await bindAll(tx, claims.slice(0, 4));
      return { bound, statements: count.n };
    });
    expect(got.bound).toEqual({ c0: 'pa-2', c1: 'pa-1', c2: 'pa-3', c3: 'pa-8' });
    expect(got.statements).toBe(0);
    const c3 = await ts.store.get('PersistentVolumeClaim', 'pf-a', 'c3');
    expect(c3.spec!.volumeName).toBe('pa-8');
    expect((await ts.store.get('PersistentVolume', undefined, 'pa-8')).spec!.claimRef!.name).toBe('c3');
  });

  test('side-by-side batches choose different volumes', async () => {
    await ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pf-b' } });
    for (let i = 0; i < 6; i++) await volume(`pb-${i}`, '1Gi', 'pf-b');
    const claims: PersistentVolumeClaim[] = [];
    for (let i = 0; i < 6; i++) claims.push(await claim('pf-b', `c${i}`, '1Gi', 'pf-b'));
    const prefetch = bindPrefetcher();
    // Batch A stays open while batch B chooses.
    let releaseA!: () => void;
    const aOpen = new Promise<void>((r) => (releaseA = r));
    let aChose!: (names: string[]) => void;
    const aChoice = new Promise<string[]>((r) => (aChose = r));
    const a = transact(ts.store, async (tx) => {
      const end = await prefetch(tx, claims.slice(0, 3).map((c) => ({ bind: { claim: c, opts: {} } })));
      aChose(claims.slice(0, 3).map((c) => prefetchedVolume(tx, 'pf-b', c.metadata.name!, 1) ?? ''));
      await aOpen;
      end();
    });
    const fromA = await aChoice;
    const fromB = await transact(ts.store, async (tx) => {
      const end = await prefetch(tx, claims.slice(3).map((c) => ({ bind: { claim: c, opts: {} } })));
      const names = claims.slice(3).map((c) => prefetchedVolume(tx, 'pf-b', c.metadata.name!, 1) ?? '');
      end();
      return names;
    });
    releaseA();
    await a;
    expect(fromA.every(Boolean) && fromB.every(Boolean)).toBe(true);
    expect(new Set([...fromA, ...fromB]).size).toBe(6);
  });

  test('a claim without a prepared volume leaves the others theirs', async () => {
    await ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pf-c' } });
    for (const [n, s] of [['pc-1', '1Gi'], ['pc-2', '2Gi'], ['pc-3', '3Gi']]) await volume(n, s, 'pf-c');
    // The selector keeps the first claim out of the prefetch: it looks for its volume itself.
    const own = await claim('pf-c', 'selects', '1Gi', 'pf-c', { selector: { matchLabels: {} } });
    const others = [await claim('pf-c', 'c1', '1Gi', 'pf-c'), await claim('pf-c', 'c2', '2Gi', 'pf-c')];
    const bound = await transact(ts.store, async (tx) => {
      await prefetchBindings(tx, [own, ...others].map((c) => ({ bind: { claim: c, opts: {} } })));
      expect(prefetchedVolume(tx, 'pf-c', 'selects', 1)).toBeUndefined();
      return bindAll(tx, [own, ...others]);
    });
    expect(bound).toEqual({ selects: 'pc-3', c1: 'pc-1', c2: 'pc-2' });
  });

  test('volumes the batch will write are locked in one statement; one held elsewhere is left to its reconcile', async () => {
    for (let i = 0; i < 4; i++) {
      await ts.store.create({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: `pd-${i}` },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'pf-d', hostPath: { path: `/tmp/pd-${i}` } },
      });
    }
    // Another transaction holds pd-3 while the batch runs.
    const other = await holdVolume('pd-3');
    const got = await transact(ts.store, async (tx) => {
      const count = countStatements(tx);
      await prefetchBindings(tx, ['pd-0', 'pd-1', 'pd-2', 'pd-3', 'pd-0'].map((volume) => ({ volume })));
      const afterPrefetch = count.n;
      for (const n of ['pd-0', 'pd-1', 'pd-2']) {
        const v = await tx.get('PersistentVolume', undefined, n);
        await tx.update({ ...v!, status: { phase: 'Available' } }, { subresource: 'status' });
      }
      const beforeBusy = count.n;
      const busy = await tx.get('PersistentVolume', undefined, 'pd-3').then(
        () => 'read',
        (e: Error) => e.name,
      );
      return { afterPrefetch, beforeBusy, busy };
    });
    await other.release();
    expect(got.afterPrefetch).toBe(1);
    expect(got.beforeBusy).toBe(1);
    expect(got.busy).toBe('RowBusyError');
    for (const n of ['pd-0', 'pd-1', 'pd-2']) expect((await ts.store.get('PersistentVolume', undefined, n)).status!.phase).toBe('Available');
  });
});

describe("a controller transaction's read of one row", () => {
  test('one statement whatever it finds: the row locked, nothing, or busy (another transaction holds it)', async () => {
    await volume('one-read', '1Gi', 'one-read-class');
    const other = await holdVolume('one-read');
    const got = await transact(ts.store, async (tx) => {
      const count = countStatements(tx);
      const missing = await tx.get('PersistentVolume', undefined, 'never-made');
      const afterMissing = count.n;
      const busy = await tx.get('PersistentVolume', undefined, 'one-read').then(
        () => 'read',
        (e: Error) => e.name,
      );
      return { missing, afterMissing, busy, afterBusy: count.n };
    });
    await other.release();
    expect(got).toEqual({ missing: undefined, afterMissing: 1, busy: 'RowBusyError', afterBusy: 2 });
    const read = await transact(ts.store, async (tx) => {
      const count = countStatements(tx);
      const v = await tx.get('PersistentVolume', undefined, 'one-read');
      return { name: v?.metadata.name, phase: v?.status?.phase, statements: count.n };
    });
    expect(read).toEqual({ name: 'one-read', phase: 'Available', statements: 1 });
  });
});
