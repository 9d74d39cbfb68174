// Block cleanups of local volumes record upstream static provisioner's events on the PV:
// "VolumeDelete" (Normal) when the wipe starts, "VolumeFailedDelete" (Warning) when it fails.
// Filesystem cleanups record neither. Through the node agent service on a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppContext, type AppContext } from '../../server/wiring/context';
import type { NodePrincipal } from '../../server/domain/authorization';
import { createTestDatabase } from '../db';

let app: AppContext;
const NODE = 'node-ev';
const principal: NodePrincipal = { type: 'node', nodeName: NODE };

beforeAll(async () => {
  app = await createAppContext(await createTestDatabase(), { leaseMs: 3_000, retryBaseMs: 300, retryMaxMs: 2_000 });
  // Events of cluster-scoped objects live in "default".
  if (!(await app.store.tryGet('Namespace', undefined, 'default'))) await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
afterAll(async () => {
  await app?.close();
});

async function volumeWithJob(name: string, volumeMode: 'Filesystem' | 'Block') {
  const pv = await app.store.create({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': `local-volume-provisioner-${NODE}-uid-1` } },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      volumeMode,
      local: { path: `/mnt/disks/${name}` },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [NODE] }] }] } },
    },
  });
  const { job } = await app.nodeAgent.jobs.record({
    nodeName: NODE,
    pvName: name,
    pvUid: pv.metadata.uid!,
    hostPath: `/mnt/disks/${name}`,
    className: 'local',
    volumeMode,
    method: volumeMode === 'Block' ? 'dd-zero' : 'files',
    command: [],
    fsType: '',
    state: 'queued',
  });
  return job;
}

const eventsOf = async (name: string) =>
  (await app.store.list('Event', {})).items
    .filter((e) => (e as { involvedObject?: { name?: string } }).involvedObject?.name === name)
    .map((e) => {
      const ev = e as unknown as { type: string; reason: string; message: string; source?: { component?: string } };
      // As upstream, the provisioner that made the volume reports (its provisioned-by name).
      expect(ev.source?.component).toBe(`local-volume-provisioner-${NODE}-uid-1`);
      return `${ev.type} ${ev.reason} ${ev.message}`;
    })
    .sort();

describe('events of local-volume cleanups', () => {
  it('a block cleanup records its start and its failure with upstream reasons; a file cleanup records neither', async () => {
    const blockJob = await volumeWithJob('local-pv-blk', 'Block');
    await volumeWithJob('local-pv-dir', 'Filesystem');
    const { jobs } = await app.nodeAgent.claimCleanups(principal, NODE, { instance: 'i1', running: [], max: 4 });
    expect(jobs.map((j) => j.pvName).sort()).toEqual(['local-pv-blk', 'local-pv-dir']);
    expect(await eventsOf('local-pv-blk')).toEqual(['Normal VolumeDelete Starting cleanup of Block PV "local-pv-blk", this may take a while']);

    await app.nodeAgent.reportResult(principal, NODE, blockJob.id, { instance: 'i1', result: { ok: false, error: 'dd: error writing', exitCode: 1 } });
    expect(await eventsOf('local-pv-blk')).toEqual([
      'Normal VolumeDelete Starting cleanup of Block PV "local-pv-blk", this may take a while',
      'Warning VolumeFailedDelete Error cleaning PV "local-pv-blk": dd: error writing (exit status 1)',
    ]); // sorted

    const dirJob = jobs.find((j) => j.pvName === 'local-pv-dir')!;
    await app.nodeAgent.reportResult(principal, NODE, dirJob.jobId, { instance: 'i1', result: { ok: false, error: 'EACCES' } });
    expect(await eventsOf('local-pv-dir')).toEqual([]);
  });
});
