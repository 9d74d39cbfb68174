// A claim restored from a VolumeBackup into host-path, end to end: the binder hands it to
// the provisioner, which makes an empty volume, queues restore/<pvName> on the volume's
// node and keeps the claim Pending (RestoreStarted, progress annotation) while the agent's
// runner (with the real filesystem mover stand-in) fills it; the claim binds only after the
// job succeeded, with the data in place. A damaged backup leaves the claim Pending with a
// Warning RestoreFailed naming the backup and the chunk, and the volume removed. A class
// whose format does not fit is refused before anything is made.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataJobApi } from '../../server/agent/agent-client';
import { DataJobRunner } from '../../server/agent/data-job-runner';
import { annRestoreFailed, annRestoreProgress } from '../../server/controllers/provisioner/restore';
import type { BackupFacts } from '../../server/domain/restore-from-backup';
import { hostPathProvisioner, loopProvisioner } from '../../server/domain/well-known/provisioners';
import { DataJobsAgentService } from '../../server/services/data-jobs-agent';
import { logger } from '../../server/services/logger';
import { DataJobStore } from '../../server/store/data-jobs';
import { copyMover } from '../backups/copy-mover';
import { NODE, openHarness, waitFor, type Harness } from './harness';

let h: Harness;
let runner: DataJobRunner;
let release!: () => void;
const gate = new Promise<void>((r) => (release = r));
const backups = new Map<string, BackupFacts>();

beforeAll(async () => {
  h = await openHarness();
  const target = path.join(h.dir, 'target');
  await fs.mkdir(target, { recursive: true });
  const src = path.join(h.dir, 'src');
  await fs.mkdir(path.join(src, 'sub'), { recursive: true });
  await fs.writeFile(path.join(src, 'hello.txt'), 'hello from the backup');
  await fs.writeFile(path.join(src, 'sub/data.bin'), Buffer.alloc(50_000, 7));
  const mover = copyMover();
  const origin = { namespace: 'team-a', claimName: 'data', volumeBackupName: 'b1', sizeBytes: '1048576', installation: 'test' };
  await mover.runBackup({ targetRoot: target, backupId: 'uid-b1', source: { format: 'files', root: src }, origin });
  await mover.runBackup({ targetRoot: target, backupId: 'uid-bad', source: { format: 'files', root: src }, origin });
  await fs.writeFile(path.join(target, 'copy-backups/uid-bad/data/hello.txt'), 'rotten');
  backups.set('b1', { uid: 'uid-b1', phase: 'Completed', backupTargetName: 'nfs', format: 'files', sizeBytes: '1048576' });
  backups.set('bad', { uid: 'uid-bad', phase: 'Completed', backupTargetName: 'nfs', format: 'files', sizeBytes: '1048576' });

  const jobs = new DataJobStore(h.ts.store);
  await h.start({
    restores: {
      backups: { get: async (ns, name) => (ns === 'team-a' ? backups.get(name) : undefined) },
      targetPath: async (name) => (name === 'nfs' ? target : undefined),
      jobs,
      pollMs: 100,
    },
  });
  // The node's agent, in process: the agent service as its API, the stand-in mover held at a gate.
  const svc = new DataJobsAgentService(h.ts.store, async () => [{ name: 'nfs', path: target }], { leaseMs: 5_000 });
  const p = { type: 'node' as const, nodeName: NODE };
  const api: DataJobApi = {
    claimDataJobs: (n, b) => svc.claim(p, n, b),
    dataJobProgress: (n, k, b) => svc.progress(p, n, k, b),
    dataJobResult: (n, k, b) => svc.result(p, n, k, b),
    backupTargets: (n) => svc.listTargets(p, n),
    reportBackupTargets: (n, t) => svc.reportTargets(p, n, { targets: t }),
  };
  runner = new DataJobRunner({ api, mover: copyMover({ hold: () => gate }), node: NODE, instance: 'agent-test', log: logger, claimMs: 100, progressIntervalMs: 100 });
  runner.start();
});
afterAll(async () => {
  release();
  await runner?.stop();
  await h?.close();
});

const fromBackup = (name: string) => ({ spec: { dataSourceRef: { apiGroup: 'stowage.io', kind: 'VolumeBackup', name } } });

describe('restore from a VolumeBackup', () => {
  it('keeps the claim Pending while the job runs, and binds it with the data once the job succeeded', async () => {
    await h.createClass('hp', hostPathProvisioner, { basePath: h.base });
    const claim = await h.createClaim('restored', 'hp', { size: '1Mi', ...fromBackup('b1') });
    expect(claim.spec?.dataSourceRef).toMatchObject({ apiGroup: 'stowage.io', kind: 'VolumeBackup', name: 'b1' });
    await waitFor('RestoreStarted', async () => (await h.events('restored', 'RestoreStarted')).length > 0);
    // The job is held by the gate: no PV, the claim Pending with its progress shown.
    const pending = await waitFor('progress annotation', async () => {
      const c = await h.claim('restored');
      return c?.metadata.annotations?.[annRestoreProgress] !== undefined ? c : undefined;
    });
    expect(pending.status?.phase ?? 'Pending').toBe('Pending');
    expect(pending.spec?.volumeName).toBeUndefined();
    expect(await h.volume(`pvc-${claim.metadata.uid}`)).toBeUndefined();
    release();
    const { volume } = await h.waitBound('restored');
    const dir = volume.spec?.hostPath?.path as string;
    expect(await fs.readFile(path.join(dir, 'hello.txt'), 'utf8')).toBe('hello from the backup');
    expect((await fs.readFile(path.join(dir, 'sub/data.bin'))).equals(Buffer.alloc(50_000, 7))).toBe(true);
    // The job is forgotten right after the volume is saved (the binder may bind it first).
    const jobs = new DataJobStore(h.ts.store);
    const key = `restore/pvc-${claim.metadata.uid}`;
    await waitFor('restore job forgotten', async () => ((await jobs.get(key)) === undefined ? true : undefined));

    // A reconcile that stopped between saving the volume and forgetting the job left it
    // behind: the next change of the bound claim forgets it.
    await jobs.ensure(key, NODE, { kind: 'restore', backupId: 'uid-b1', targetPath: '/nonexistent', format: 'files', destinationPath: '/nonexistent' });
    expect(await jobs.get(key)).toBeDefined();
    const bound = (await h.claim('restored'))!;
    await h.ts.store.update({ ...bound, metadata: { ...bound.metadata, labels: { ...bound.metadata.labels, touched: 'yes' } } });
    await waitFor('left-behind restore job forgotten', async () => ((await jobs.get(key)) === undefined ? true : undefined));
  });

  it('a damaged backup: Pending with RestoreFailed naming the backup and the chunk, the volume removed', async () => {
    const claim = await h.createClaim('broken', 'hp', { size: '1Mi', ...fromBackup('bad') });
    const [ev] = await waitFor('RestoreFailed', async () => {
      const e = await h.events('broken', 'RestoreFailed');
      return e.length > 0 ? e : undefined;
    });
    expect(ev.type).toBe('Warning');
    expect(ev.message).toContain('VolumeBackup "bad"');
    expect(ev.message).toMatch(/chunk [0-9a-f]{64}/);
    const c = await waitFor('failure mark', async () => {
      const x = await h.claim('broken');
      return x?.metadata.annotations?.[annRestoreFailed] ? x : undefined;
    });
    expect(c.spec?.volumeName).toBeUndefined();
    const pvName = `pvc-${claim.metadata.uid}`;
    expect(await h.volume(pvName)).toBeUndefined();
    await waitFor('asset removed', async () => (await h.assets.byPv(pvName)).length === 0);
    await expect(fs.access(path.join(h.base, pvName))).rejects.toThrow();
  });

  it('a files backup into a loop class is refused before anything is made', async () => {
    await h.createClass('lp', loopProvisioner, { basePath: path.join(h.dir, 'images') });
    const claim = await h.createClaim('wrong-format', 'lp', { size: '1Mi', ...fromBackup('b1') });
    const [ev] = await waitFor('ProvisioningFailed', async () => {
      const e = await h.events('wrong-format', 'ProvisioningFailed');
      return e.length > 0 ? e : undefined;
    });
    expect(ev.message).toContain('stowage.io/btrfs or stowage.io/host-path');
    expect(await h.assets.byPv(`pvc-${claim.metadata.uid}`)).toEqual([]);
  });
});
