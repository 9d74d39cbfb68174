// One actor of the concurrent change-feed test (concurrent-feed.test.ts), run as its own
// Node process with its own connections:
//   writer:  runs its script of transactions; prints `ok <rv> <rv>...` after each commit.
//            A step may hold its transaction open after its rows are written (so that a
//            SIGKILL lands mid-transaction) or roll back on purpose after writing them.
//   watcher: watches PersistentVolumes from a resourceVersion; on `stop <rv>` (stdin) it
//            waits until it has seen that version, prints its events as JSON and exits.
import { createInterface } from 'node:readline';
import { StoreTx, ObjectStore } from '../../server/store/object-store';
import { inTransaction } from '../../server/store/pg';
import type { KubeObject } from '../../server/resources/types';
import { poolOf } from '../../server/store/sql-handle';

export interface Step {
  /** Objects touched by this transaction, in order. */
  writes: { op: 'create' | 'update' | 'delete'; name: string; label: string }[];
  /** Milliseconds to keep the transaction open after its rows are written. */
  hold: number;
  rollback: boolean;
}

const [role, url, arg] = process.argv.slice(2);

const pv = (name: string, label: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name, labels: { v: label } },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` } },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function writer(steps: Step[]): Promise<void> {
  const store = new ObjectStore(url, 2);
  for (const step of steps) {
    try {
      const rvs = await inTransaction(poolOf(store), async (sql) => {
        const tx = new StoreTx(sql, false);
        for (const w of step.writes) {
          if (w.op === 'create') await tx.create(pv(w.name, w.label));
          else if (w.op === 'delete') await tx.delete('PersistentVolume', undefined, w.name);
          else {
            const cur = await tx.mustGet('PersistentVolume', undefined, w.name);
            await tx.update({ ...cur, metadata: { ...cur.metadata, labels: { v: w.label } } });
          }
        }
        await tx.flush();
        if (step.hold > 0) await sleep(step.hold);
        if (step.rollback) throw new Error('rolled back on purpose');
        return tx.writes.map((w) => w.object.metadata.resourceVersion);
      });
      if (rvs.length > 0) process.stdout.write(`ok ${rvs.join(' ')}\n`);
    } catch {
      // NotFound, AlreadyExists, a closed gap, a rollback on purpose: nothing committed.
    }
  }
  await store.stop();
}

async function watcher(from: string): Promise<void> {
  const store = new ObjectStore(url, 2);
  await store.start();
  const ac = new AbortController();
  const seen: [string, string, string, string][] = [];
  let target: bigint | undefined;
  let last = BigInt(from);
  createInterface({ input: process.stdin }).on('line', (line) => {
    const m = /^stop (\d+)$/.exec(line.trim());
    if (!m) return;
    target = BigInt(m[1]);
    if (last >= target) ac.abort();
  });
  process.stdout.write('ready\n');
  try {
    for await (const e of store.watch({ kinds: ['PersistentVolume'], resourceVersion: from, signal: ac.signal })) {
      seen.push([e.rv.toString(), e.type, e.name, e.object.metadata.resourceVersion ?? '']);
      last = e.rv;
      if (target !== undefined && last >= target) break;
    }
  } catch (e) {
    process.stdout.write(`error ${String(e)}\n`);
  }
  process.stdout.write(`events ${JSON.stringify(seen)}\n`);
  await store.stop();
}

if (role === 'writer') await writer(JSON.parse(arg) as Step[]);
else if (role === 'watcher') await watcher(arg);
else throw new Error(`unknown role ${role}`);
// stdin (the watcher's commands) would keep the process alive.
process.exit(0);
