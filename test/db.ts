// A database of its own for one test file, cloned from the migrated template.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { ensureDatabase } from '../server/store/database';
import { ObjectStore } from '../server/store/object-store';
import type { SqlClient } from '../server/store/pg';
import { SQL } from '../server/store/sql-handle';

export async function createTestDatabase(): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const base = inject('pgBaseUrl');
  // CREATE DATABASE ... TEMPLATE needs the template to have no other sessions; retry briefly.
  for (let i = 0; ; i++) {
    try {
      return await ensureDatabase(base, name, inject('pgTemplate'));
    } catch (e) {
      if (i > 50 || !/being accessed by other users/.test(String(e))) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export interface TestStore {
  url: string;
  store: ObjectStore;
  close(): Promise<void>;
}

export async function openTestStore(url?: string): Promise<TestStore> {
  const u = url ?? (await createTestDatabase());
  const store = new ObjectStore(u);
  await store.start();
  return {
    url: u,
    store,
    close: async () => {
      await store.stop();
    },
  };
}

export async function rawQuery<T = unknown>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** Counts the statements a store transaction sends from now on (its `$queryRawUnsafe` calls). */
export function countStatements(tx: { [SQL]: SqlClient }): { n: number } {
  const count = { n: 0 };
  const inner = tx[SQL];
  const original = inner.$queryRawUnsafe.bind(inner);
  inner.$queryRawUnsafe = ((q: string, ...v: unknown[]) => {
    count.n++;
    return original(q, ...v);
  });
  return count;
}
