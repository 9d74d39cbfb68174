// `stowage kubeconfig USER`: the context's namespace is one the user can read.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { writeKubeconfig } from '../../server/wiring/bootstrap';
import { openTestApp } from '../app';

let app: Awaited<ReturnType<typeof openTestApp>>;
let dir: string;

beforeAll(async () => {
  app = await openTestApp();
  dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-kubeconfig-'));
  await app.users.create({ name: 'dev', role: 'developer', namespaces: ['team-a', 'team-b'] });
  await app.users.create({ name: 'boss', role: 'admin' });
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('writeKubeconfig', () => {
  it.each([
    { user: 'dev', namespace: 'team-a' },
    { user: 'boss', namespace: 'default' },
  ])('$user gets context namespace $namespace', async ({ user, namespace }) => {
    const file = path.join(dir, `${user}.kubeconfig`);
    await writeKubeconfig(app, dir, user, 'https://127.0.0.1:7443', file);
    const cfg = parse(readFileSync(file, 'utf8'));
    expect(cfg.contexts[0].context.namespace).toBe(namespace);
    expect(cfg.clusters[0].cluster.server).toBe('https://127.0.0.1:7443');
  });
});
