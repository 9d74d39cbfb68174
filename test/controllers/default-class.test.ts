// The default StorageClass is filled into claims created without a class; of several
// defaults the newest wins. Without any default, the claim says so.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startControllers, type RunningControllers } from '../../server/controllers/start';
import { claim, ensureNamespaces, openApp, sleep, storageClass, volume, waitFor } from './fixtures';

let ctx: Awaited<ReturnType<typeof openApp>>;
let running: RunningControllers;
const NS = 'team-b';

beforeAll(async () => {
  ctx = await openApp();
  await ensureNamespaces(ctx.app, 'default', NS);
  running = await startControllers({ app: ctx.app, connectionString: ctx.url, leaderElection: false, pendingGraceMs: 0 });
});
afterAll(async () => {
  await running?.stop();
  await ctx?.app.close();
});

const explanationOf = async (name: string) => {
  const c = await ctx.app.store.get('PersistentVolumeClaim', NS, name);
  const text = c.metadata.annotations?.['stowage.io/binding-explanation'];
  return text ? JSON.parse(text) : undefined;
};

it('without a default class, a claim without a class says that no default class exists', async () => {
  await ctx.app.store.create(claim(NS, 'orphan', '1Gi'));
  const e = await waitFor('explanation', () => explanationOf('orphan'));
  expect(e.summary).toContain('the claim names none and there is no default StorageClass');
  const c = await ctx.app.store.get('PersistentVolumeClaim', NS, 'orphan');
  expect(c.status!.conditions).toContainEqual(expect.objectContaining({ type: 'Bindable', reason: 'NoStorageClass' }));
});

it('the newest of several default classes is filled in, and the claim binds a volume of that class', async () => {
  await ctx.app.store.create(storageClass('old-default', 'example.com/old', { isDefault: true }));
  // creationTimestamp has whole seconds: make the second default clearly newer.
  await sleep(1100);
  await ctx.app.store.create(storageClass('new-default', 'example.com/new', { isDefault: true }));
  await ctx.app.store.create(storageClass('not-default', 'example.com/other'));
  await ctx.app.store.create(volume('old-v', '1Gi', { storageClassName: 'old-default' }));
  await ctx.app.store.create(volume('new-v', '1Gi', { storageClassName: 'new-default' }));
  await ctx.app.store.create(claim(NS, 'wants-default', '1Gi'));
  const c = await waitFor('bound', async () => {
    const c = await ctx.app.store.get('PersistentVolumeClaim', NS, 'wants-default');
    return c.status?.phase === 'Bound' ? c : undefined;
  });
  expect(c.spec!.storageClassName).toBe('new-default');
  expect(c.spec!.volumeName).toBe('new-v');
});

it('a claim that asks for "" keeps it: no default is filled in', async () => {
  await ctx.app.store.create(volume('none-v', '1Gi', { storageClassName: '' }));
  await ctx.app.store.create(claim(NS, 'explicit-none', '1Gi', { storageClassName: '' }));
  const c = await waitFor('bound', async () => {
    const c = await ctx.app.store.get('PersistentVolumeClaim', NS, 'explicit-none');
    return c.status?.phase === 'Bound' ? c : undefined;
  });
  expect(c.spec!.storageClassName).toBe('');
  expect(c.spec!.volumeName).toBe('none-v');
});

it('a claim that waited without a class got the default made meanwhile, and its volume', async () => {
  // "orphan" was Pending when "old-default" appeared: it got that class at once (the newer
  // default came later), was handed to its provisioner, and bound the volume of that class.
  const c = await waitFor('orphan bound', async () => {
    const c = await ctx.app.store.get('PersistentVolumeClaim', NS, 'orphan');
    return c.status?.phase === 'Bound' ? c : undefined;
  });
  expect(c.spec!.storageClassName).toBe('old-default');
  expect(c.spec!.volumeName).toBe('old-v');
  expect(c.metadata.annotations?.['volume.kubernetes.io/storage-provisioner']).toBe('example.com/old');
  expect(c.metadata.annotations?.['stowage.io/binding-explanation']).toBeUndefined();
});
