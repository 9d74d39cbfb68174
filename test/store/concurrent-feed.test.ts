// The change feed under concurrent commits (docs/write-path.md): several writer processes
// commit random creates, updates and deletes on shared names (so they also meet
// AlreadyExists, NotFound and row locks), some roll back on purpose after writing their
// rows, one is killed with SIGKILL while it holds a written, uncommitted transaction;
// watcher processes started before, during and after the writes, from different
// versions, must each report exactly the committed history read back from the database.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openTestStore, rawQuery, type TestStore } from '../db';
import type { Step } from './feed-actor';

const ACTOR = path.join(import.meta.dirname, 'feed-actor.ts');
const WRITERS = 3;

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
  // A watch from "0" means "from now": give the history a first version to start after.
  await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'feed' } });
});
afterAll(async () => {
  await t?.close();
});

interface Actor {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
  waitLine(pred: (l: string) => boolean, what: string, ms?: number): Promise<string>;
}

function startActor(role: string, arg: string): Actor {
  const child = spawn(process.execPath, ['--import', 'tsx', ACTOR, role, t.url, arg], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout }).on('line', (l) => {
    lines.push(l);
    for (const w of waiters) w();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    exited,
    waitLine: (pred, what, ms = 60_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const hit = lines.find(pred);
          if (hit !== undefined) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${what}; got ${lines.join(' | ').slice(0, 500)}`));
        }, ms);
        waiters.add(check);
        check();
      }),
  };
}

const stepArb = (names: string[]) =>
  fc.record({
    writes: fc.array(
      fc.record({ op: fc.constantFrom('create', 'create', 'update', 'update', 'delete'), name: fc.constantFrom(...names), label: fc.string({ maxLength: 4 }) }),
      { minLength: 1, maxLength: 3 },
    ),
    hold: fc.constantFrom(0, 0, 0, 0, 2),
    rollback: fc.boolean().map((b) => b && Math.random() < 0.3),
  }) as fc.Arbitrary<Step>;

/** The committed PersistentVolume history after `from`, as the database has it. */
async function history(from: bigint): Promise<[string, string, string, string][]> {
  const rows = await rawQuery<{ rv: string; type: string; name: string; orv: string }>(
    t.url,
    `SELECT rv::text AS rv, type, name, object->'metadata'->>'resourceVersion' AS orv FROM change_log
      WHERE rv > $1 AND kind = 'PersistentVolume' ORDER BY change_log.rv`,
    [from.toString()],
  );
  return rows.map((r) => [r.rv, r.type, r.name, r.orv]);
}

async function waitUntil(cond: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function stopWatcher(w: Actor, target: bigint): Promise<[string, string, string, string][]> {
  w.child.stdin!.write(`stop ${target}\n`);
  const line = await w.waitLine((l) => l.startsWith('events '), 'the watcher to report');
  await w.exited;
  expect(w.lines.filter((l) => l.startsWith('error '))).toEqual([]);
  return JSON.parse(line.slice('events '.length));
}

describe('change feed with concurrent writer processes', () => {
  test('every watcher, whatever its process and start version, sees exactly the committed history in order', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(stepArb(['a', 'b', 'c', 'd', 'e', 'f']), { minLength: 25, maxLength: 40 }), { minLength: WRITERS, maxLength: WRITERS }),
        fc.array(stepArb(['a', 'b', 'c', 'v']), { minLength: 30, maxLength: 30 }),
        fc.integer({ min: 0, max: 80 }),
        async (scripts, victimScript, killDelay) => {
          run++;
          const prefix = `r${run}-`;
          const named = (s: Step[]): Step[] => s.map((st) => ({ ...st, writes: st.writes.map((w) => ({ ...w, name: prefix + w.name })) }));
          const start = await t.store.currentResourceVersion();
          const early = startActor('watcher', start.toString());
          await early.waitLine((l) => l === 'ready', 'the first watcher');
          // Writer 0 starts with a rollback after writing its rows: a version no commit uses.
          const rolledBack: Step = { writes: [{ op: 'create', name: 'rolled-back', label: '' }], hold: 0, rollback: true };
          const writers = scripts.map((s, i) => startActor('writer', JSON.stringify(named(i === 0 ? [rolledBack, ...s] : s))));
          // The victim holds every transaction open after writing its rows; it is killed in one.
          const victimSteps: Step[] = [{ writes: [{ op: 'create', name: 'victim', label: '' }], hold: 0, rollback: false }, ...victimScript];
          const victim = startActor('writer', JSON.stringify(named(victimSteps).map((s) => ({ ...s, hold: 30, rollback: false }))));
          await waitUntil(async () => (await t.store.currentResourceVersion()) > start, 'a first commit');
          const mid = await t.store.currentResourceVersion();
          const late = startActor('watcher', mid.toString());
          const replay = startActor('watcher', start.toString());
          await Promise.all([late.waitLine((l) => l === 'ready', 'a late watcher'), replay.waitLine((l) => l === 'ready', 'a replaying watcher')]);
          await victim.waitLine((l) => l.startsWith('ok '), 'a victim commit');
          await new Promise((r) => setTimeout(r, killDelay));
          victim.child.kill('SIGKILL');
          const codes = await Promise.all(writers.map((w) => w.exited));
          expect(codes).toEqual(writers.map(() => 0));
          await victim.exited;

          const target = await t.store.currentResourceVersion();
          const committed = await history(start);
          // Rollbacks, AlreadyExists and the kill leave versions no commit used: closed as gaps.
          const gaps = await rawQuery<{ n: number }>(t.url, "SELECT count(*)::int AS n FROM change_log WHERE rv > $1 AND type = 'GAP'", [start.toString()]);
          expect(gaps[0].n).toBeGreaterThan(0);
          expect(committed.at(-1)?.[0]).toBe(target.toString());
          // Every change-log row carries the object at its own version; versions only grow.
          for (const [rv, , , orv] of committed) expect(orv).toBe(rv);
          // Whatever a writer saw committed is in the history.
          const inHistory = new Set(committed.map(([rv]) => rv));
          for (const w of [...writers, victim]) {
            for (const l of w.lines.filter((x) => x.startsWith('ok '))) for (const rv of l.slice(3).split(' ')) expect(inHistory.has(rv)).toBe(true);
          }
          const seen = await Promise.all([stopWatcher(early, target), stopWatcher(late, target), stopWatcher(replay, target)]);
          expect(seen[0]).toEqual(committed);
          expect(seen[2]).toEqual(committed);
          expect(seen[1]).toEqual(committed.filter(([rv]) => BigInt(rv) > mid));
          // A watcher that starts after everything reads the same history from the log.
          const after = startActor('watcher', start.toString());
          await after.waitLine((l) => l === 'ready', 'a watcher after the writes');
          expect(await stopWatcher(after, target)).toEqual(committed);
          // The objects table is the history replayed.
          const state = new Map<string, string>();
          for (const [rv, type, name] of committed) {
            if (type === 'DELETED') state.delete(name);
            else state.set(name, rv);
          }
          const rows = await rawQuery<{ name: string; rv: string }>(
            t.url,
            `SELECT name, resource_version::text AS rv FROM objects WHERE kind = 'PersistentVolume' AND name LIKE $1 ORDER BY name`,
            [`${prefix}%`],
          );
          expect(Object.fromEntries(rows.map((r) => [r.name, r.rv]))).toEqual(Object.fromEntries([...state].sort()));
        },
      ),
      { numRuns: 2, endOnFailure: true },
    );
  }, 300_000);
});
