// The backup controllers against the real store: a backup of a claim from the snapshot it
// takes to Completed (the snapshot removed, the protections lifted), a backup of a named
// snapshot (incremental on the previous one), failure, deletion through a delete job, and
// the import of another installation's backups. The data jobs are the in-memory queue (a
// test double of the port); the test plays the agent (and the snapshotter, which makes a
// snapshot ready: its content and the provisioner's record of where the data is).
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackupSummary, TargetReport } from '../../server/contracts/data-jobs';
import { backupTargetSpec } from '../../server/controllers/backup-target/backup-target';
import { namespaceControllerSpec } from '../../server/controllers/namespace/namespace';
import { Manager } from '../../server/controllers/runtime/manager';
import { MemoryJobQueue } from '../../server/controllers/volume-backup/testing';
import type { ReconcileContext } from '../../server/controllers/runtime/controller';
import { syncBackup, volumeBackupSpec } from '../../server/controllers/volume-backup/volume-backup';
import { EventRecorder } from '../../server/services/event-recorder';
import type { VolumeBackup } from '../../server/resources/volume-backup/schema';
import type { VolumeSnapshot } from '../../server/resources/volume-snapshot/schema';
import { installationId } from '../../server/store/installation';
import { AssetStore } from '../../server/store/provisioned-assets';
import { claim, ensureNamespaces, eventsAbout, openApp, volume, waitFor } from './fixtures';
import { backupTargetComponent, volumeBackupComponent } from '../../server/domain/well-known/components';

const NS = 'bk';
const PROT = 'stowage.io/backup-source-protection';
const log = pino({ level: 'silent' });
let ctx: Awaited<ReturnType<typeof openApp>>;
let manager: Manager;
const jobs = new MemoryJobQueue();
let reports: { node: string; report: TargetReport; at: Date }[] = [];
let here = '';

const getBackup = (name: string) => ctx.app.store.tryGet('VolumeBackup', NS, name);
const backupOf = (name: string, source: Record<string, string>): VolumeBackup => ({ apiVersion: 'stowage.io/v1', kind: 'VolumeBackup', metadata: { name, namespace: NS }, spec: { source, backupTargetName: 'nfs' } });
const phaseIs = (name: string, phase: string) => async () => {
  const b = await getBackup(name);
  return b?.status?.phase === phase ? b : undefined;
};

/** What the snapshotter does once a snapshot is taken: a content, the provisioner's record of the data, readyToUse. */
async function makeReady(vsName: string, driver: string, path: string) {
  const contentName = `snapcontent-${vsName}`;
  const vs = (await ctx.app.store.tryGet('VolumeSnapshot', NS, vsName)) as VolumeSnapshot;
  await ctx.app.store.create({
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshotContent',
    metadata: { name: contentName },
    spec: { driver, deletionPolicy: 'Delete', source: { volumeHandle: 'pv-data' }, volumeSnapshotRef: { name: vsName, namespace: NS, uid: vs.metadata.uid } },
  });
  const assets = new AssetStore(ctx.app.store);
  const { record } = await assets.begin({ plugin: driver, pvName: contentName, node: 'node-a', details: { kind: 'snapshot', source: 'pv-data', path, sizeBytes: '1073741824' } });
  await assets.markCreated(record);
  const fresh = (await ctx.app.store.tryGet('VolumeSnapshot', NS, vsName)) as VolumeSnapshot;
  await ctx.app.store.update({ ...fresh, status: { boundVolumeSnapshotContentName: contentName, readyToUse: true, restoreSize: '1Gi' } }, { subresource: 'status' });
}

const summary = (backupId: string, installation: string, namespace: string, name: string): BackupSummary => ({
  backupId,
  origin: { namespace, claimName: 'data', volumeBackupName: name, sizeBytes: '2147483648', installation, storageClassName: 'fast', provisioner: 'stowage.io/btrfs' },
  format: 'files',
  totalBytes: '2147483648',
  createdAt: '2026-11-20T10:00:00Z',
  completedAt: '2026-11-20T10:05:00Z',
});

function startManager(): Manager {
  const installation = () => installationId(ctx.app.store);
  return new Manager({
    store: ctx.app.store,
    log,
    leaderElection: false,
    specs: () => [
      volumeBackupSpec({ store: ctx.app.store, log, events: new EventRecorder(ctx.app.store, volumeBackupComponent, log), jobs, installation }, { resyncMs: 200 }),
      backupTargetSpec({ store: ctx.app.store, log, events: new EventRecorder(ctx.app.store, backupTargetComponent, log), reports: { list: async () => reports }, installation }, { resyncMs: 100 }),
      namespaceControllerSpec({ store: ctx.app.store }, { resyncMs: 200 }),
    ],
  });
}

beforeAll(async () => {
  ctx = await openApp();
  // Events about cluster-scoped objects (the target) are kept in namespace default.
  await ensureNamespaces(ctx.app, NS, 'default');
  here = await installationId(ctx.app.store);
  await ctx.app.store.create(volume('pv-data', '1Gi', { storageClassName: 'fast', claimRef: { namespace: NS, name: 'data' } }));
  const c = await ctx.app.store.create(claim(NS, 'data', '1Gi', { storageClassName: 'fast', volumeName: 'pv-data' }));
  await ctx.app.store.update({ ...c, status: { phase: 'Bound' } }, { subresource: 'status' });
  await ctx.app.store.create({ apiVersion: 'stowage.io/v1', kind: 'BackupTarget', metadata: { name: 'nfs' }, spec: { path: '/mnt/backups', default: true } });
  reports = [{ node: 'node-a', at: new Date(), report: { name: 'nfs', path: '/mnt/backups', reachable: true, writable: true, freeBytes: '100', totalBytes: '200', backups: [] } }];
  manager = startManager();
  await manager.start();
});
afterAll(async () => {
  await manager?.stop();
  await ctx?.app.close();
});

describe('VolumeBackup', () => {
  it('the installation id is made once and stays', async () => {
    expect(here).toMatch(/^[0-9a-f-]{36}$/);
    expect(await installationId(ctx.app.store)).toBe(here);
  });

  it('the target reports its node and is Ready', async () => {
    const t = await waitFor('target status', async () => {
      const t = (await ctx.app.store.tryGet('BackupTarget', undefined, 'nfs'));
      return t?.status?.conditions?.[0]?.status === 'True' ? t : undefined;
    });
    expect(t.status?.nodes).toEqual([expect.objectContaining({ node: 'node-a', reachable: true, writable: true, freeBytes: '100' })]);
  });

  it('a backup of a claim: takes a snapshot, queues the job once it is ready, mirrors progress, completes, removes the snapshot and lifts the protections', async () => {
    await ctx.app.store.create(backupOf('b1', { persistentVolumeClaimName: 'data' }));
    const vs = await waitFor('snapshot taken', async () => ((await ctx.app.store.list('VolumeSnapshot', { namespace: NS, labelSelector: 'stowage.io/volume-backup=b1' })).items[0] as VolumeSnapshot | undefined));
    expect(vs.metadata.name).toMatch(/^b1-[a-z0-9]{5}$/);
    expect(vs.spec).toEqual({ source: { persistentVolumeClaimName: 'data' } });
    const b = (await getBackup('b1'))!;
    expect(b.metadata.finalizers).toEqual(['stowage.io/volume-backup']);
    expect(jobs.queued).toEqual([]);

    await makeReady(vs.metadata.name!, 'stowage.io/host-path', '/base/.snapshots/snapcontent-b1');
    const key = `backup/${b.metadata.uid}`;
    const job = await waitFor('job queued', () => jobs.get(key));
    expect(job.node).toBe('node-a');
    expect(job.spec).toEqual({
      kind: 'backup',
      backupId: b.metadata.uid,
      targetPath: '/mnt/backups',
      format: 'files',
      sourcePath: '/base/.snapshots/snapcontent-b1',
      origin: { namespace: NS, claimName: 'data', volumeBackupName: 'b1', pvName: 'pv-data', snapshotName: vs.metadata.name, storageClassName: 'fast', provisioner: 'stowage.io/host-path', sizeBytes: '1073741824', installation: here },
    });
    const running = await waitFor('InProgress', phaseIs('b1', 'InProgress'));
    expect(running.status).toMatchObject({ node: 'node-a', format: 'files', sizeBytes: '1073741824', snapshotName: vs.metadata.name, sourceClaimName: 'data', backupTargetName: 'nfs' });
    expect((await ctx.app.store.tryGet('VolumeSnapshot', NS, vs.metadata.name!))?.metadata.finalizers).toContain(PROT);
    expect((await ctx.app.store.tryGet('PersistentVolumeClaim', NS, 'data'))?.metadata.finalizers).toContain(PROT);

    jobs.progress(key, { doneBytes: '536870912', totalBytes: '1073741824', newBytes: '1000' });
    await waitFor('progress 50', async () => (await getBackup('b1'))?.status?.progress === 50);
    jobs.finish(key, { ok: true, doneBytes: '1073741824', totalBytes: '1073741824', newBytes: '2000' });
    const done = await waitFor('Completed', phaseIs('b1', 'Completed'));
    expect(done.status).toMatchObject({ progress: 100, newBytes: '2000', doneBytes: '1073741824' });
    expect(done.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    await waitFor('snapshot removed', async () => !(await ctx.app.store.tryGet('VolumeSnapshot', NS, vs.metadata.name!)));
    await waitFor('claim unprotected', async () => !(await ctx.app.store.tryGet('PersistentVolumeClaim', NS, 'data'))?.metadata.finalizers?.includes(PROT));
    await waitFor('job forgotten', async () => !(await jobs.get(key)));
    const reasons = await waitFor('its events', async () => {
      const r = (await eventsAbout(ctx.app, done)).map((e) => e.reason);
      return r.includes('BackupStarted') && r.includes('BackupCompleted') ? r : undefined;
    });
    expect(reasons).toEqual(expect.arrayContaining(['BackupStarted', 'BackupCompleted']));
    expect(jobs.queued.filter((k) => k === key)).toHaveLength(1);

    // Settled: another replica (or a new leader) looking at it writes nothing.
    const wrote: string[] = [];
    const rctx: ReconcileContext = { controller: 'other', signal: new AbortController().signal, log, enqueue: () => {}, isQueued: () => false, wrote: (rv) => rv && wrote.push(rv) };
    const deps = { store: ctx.app.store, log, jobs, installation: () => installationId(ctx.app.store), assets: new AssetStore(ctx.app.store), events: new EventRecorder(ctx.app.store, 'x', log), now: () => new Date() };
    expect(await syncBackup(deps, rctx, NS, 'b1')).toBeUndefined();
    expect(wrote).toEqual([]);
  });

  it('a backup of a named snapshot: an image for a loop snapshot, incremental on the previous backup of the volume; the snapshot stays', async () => {
    await ctx.app.store.create({ apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshot', metadata: { name: 'snap-1', namespace: NS }, spec: { source: { persistentVolumeClaimName: 'data' } } });
    await makeReady('snap-1', 'stowage.io/loop', '/base/snapshots/snapcontent-snap-1.img');
    await ctx.app.store.create(backupOf('b2', { volumeSnapshotName: 'snap-1' }));
    const b1 = (await getBackup('b1'))!;
    const b2 = await waitFor('b2 uid', async () => (await getBackup('b2'))?.metadata.uid ? getBackup('b2') : undefined);
    const job = await waitFor('job queued', () => jobs.get(`backup/${b2.metadata.uid}`));
    expect(job.spec).toMatchObject({ format: 'image', sourcePath: '/base/snapshots/snapcontent-snap-1.img', parentBackupId: b1.metadata.uid });
    // b1's snapshot is gone: no path to compare with.
    expect(job.spec.kind === 'backup' && job.spec.parentSourcePath).toBeUndefined();
    jobs.finish(job.key, { ok: true, doneBytes: '10', totalBytes: '10' });
    await waitFor('Completed', phaseIs('b2', 'Completed'));
    await waitFor('snapshot unprotected', async () => !(await ctx.app.store.tryGet('VolumeSnapshot', NS, 'snap-1'))?.metadata.finalizers?.includes(PROT));
    expect(await ctx.app.store.tryGet('VolumeSnapshot', NS, 'snap-1')).toBeDefined();
  });

  it('a retryable failure is retried; a failure that cannot be retried fails the backup with its error and lifts the protection', async () => {
    await ctx.app.store.create(backupOf('b3', { volumeSnapshotName: 'snap-1' }));
    const b3 = await waitFor('b3', async () => ((await getBackup('b3'))?.metadata.uid ? getBackup('b3') : undefined));
    const key = `backup/${b3.metadata.uid}`;
    await waitFor('job queued', () => jobs.get(key));
    jobs.finish(key, { ok: false, error: 'EIO writing a chunk', retryable: true });
    await waitFor('second attempt', async () => (await jobs.get(key))?.attempt === 2 && (await jobs.get(key))?.state === 'queued');
    jobs.finish(key, { ok: false, error: 'the snapshot image is damaged', retryable: false });
    const failed = await waitFor('Failed', phaseIs('b3', 'Failed'));
    expect(failed.status?.error?.message).toMatch(/attempt 2.*the snapshot image is damaged/);
    await waitFor('snapshot unprotected', async () => !(await ctx.app.store.tryGet('VolumeSnapshot', NS, 'snap-1'))?.metadata.finalizers?.includes(PROT));
    // Both failures are told (events are written after the status, so they are waited for).
    const warned = await waitFor('two BackupFailed warnings', async () => {
      const n = (await eventsAbout(ctx.app, failed)).filter((e) => e.reason === 'BackupFailed' && e.type === 'Warning').length;
      return n >= 2 ? n : undefined;
    });
    expect(warned).toBeGreaterThanOrEqual(2);
  });

  it('deleting a Completed backup queues a delete job on a node that reaches the target, and the backup goes once it succeeded', async () => {
    const b2 = (await getBackup('b2'))!;
    await ctx.app.store.delete('VolumeBackup', NS, 'b2');
    const key = `delete/${b2.metadata.uid}`;
    const job = await waitFor('delete job', () => jobs.get(key));
    expect(job).toMatchObject({ node: 'node-a', spec: { kind: 'delete', backupId: b2.metadata.uid, targetPath: '/mnt/backups' } });
    expect(await getBackup('b2')).toBeDefined();
    jobs.finish(key, { ok: true, doneBytes: '0', totalBytes: '0' });
    await waitFor('b2 gone', async () => !(await getBackup('b2')));
    await waitFor('delete job forgotten', async () => !(await jobs.get(key)));
  });

  it('deleting a Failed backup (no manifest was written) drops it at once, without a delete job', async () => {
    const b3 = (await getBackup('b3'))!;
    await ctx.app.store.delete('VolumeBackup', NS, 'b3');
    await waitFor('b3 gone', async () => !(await getBackup('b3')));
    expect(jobs.queued).not.toContain(`delete/${b3.metadata.uid}`);
  });

  it("imports another installation's backups found in the target, read-only; a namespace that does not exist is named in an event; deleting an import never touches the target", async () => {
    const b1 = (await getBackup('b1'))!;
    reports = [
      {
        node: 'node-a',
        at: new Date(),
        report: {
          name: 'nfs', path: '/mnt/backups', reachable: true, writable: true, storedBytes: '500', logicalBytes: '900',
          backups: [summary(b1.metadata.uid!, here, NS, 'b1'), summary('other-1', 'other-installation', NS, 'b1'), summary('other-2', 'other-installation', 'nowhere', 'x')],
        },
      },
    ];
    const imported = await waitFor('imported', async () => ((await ctx.app.store.list('VolumeBackup', { namespace: NS, labelSelector: 'backup.stowage.io/id=other-1' })).items[0] as VolumeBackup | undefined));
    // b1 exists here: the import's name gets a suffix.
    expect(imported.metadata.name).toMatch(/^b1-[a-z0-9]{5}$/);
    expect(imported.spec).toEqual({ source: { persistentVolumeClaimName: 'data' }, backupTargetName: 'nfs' });
    expect(imported.status).toMatchObject({ phase: 'Completed', imported: true, backupId: 'other-1', sizeBytes: '2147483648', totalBytes: '2147483648', progress: 100, format: 'files', completionTime: '2026-11-20T10:05:00Z' });
    // Only one import: b1's own backup is not imported.
    expect((await ctx.app.store.list('VolumeBackup', { namespace: NS })).items.filter((b) => b.metadata.labels?.['backup.stowage.io/id'])).toHaveLength(1);
    const target = await waitFor('target totals', async () => {
      const t = (await ctx.app.store.tryGet('BackupTarget', undefined, 'nfs'));
      return t?.status?.backups === 3 ? t : undefined;
    });
    expect(target.status).toMatchObject({ storedBytes: '500', logicalBytes: '900' });
    await waitFor('skip event', async () => (await eventsAbout(ctx.app, target)).some((e) => e.reason === 'BackupNotImported' && /nowhere/.test(e.message ?? '')));

    await ctx.app.store.delete('VolumeBackup', NS, imported.metadata.name!);
    await waitFor('import gone', async () => !(await getBackup(imported.metadata.name!)));
    expect(jobs.queued).not.toContain(`delete/${imported.metadata.uid}`);
    // Still listed by the target, it is not imported again; a new one from the same listing is.
    reports = [{ ...reports[0], at: new Date(), report: { ...reports[0].report, backups: [...reports[0].report.backups, summary('other-3', 'other-installation', NS, 'weekly')] } }];
    await waitFor('the new one imported', async () => getBackup('weekly'));
    expect((await ctx.app.store.list('VolumeBackup', { namespace: NS, labelSelector: 'backup.stowage.io/id=other-1' })).items).toEqual([]);
  });

  it('restart-safe: controllers stopped after the job was queued, and new ones, finish the backup from the job row', async () => {
    await ctx.app.store.create(backupOf('b4', { volumeSnapshotName: 'snap-1' }));
    const b4 = await waitFor('b4', async () => ((await getBackup('b4'))?.metadata.uid ? getBackup('b4') : undefined));
    const key = `backup/${b4.metadata.uid}`;
    await waitFor('job queued', () => jobs.get(key));
    await manager.stop();
    jobs.progress(key, { doneBytes: '3', totalBytes: '4' });
    jobs.finish(key, { ok: true, doneBytes: '4', totalBytes: '4', newBytes: '1' });
    expect((await getBackup('b4'))?.status?.phase).not.toBe('Completed');
    manager = startManager();
    await manager.start();
    const done = await waitFor('Completed after restart', phaseIs('b4', 'Completed'));
    expect(done.status).toMatchObject({ node: 'node-a', format: 'image', newBytes: '1', progress: 100 });
    expect(jobs.queued.filter((k) => k === key)).toHaveLength(1);
  });

  it("builds on the newest Completed backup of the volume, with its snapshot's path when that snapshot is still on the node", async () => {
    const b4 = (await getBackup('b4'))!;
    await ctx.app.store.create(backupOf('b5', { volumeSnapshotName: 'snap-1' }));
    const b5 = await waitFor('b5', async () => ((await getBackup('b5'))?.metadata.uid ? getBackup('b5') : undefined));
    const job = await waitFor('job queued', () => jobs.get(`backup/${b5.metadata.uid}`));
    expect(job.spec).toMatchObject({ parentBackupId: b4.metadata.uid, parentSourcePath: '/base/snapshots/snapcontent-snap-1.img' });
  });

  it("deleting a namespace deletes its backups too (the namespace controller's content is every namespaced kind)", async () => {
    await ensureNamespaces(ctx.app, 'bk-gone');
    await ctx.app.store.create({ ...backupOf('lonely', { persistentVolumeClaimName: 'none' }), metadata: { name: 'lonely', namespace: 'bk-gone' } });
    await waitFor('finalizer', async () => (await ctx.app.store.tryGet('VolumeBackup', 'bk-gone', 'lonely'))?.metadata.finalizers?.length);
    await ctx.app.store.delete('Namespace', undefined, 'bk-gone');
    await waitFor('namespace gone', async () => !(await ctx.app.store.tryGet('Namespace', undefined, 'bk-gone')), 20_000);
    expect(await ctx.app.store.tryGet('VolumeBackup', 'bk-gone', 'lonely')).toBeUndefined();
  });
});
