// A StorageClass of an in-tree provisioner whose base path is, or passes through, a
// symlink on this machine is refused when it is created (dry run too), the parameter named.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../server/domain/authorization';
import { storageClassAdmission } from '../../server/provisioners/admission';
import { createRealOs } from '../../server/provisioners/os';
import { ObjectService } from '../../server/services/objects';
import { openTestStore, type TestStore } from '../db';
import type { StorageClass } from '../../server/resources/storage-class/schema';

let ts: TestStore;
let objects: ObjectService;
let dir: string;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };

beforeAll(async () => {
  ts = await openTestStore();
  objects = new ObjectService(ts.store, storageClassAdmission(createRealOs()));
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-admission-')));
  await fs.mkdir(path.join(dir, 'real'));
  await fs.symlink(path.join(dir, 'real'), path.join(dir, 'link'));
});
afterAll(async () => {
  await ts?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

const sc = (name: string, basePath: string, provisioner = 'stowage.io/host-path') => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name },
  provisioner,
  parameters: { basePath },
});

describe('StorageClass admission on this machine', () => {
  it.each([
    { what: 'a symlink', sub: 'link', dryRun: false },
    { what: 'a path through a symlink', sub: 'link/volumes', dryRun: false },
    { what: 'a symlink, dry run', sub: 'link', dryRun: true },
    { what: 'a path through a symlink, for loop volumes', sub: 'link/volumes', dryRun: false, provisioner: 'stowage.io/loop' },
  ])('refuses $what', async ({ sub, dryRun, provisioner }) => {
    const before = await ts.store.currentResourceVersion();
    const err = await objects.create(admin, sc('linked', path.join(dir, sub), provisioner), { dryRun }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'Invalid', details: { causes: [expect.objectContaining({ field: 'parameters.basePath' })] } });
    expect((err as Error).message).toMatch(/symlink/);
    expect(await ts.store.currentResourceVersion()).toBe(before);
  });

  it.each([
    { what: 'a real directory', sub: 'real' },
    { what: 'a directory that does not exist yet', sub: 'real/not/yet' },
  ])('accepts $what', async ({ what, sub }) => {
    const created = await objects.create(admin, sc(what.replace(/ /g, '-'), path.join(dir, sub)));
    expect((created as StorageClass).parameters!.basePath).toBe(path.join(dir, sub));
  });

  it('leaves other provisioners alone', async () => {
    const created = await objects.create(admin, sc('external', path.join(dir, 'link'), 'example.com/nfs'));
    expect(created.provisioner).toBe('example.com/nfs');
  });
});
