// The local-volume manager end to end on a real Postgres, a real HTTPS agent API and real
// directories: PVs from discovery, Released -> cleanup -> re-created, never re-offered
// before the wipe finished (also when the PV is deleted by hand mid-wipe).
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localPvName } from '../../server/domain/local-pv-name';
import { waitFor } from '../controllers/fixtures';
import { CLASS, claimFor, localPvs, openLocalHarness, type LocalHarness } from './harness';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';

const run = promisify(execFile);
let mountOk = true;
{
  const probe = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-mount-probe-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]);
    await run('umount', [probe]);
  } catch (e) {
    mountOk = false;
    console.log(`[skip] failed-cleanup test: mount -t tmpfs is not permitted here (${(e as Error).message.split('\n')[0]})`);
  }
  await fs.rm(probe, { recursive: true, force: true });
}

let h: LocalHarness;
const NODE = 'node-a';

beforeAll(async () => {
  h = await openLocalHarness();
  await h.startControllers();
  await h.startAgent(NODE);
});
afterAll(async () => {
  await h?.close();
});

async function fill(dir: string, files: number): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  for (let i = 0; i < files; i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, files - i) }, (_, k) => fs.writeFile(path.join(dir, `f${i + k}`), 'data')));
  }
}

const pvOf = (entry: string) => localPvName(NODE, CLASS, entry);
const getPv = (name: string) => h.app.store.tryGet('PersistentVolume', undefined, name);

async function availablePv(entry: string, notUid?: string): Promise<PersistentVolume> {
  return waitFor(`PV of ${entry} Available`, async () => {
    const pv = await getPv(pvOf(entry));
    return pv && pv.status?.phase === 'Available' && pv.metadata.uid !== notUid && !pv.metadata.deletionTimestamp ? pv : undefined;
  }, 30_000);
}

async function bindAndRelease(entry: string, claimName: string): Promise<PersistentVolume> {
  const pv = await availablePv(entry);
  await h.app.store.create(claimFor(claimName, pv.metadata.name!));
  await waitFor(`${claimName} Bound`, async () => (await getPv(pv.metadata.name!))?.status?.phase === 'Bound', 20_000);
  await fs.writeFile(path.join(h.disks, entry, 'secret.txt'), 'tenant data');
  await fs.mkdir(path.join(h.disks, entry, 'nested', 'deeper'), { recursive: true });
  await fs.writeFile(path.join(h.disks, entry, 'nested', 'deeper', 'x'), 'more');
  await h.app.store.delete('PersistentVolumeClaim', 'apps', claimName);
  return pv;
}

/** Watches PV ADDED events of one name and checks the disk at that moment: no open job, empty directory. */
function guardReoffers(name: string, entry: string) {
  const abort = new AbortController();
  const violations: string[] = [];
  let added = 0;
  const done = (async () => {
    const events = h.app.store.watch({ kinds: ['PersistentVolume'], resourceVersion: '0', signal: abort.signal });
    for await (const e of events) {
      if (e.name !== name || e.type !== 'ADDED') continue;
      added++;
      const open = await h.app.nodeAgent.jobs.openForDisk(NODE, path.join(h.disks, entry));
      if (open) violations.push(`PV ${name} offered while its cleanup is ${open.state}`);
      const left = await fs.readdir(path.join(h.disks, entry));
      if (left.length) violations.push(`PV ${name} offered with ${left.join(', ')} left on the disk`);
    }
  })().catch(() => {});
  return {
    violations,
    added: () => added,
    stop: async () => {
      abort.abort();
      await done;
    },
  };
}

describe('local-volume manager', () => {
  it('turns each directory under the discovery directory into an Available PV with node affinity', async () => {
    await fs.mkdir(path.join(h.disks, 'vol-a'));
    await fs.mkdir(path.join(h.disks, 'vol-b'));
    await fs.writeFile(path.join(h.disks, 'not-a-dir'), 'x');
    const a = await availablePv('vol-a');
    const b = await availablePv('vol-b');
    for (const [pv, entry] of [[a, 'vol-a'], [b, 'vol-b']] as const) {
      expect(pv.spec!.local!.path).toBe(path.join(h.disks, entry));
      expect(pv.spec!.volumeMode).toBe('Filesystem');
      expect(pv.spec!.storageClassName).toBe(CLASS);
      expect(pv.spec!.persistentVolumeReclaimPolicy).toBe('Delete');
      // Upstream's provisioner name: local-volume-provisioner-<node>-<node uid>.
      const nodeUid = (await h.app.store.get('Node', undefined, NODE)).metadata.uid;
      expect(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by']).toBe(`local-volume-provisioner-${NODE}-${nodeUid}`);
      expect(pv.spec!.nodeAffinity!.required!.nodeSelectorTerms![0].matchExpressions).toEqual([{ key: 'kubernetes.io/hostname', operator: 'In', values: [NODE] }]);
      expect(BigInt((await h.app.nodeAgent.disks.byPvName(pv.metadata.name!))!.capacityBytes)).toBeGreaterThan(0n);
    }
    // The file is reported with its reason and gets no PV.
    const file = await waitFor('the file reported', async () => h.app.nodeAgent.disks.byPvName(pvOf('not-a-dir')));
    expect(file.eligible).toBe(false);
    expect(file.reason).toBeTruthy();
    expect(await getPv(pvOf('not-a-dir'))).toBeUndefined();
    // The node registered itself and is Ready.
    const node = await h.app.store.get('Node', undefined, NODE);
    expect(node.metadata.labels?.['kubernetes.io/hostname']).toBe(NODE);
    expect(node.status!.conditions!.find((c) => c.type === 'Ready')!.status).toBe('True');
  });

  it('Released -> cleanup job first -> wiped -> PV deleted -> re-created Available and clean', async () => {
    await fs.mkdir(path.join(h.disks, 'vol-c'));
    const guard = guardReoffers(pvOf('vol-c'), 'vol-c');
    const old = await bindAndRelease('vol-c', 'claim-c');
    const job = await waitFor('a cleanup job', async () => h.app.nodeAgent.jobs.latestForPvUid(old.metadata.uid!));
    expect(job.method).toBe('files');
    const fresh = await availablePv('vol-c', old.metadata.uid);
    expect(fresh.metadata.uid).not.toBe(old.metadata.uid);
    expect(await fs.readdir(path.join(h.disks, 'vol-c'))).toEqual([]);
    const settled = await h.app.nodeAgent.jobs.get(job.id);
    expect(settled?.state).toBe('succeeded');
    expect(settled?.progress?.unit).toBe('entries');
    await guard.stop();
    expect(guard.violations).toEqual([]);
  });

  it('a PV deleted by hand mid-wipe is not re-created before the wipe finished', async () => {
    const entry = 'vol-big';
    await fill(path.join(h.disks, entry), 20_000);
    const guard = guardReoffers(pvOf(entry), entry);
    const old = await bindAndRelease(entry, 'claim-big');
    const job = await waitFor('the wipe running', async () => {
      const j = await h.app.nodeAgent.jobs.latestForPvUid(old.metadata.uid!);
      return j && j.state === 'running' ? j : undefined;
    }, 20_000);
    await h.app.store.delete('PersistentVolume', undefined, old.metadata.name!);
    const during = await h.app.nodeAgent.jobs.get(job.id);
    await waitFor('the old PV gone', async () => !(await getPv(old.metadata.name!)), 20_000);
    const fresh = await availablePv(entry, old.metadata.uid);
    expect(fresh.metadata.uid).not.toBe(old.metadata.uid);
    expect((await h.app.nodeAgent.jobs.get(job.id))?.state).toBe('succeeded');
    expect(await fs.readdir(path.join(h.disks, entry))).toEqual([]);
    await guard.stop();
    expect(guard.violations).toEqual([]);
    // The deletion really happened mid-wipe (not after it).
    expect(during?.state).toBe('running');
  });

  it.skipIf(!mountOk)('a failed cleanup is retried with its error shown; cancel quarantines; an admin retry brings the disk back', async () => {
    const entry = 'vol-stuck';
    const sub = path.join(h.disks, entry, 'mnt');
    await fs.mkdir(sub, { recursive: true });
    // Another filesystem mounted inside the volume: the file cleanup refuses to cross into it.
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', sub]);
    try {
      const old = await bindAndRelease(entry, 'claim-stuck');
      const failed = await waitFor('the cleanup failed twice', async () => {
        const j = await h.app.nodeAgent.jobs.latestForPvUid(old.metadata.uid!);
        return j && j.attempt >= 2 && j.state === 'failed' && j.lastError ? j : undefined;
      }, 30_000);
      expect(failed.lastError).toBeTruthy();
      expect((await getPv(old.metadata.name!))?.status?.phase).toBe('Released');
      const cancelled = await h.app.nodeAgent.jobs.cancel(failed.id);
      expect(cancelled?.state === 'quarantined' || cancelled?.cancelRequested).toBe(true);
      await waitFor('quarantined', async () => (await h.app.nodeAgent.jobs.get(failed.id))?.state === 'quarantined', 20_000);
      expect((await h.app.nodeAgent.jobs.openForDisk(NODE, path.join(h.disks, entry)))?.state).toBe('quarantined');
      expect((await getPv(old.metadata.name!))?.status?.phase).toBe('Released');
      await run('umount', [sub]);
      const retried = await h.app.nodeAgent.jobs.retry(failed.id);
      expect(retried?.state).toBe('queued');
      const fresh = await availablePv(entry, old.metadata.uid);
      expect(fresh.metadata.uid).not.toBe(old.metadata.uid);
      expect(await fs.readdir(path.join(h.disks, entry))).toEqual([]);
    } finally {
      await run('umount', [sub]).catch(() => {});
    }
  });

  it('an Available PV whose disk disappears is withdrawn; a Bound one is kept and marked', async () => {
    await fs.mkdir(path.join(h.disks, 'vol-gone'));
    await fs.mkdir(path.join(h.disks, 'vol-bound'));
    const gone = await availablePv('vol-gone');
    const bound = await availablePv('vol-bound');
    await h.app.store.create(claimFor('claim-bound', bound.metadata.name!));
    await waitFor('bound', async () => (await getPv(bound.metadata.name!))?.status?.phase === 'Bound', 20_000);
    await fs.rm(path.join(h.disks, 'vol-gone'), { recursive: true });
    await fs.rm(path.join(h.disks, 'vol-bound'), { recursive: true });
    await waitFor('withdrawn', async () => !(await getPv(gone.metadata.name!)), 20_000);
    const marked = await waitFor('marked missing', async () => {
      const pv = await getPv(bound.metadata.name!);
      return pv?.metadata.annotations?.['local.stowage.io/disk-missing'] === 'true' ? pv : undefined;
    }, 20_000);
    expect(marked.status!.phase).toBe('Bound');
    expect((await h.app.store.get('PersistentVolumeClaim', 'apps', 'claim-bound')).status!.phase).toBe('Bound');
  });

  it('the storageClassMap is refused at write time when malformed, with the field named', async () => {
    const cm = await h.app.store.get('ConfigMap', 'kube-system', 'local-volume-config');
    cm.data = { storageClassMap: `${CLASS}:\n  hostDir: relative/path\n` };
    const err = await h.app.store.update(cm).catch((e) => e);
    expect(err.code).toBe('Invalid');
    expect(JSON.stringify(err.details)).toContain('hostDir');
  });

  it('upstream\'s provisioner-wide keys: labelsForPV, nodeLabelsForPV and setPVOwnerRef shape new PVs; a bad one is refused at write time', async () => {
    const cm = await h.app.store.get('ConfigMap', 'kube-system', 'local-volume-config');
    const bad = await h.app.store.update({ ...cm, data: { ...cm.data, labelsForPV: 'team: "has space"' } }).catch((e) => e);
    expect(bad.code).toBe('Invalid');
    expect(JSON.stringify(bad.details)).toContain('labelsForPV[team]');
    // The agent's heartbeats write the Node too: read, change and write again on a conflict, as `kubectl label` does.
    const node = await h.app.store.get('Node', undefined, NODE);
    for (let attempt = 0; ; attempt++) {
      const current = attempt === 0 ? node : await h.app.store.get('Node', undefined, NODE);
      const labelled = await h.app.store.update({ ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, 'topology.kubernetes.io/zone': 'zone-1' } } }).catch((e) => e);
      if (labelled?.code !== 'Conflict' || attempt >= 10) {
        expect(labelled?.metadata?.labels?.['topology.kubernetes.io/zone']).toBe('zone-1');
        break;
      }
    }
    await h.app.store.update({
      ...cm,
      data: { ...cm.data, labelsForPV: 'team: storage', nodeLabelsForPV: '- topology.kubernetes.io/zone\n- absent.example.com/label', setPVOwnerRef: 'true' },
    });
    await fs.mkdir(path.join(h.disks, 'vol-labelled'));
    const pv = await availablePv('vol-labelled');
    expect(pv.metadata.labels).toMatchObject({ team: 'storage', 'topology.kubernetes.io/zone': 'zone-1', 'local.stowage.io/node': NODE });
    expect(pv.metadata.labels).not.toHaveProperty('absent.example.com/label');
    expect(pv.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: NODE, uid: node.metadata.uid }]);
  });

  it('lists every local PV of the node (sanity of the label)', async () => {
    const pvs = await localPvs(h.app);
    expect(pvs.every((p) => p.metadata.labels?.['local.stowage.io/node'] === NODE)).toBe(true);
  });
});
