// One Postgres for the whole test run: embedded (in a temporary dir) unless
// DATABASE_URL names a server. A migrated template database is made once; every test
// file clones it into a database of its own (see test/db.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureDatabase, startEmbeddedPostgres } from '../server/store/database';
import { migrate } from '../server/store/migrate';

declare module 'vitest' {
  export interface ProvidedContext {
    pgBaseUrl: string;
    pgTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  let baseUrl: string;
  let stop = async () => {};
  let dir: string | undefined;
  if (process.env.DATABASE_URL) {
    const u = new URL(process.env.DATABASE_URL);
    u.pathname = '';
    baseUrl = u.toString().replace(/\/$/, '');
  } else {
    dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-test-pg-'));
    const server = await startEmbeddedPostgres(dir);
    baseUrl = server.baseUrl;
    stop = server.stop;
  }
  const template = `stowage_template_${process.pid}`;
  const url = await ensureDatabase(baseUrl, template);
  await migrate(url);
  project.provide('pgBaseUrl', baseUrl);
  project.provide('pgTemplate', template);
  return async () => {
    await stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}
