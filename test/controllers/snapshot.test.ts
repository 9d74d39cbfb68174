// The snapshot controller against the real store: a VolumeSnapshot bound to a
// pre-provisioned VolumeSnapshotContent both ways, its status following the content's,
// upstream's errors and events, and deletion by deletionPolicy with the finalizers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControllers, type RunningControllers } from '../../server/controllers/start';
import { ensureNamespaces, openApp, waitFor } from './fixtures';

let ctx: Awaited<ReturnType<typeof openApp>>;
let running: RunningControllers;
const NS = 'snaps';
const api = 'snapshot.storage.k8s.io/v1';

const contentOf = (name: string, snapshot: string, deletionPolicy: 'Delete' | 'Retain') => ({
  apiVersion: api,
  kind: 'VolumeSnapshotContent',
  metadata: { name },
  spec: { deletionPolicy, driver: 'stowage.io/btrfs', source: { snapshotHandle: `handle-${name}` }, volumeSnapshotRef: { name: snapshot, namespace: NS } },
});
const snapshotOf = (name: string, content: string) => ({
  apiVersion: api,
  kind: 'VolumeSnapshot',
  metadata: { name, namespace: NS },
  spec: { source: { volumeSnapshotContentName: content }, volumeSnapshotClassName: 'snap-class' },
});

const getSnap = (name: string) => ctx.app.store.tryGet('VolumeSnapshot', NS, name);
const getContent = (name: string) => ctx.app.store.tryGet('VolumeSnapshotContent', undefined, name);
const eventsOf = async (name: string) =>
  ((await ctx.app.store.list('Event', { namespace: NS })).items).filter((e) => e.involvedObject?.name === name).map((e) => `${e.type} ${e.reason}: ${e.message}`);

beforeAll(async () => {
  ctx = await openApp();
  await ensureNamespaces(ctx.app, 'default', NS);
  await ctx.app.store.create({ apiVersion: api, kind: 'VolumeSnapshotClass', metadata: { name: 'snap-class' }, driver: 'stowage.io/btrfs', deletionPolicy: 'Delete' });
  running = await startControllers({ app: ctx.app, connectionString: ctx.url, leaderElection: false, localVolumes: false, nodeLifecycle: false });
});
afterAll(async () => {
  await running?.stop();
  await ctx?.app.close();
});

describe('pre-provisioned snapshots', () => {
  it('binds both ways: the content gets the snapshot uid and class, both get their finalizers, the snapshot its status', async () => {
    await ctx.app.store.create(contentOf('content-1', 'snap-1', 'Delete'));
    const vs = await ctx.app.store.create(snapshotOf('snap-1', 'content-1'));
    const c = await waitFor('content bound', async () => {
      const c = await getContent('content-1');
      return c?.spec?.volumeSnapshotRef?.uid === vs.metadata.uid && c?.metadata.finalizers?.length ? c : undefined;
    });
    expect(c.spec?.volumeSnapshotClassName).toBe('snap-class');
    expect(c.metadata.finalizers).toEqual(['snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection']);
    const s = await waitFor('snapshot bound', async () => {
      const s = await getSnap('snap-1');
      return s?.status?.boundVolumeSnapshotContentName ? s : undefined;
    });
    expect(s.status).toMatchObject({ boundVolumeSnapshotContentName: 'content-1', readyToUse: false });
    // The handle names no snapshot the btrfs plugin holds: the sidecar's check says so, as upstream's does.
    if (s.status?.error) expect(s.status.error.message).toBe('Failed to check and update snapshot content: can not find snapshot for snapshotID handle-content-1');
    // Bound to a Delete content: the bound protection is added too.
    const withBound = await waitFor('bound finalizer', async () => {
      const s = await getSnap('snap-1');
      return s?.metadata.finalizers?.includes('snapshot.storage.kubernetes.io/volumesnapshot-bound-protection') ? s : undefined;
    });
    expect(withBound.metadata.finalizers).toEqual([
      'snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection',
      'snapshot.storage.kubernetes.io/volumesnapshot-bound-protection',
    ]);
  });

  it("follows the content's status: ready, restoreSize, creationTime, with upstream's events", async () => {
    const c = (await getContent('content-1'))!;
    await ctx.app.store.update({ ...c, status: { readyToUse: true, restoreSize: 1073741824, creationTime: 1_764_072_000_000_000_000, snapshotHandle: 'handle-content-1' } }, { subresource: 'status' });
    const s = await waitFor('ready', async () => {
      const s = await getSnap('snap-1');
      return s?.status?.readyToUse ? s : undefined;
    });
    expect(s.status).toEqual({ boundVolumeSnapshotContentName: 'content-1', readyToUse: true, restoreSize: '1Gi', creationTime: '2025-11-25T12:00:00Z' });
    const events = await waitFor('events', async () => {
      const e = await eventsOf('snap-1');
      return e.length >= 2 ? e : undefined;
    });
    expect(events).toEqual(
      expect.arrayContaining([
        'Normal SnapshotCreated: Snapshot snaps/snap-1 was successfully created by the CSI driver.',
        'Normal SnapshotReady: Snapshot snaps/snap-1 is ready to use.',
      ]),
    );
  });

  it('a snapshot naming a content meant for another snapshot gets SnapshotContentMisbound', async () => {
    await ctx.app.store.create(contentOf('content-2', 'someone-else', 'Retain'));
    await ctx.app.store.create(snapshotOf('snap-2', 'content-2'));
    const s = await waitFor('error', async () => (await getSnap('snap-2'))?.status?.error ? getSnap('snap-2') : undefined);
    expect(s.status).toMatchObject({ readyToUse: false, error: { message: 'VolumeSnapshotContent [content-2] is bound to a different snapshot' } });
    // The event is recorded after the status is written.
    await waitFor('event', async () => (await eventsOf('snap-2')).includes('Warning SnapshotContentMisbound: VolumeSnapshotContent [content-2] is bound to a different snapshot') || undefined);
    // Not bound: the content keeps no uid.
    expect((await getContent('content-2'))!.spec?.volumeSnapshotRef?.uid).toBeUndefined();
  });

  it('a snapshot naming no existing content gets SnapshotContentMissing', async () => {
    await ctx.app.store.create(snapshotOf('snap-3', 'content-none'));
    await waitFor('error', async () => ((await getSnap('snap-3'))?.status?.error?.message === 'VolumeSnapshotContent is missing' ? true : undefined));
    await waitFor('event', async () => (await eventsOf('snap-3')).includes('Warning SnapshotContentMissing: VolumeSnapshotContent is missing') || undefined);
  });

  it('deleting a snapshot bound to a Delete content deletes the content, then the snapshot goes', async () => {
    await ctx.app.store.delete('VolumeSnapshot', NS, 'snap-1');
    await waitFor('content gone', async () => ((await getContent('content-1')) === undefined ? true : undefined));
    await waitFor('snapshot gone', async () => ((await getSnap('snap-1')) === undefined ? true : undefined));
  });

  it('deleting a snapshot bound to a Retain content keeps the content, marked as its snapshot deleted', async () => {
    await ctx.app.store.create(contentOf('content-4', 'snap-4', 'Retain'));
    await ctx.app.store.create(snapshotOf('snap-4', 'content-4'));
    await waitFor('bound', async () => ((await getSnap('snap-4'))?.status?.boundVolumeSnapshotContentName ? true : undefined));
    await ctx.app.store.delete('VolumeSnapshot', NS, 'snap-4');
    await waitFor('snapshot gone', async () => ((await getSnap('snap-4')) === undefined ? true : undefined));
    const c = await getContent('content-4');
    expect(c?.metadata.deletionTimestamp).toBeUndefined();
    expect(c?.metadata.annotations?.['snapshot.storage.kubernetes.io/volumesnapshot-being-deleted']).toBe('yes');
  });
});
