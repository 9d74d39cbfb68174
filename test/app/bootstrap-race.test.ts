// Replicas starting together on one database: exactly one makes the first admin, the
// others start without an error, and the shared admin kubeconfig is whole.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bootstrap } from '../../server/wiring/bootstrap';
import { openTestApp } from '../app';

let apps: Awaited<ReturnType<typeof openTestApp>>[] = [];
let dir: string;

beforeAll(async () => {
  const first = await openTestApp();
  apps = [first, await openTestApp({}, first.url), await openTestApp({}, first.url)];
  dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-bootstrap-'));
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  rmSync(dir, { recursive: true, force: true });
});

it('three replicas bootstrapping at once make one admin and one whole kubeconfig', async () => {
  expect(await apps[0].users.count()).toBe(0);
  const results = await Promise.all(apps.map((a) => bootstrap(a, dir, 'https://127.0.0.1:7443')));
  expect(results.filter((r) => r.adminCreated)).toHaveLength(1);
  expect((await apps[0].users.list()).map((u) => u.name)).toEqual(['admin']);
  const cfg = parse(readFileSync(results[0].kubeconfigPath, 'utf8'));
  expect(cfg.users[0].user.token).toMatch(/^swt_/);
  // No temporary files left beside it.
  expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
});
