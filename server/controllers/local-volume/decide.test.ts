import { describe, expect, it } from 'vitest';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import { cleanupRecordedEvent, cleanupStep, decide, volumeModeWarning, type CleanupFacts, type CleanupStep, type DecideInput } from './decide';
import { localCleanupFinalizer } from '../../domain/well-known/finalizers';
import { annDiskMissing, annNodeNotReporting } from '../../domain/well-known/annotations';

function pv(o: { phase?: string; policy?: string; claimUid?: string; deleting?: boolean; held?: boolean; ann?: Record<string, string> } = {}): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: 'local-pv-1',
      uid: 'pv-uid',
      annotations: o.ann ?? {},
      finalizers: o.held === false ? [] : [localCleanupFinalizer],
      ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: {
      local: { path: '/mnt/disks/a' },
      persistentVolumeReclaimPolicy: o.policy ?? 'Delete',
      ...(o.claimUid ? { claimRef: { namespace: 'ns', name: 'c', uid: o.claimUid } } : {}),
    },
    status: { phase: o.phase ?? 'Available' },
  };
}

const disk = { present: true, eligible: true };
const base: DecideInput = { disk, released: false, nodeReady: true };

describe('decide', () => {
  it.each<{ name: string; input: Partial<DecideInput>; action: string }>([
    // Seed 003 provisioner unit tests
    { name: 'directory not in the cache (no PV): PV created', input: {}, action: 'create' },
    { name: 'directory in the cache (PV exists): not created again', input: { pv: pv() }, action: 'none' },
    { name: 'PV creation failed earlier (no PV yet): created again', input: { pv: undefined }, action: 'create' },
    { name: 'non-directory entry (ineligible): no PV', input: { disk: { present: true, eligible: false, reason: 'not a directory or block device' } }, action: 'none' },
    { name: 'PV is released, no cleanup yet: cleanup recorded first', input: { pv: pv({ phase: 'Released', claimUid: 'c1' }), released: true }, action: 'recordCleanup' },
    { name: 'PV released and wiped: PV deleted', input: { pv: pv({ phase: 'Released', claimUid: 'c1' }), released: true, pvJob: { state: 'succeeded', pvUid: 'pv-uid' } }, action: 'deletePv' },
    { name: 'PV cleanup failed: PV not deleted', input: { pv: pv({ phase: 'Released', claimUid: 'c1' }), released: true, pvJob: { state: 'failed', pvUid: 'pv-uid' } }, action: 'none' },
    { name: 'PV cleanup running: PV not deleted', input: { pv: pv({ phase: 'Released', claimUid: 'c1' }), released: true, pvJob: { state: 'running', pvUid: 'pv-uid' } }, action: 'none' },
    { name: 'PV Bound: not deleted', input: { pv: pv({ phase: 'Bound', claimUid: 'c1' }) }, action: 'none' },
    { name: 'PV Pending: not deleted', input: { pv: pv({ phase: 'Pending' }) }, action: 'none' },
    { name: 'Released with Retain: kept for the admin', input: { pv: pv({ phase: 'Released', claimUid: 'c1', policy: 'Retain' }), released: true }, action: 'none' },
    { name: 'Released with Recycle: a warning, nothing wiped', input: { pv: pv({ phase: 'Released', claimUid: 'c1', policy: 'Recycle' }), released: true }, action: 'event' },
    { name: 'Released with Recycle, being deleted: no warning', input: { pv: pv({ phase: 'Released', claimUid: 'c1', policy: 'Recycle', deleting: true, held: false }), released: true }, action: 'none' },
    // Never offered dirty
    { name: 'PV gone, cleanup running: not re-created', input: { openJob: { state: 'running', pvUid: 'old' } }, action: 'none' },
    { name: 'PV gone, cleanup queued: not re-created', input: { openJob: { state: 'queued', pvUid: 'old' } }, action: 'none' },
    { name: 'PV gone, cleanup failed: not re-created', input: { openJob: { state: 'failed', pvUid: 'old' } }, action: 'none' },
    { name: 'PV gone, cleanup quarantined: not re-created', input: { openJob: { state: 'quarantined', pvUid: 'old' } }, action: 'none' },
    { name: 'used PV deleted by hand before any cleanup: cleanup recorded', input: { pv: pv({ phase: 'Released', claimUid: 'c1', deleting: true }) }, action: 'recordCleanup' },
    { name: 'used PV deleted by hand mid-wipe: finalizer removed (job keeps the disk)', input: { pv: pv({ phase: 'Released', claimUid: 'c1', deleting: true }), pvJob: { state: 'running', pvUid: 'pv-uid' }, openJob: { state: 'running', pvUid: 'pv-uid' } }, action: 'removeFinalizer' },
    { name: 'unused PV deleted by hand: finalizer removed', input: { pv: pv({ deleting: true }) }, action: 'removeFinalizer' },
    { name: 'used Retain PV deleted by hand: quarantined', input: { pv: pv({ phase: 'Released', claimUid: 'c1', policy: 'Retain', deleting: true }) }, action: 'recordCleanup' },
    // Disks that disappear, nodes that stop reporting
    { name: 'disk gone while Available: PV withdrawn', input: { pv: pv(), disk: { present: false, eligible: true } }, action: 'deletePv' },
    { name: 'disk no longer eligible while Available: PV withdrawn', input: { pv: pv(), disk: { present: true, eligible: false, reason: 'broken symlink' } }, action: 'deletePv' },
    { name: 'disk gone while Bound: marked, kept', input: { pv: pv({ phase: 'Bound', claimUid: 'c1' }), disk: { present: false, eligible: true } }, action: 'annotate' },
    { name: 'disk gone while Bound and already marked: nothing', input: { pv: pv({ phase: 'Bound', claimUid: 'c1', ann: { [annDiskMissing]: 'true' } }), disk: { present: false, eligible: true } }, action: 'none' },
    { name: 'disk back while marked: mark cleared', input: { pv: pv({ phase: 'Bound', claimUid: 'c1', ann: { [annDiskMissing]: 'true' } }) }, action: 'annotate' },
    { name: 'node not reporting: PV marked, never deleted', input: { pv: pv(), nodeReady: false }, action: 'annotate' },
    { name: 'node not reporting and marked: nothing', input: { pv: pv({ ann: { [annNodeNotReporting]: 'true' } }), nodeReady: false }, action: 'none' },
    { name: 'node not reporting, no PV: none created', input: { nodeReady: false }, action: 'none' },
    { name: 'disk gone, no PV: nothing', input: { disk: { present: false, eligible: true } }, action: 'none' },
  ])('$name -> $action', ({ input, action }) => {
    expect(decide({ ...base, ...input }).action).toBe(action);
  });

  it('a used Retain PV deleted by hand quarantines its disk with a reason', () => {
    const d = decide({ ...base, pv: pv({ phase: 'Released', claimUid: 'c1', policy: 'Retain', deleting: true }) });
    expect(d).toMatchObject({ action: 'recordCleanup', quarantine: expect.stringContaining('Retain') });
  });

  it('a Bound PV whose disk is gone gets a Warning event', () => {
    const d = decide({ ...base, pv: pv({ phase: 'Bound', claimUid: 'c1' }), disk: { present: false, eligible: true } });
    expect(d).toMatchObject({ action: 'annotate', set: { [annDiskMissing]: 'true' }, event: { type: 'Warning', reason: 'DiskMissing' } });
  });

  it.each<{ name: string; mode?: 'Filesystem' | 'Block'; entry?: 'Filesystem' | 'Block'; present?: boolean; warns: boolean }>([
    { name: 'Block PV, entry now a directory: warned', mode: 'Block', entry: 'Filesystem', warns: true },
    { name: 'Block PV, entry a device: fine', mode: 'Block', entry: 'Block', warns: false },
    { name: 'Filesystem PV, entry a device: fine (a device may be a Filesystem PV)', mode: 'Filesystem', entry: 'Block', warns: false },
    { name: 'Filesystem PV, entry a directory: fine', mode: 'Filesystem', entry: 'Filesystem', warns: false },
    { name: 'Block PV, entry gone: not looked at', mode: 'Block', entry: 'Filesystem', present: false, warns: false },
  ])('volume mode: $name', ({ mode, entry, present, warns }) => {
    const v = pv();
    v.spec!.volumeMode = mode;
    const w = volumeModeWarning(v, { present: present ?? true, eligible: true, volumeMode: entry }, '/mnt/disks/a');
    if (!warns) return expect(w).toBeUndefined();
    expect(w).toEqual({ type: 'Warning', reason: 'VolumeFailedDelete', message: 'incorrect Volume Mode: PV "local-pv-1" requires block mode but path "/mnt/disks/a" was in fs mode' });
  });
});

describe('cleanupStep (upstream deleter: the job a recordCleanup records)', () => {
  const facts = (o: Partial<CleanupFacts> = {}): CleanupFacts => ({
    pvName: 'local-pv-1',
    nodeName: 'n1',
    hostPath: '/mnt/disks/a',
    pv: pv({ phase: 'Released', claimUid: 'c1' }),
    className: 'local',
    diskMode: 'Filesystem',
    classConfig: { blockCleanerCommand: [], fsType: 'ext4' },
    ...o,
  });
  const job = (o: Record<string, unknown>) => ({
    nodeName: 'n1',
    pvName: 'local-pv-1',
    pvUid: 'pv-uid',
    hostPath: '/mnt/disks/a',
    className: 'local',
    volumeMode: 'Filesystem',
    method: 'files',
    command: [],
    fsType: 'ext4',
    state: 'queued',
    lastError: undefined,
    ...o,
  });
  it.each<{ name: string; facts: CleanupFacts; want: CleanupStep }>([
    { name: 'a directory: its files removed', facts: facts(), want: { action: 'record', job: job({}) } as CleanupStep },
    {
      name: 'a block device, the class names no cleaner: the default (fs-reset)',
      facts: facts({ diskMode: 'Block' }),
      want: { action: 'record', job: job({ volumeMode: 'Block', method: 'fs-reset' }) } as CleanupStep,
    },
    {
      name: 'a block device offered as a Filesystem volume: wiped as a device (what the disk is decides)',
      facts: facts({ diskMode: 'Block', pv: { ...pv({ phase: 'Released', claimUid: 'c1' }), spec: { volumeMode: 'Filesystem' } } }),
      want: { action: 'record', job: job({ volumeMode: 'Block', method: 'fs-reset' }) } as CleanupStep,
    },
    {
      name: 'a disk not reported: the volume\'s mode',
      facts: facts({ diskMode: undefined, pv: { ...pv({ phase: 'Released', claimUid: 'c1' }), spec: { volumeMode: 'Block' } } }),
      want: { action: 'record', job: job({ volumeMode: 'Block', method: 'fs-reset' }) } as CleanupStep,
    },
    {
      name: 'a custom cleaner command: its argv',
      facts: facts({ diskMode: 'Block', classConfig: { blockCleanerCommand: ['/opt/wipe', '-f'], fsType: '' } }),
      want: { action: 'record', job: job({ volumeMode: 'Block', method: 'custom', command: ['/opt/wipe', '-f'], fsType: '' }) } as CleanupStep,
    },
    {
      name: 'a cleaner command that is wrong: quarantined with why, the mode\'s fallback method',
      facts: facts({ diskMode: 'Block', classConfig: { blockCleanerCommand: ['dd-zero', '99'], fsType: '' } }),
      want: {
        action: 'record',
        job: job({ volumeMode: 'Block', method: 'fs-reset', fsType: '', state: 'quarantined', lastError: 'no cleanup method: dd-zero: the number of passes must be 1..10, not "99"' }),
      } as CleanupStep,
    },
    {
      name: 'decide quarantined it (a Retain volume deleted by hand): quarantined with decide\'s reason',
      facts: facts({ quarantine: 'kept data' }),
      want: { action: 'record', job: job({ state: 'quarantined', lastError: 'kept data' }) } as CleanupStep,
    },
    {
      name: 'the class is no longer in the map: a Warning, looked at again later',
      facts: facts({ classConfig: undefined }),
      want: { action: 'waitForClass', event: { type: 'Warning', reason: 'VolumeFailedDelete', message: 'Error cleaning PV "local-pv-1": Unknown storage class name local' }, retryMs: 10_000 },
    },
    {
      name: 'the class is gone but the volume was deleted by hand: recorded all the same (files, no fs type)',
      facts: facts({ classConfig: undefined, pv: pv({ phase: 'Released', claimUid: 'c1', deleting: true }) }),
      want: { action: 'record', job: job({ fsType: '' }) } as CleanupStep,
    },
    {
      name: 'the class is gone and decide quarantined it: recorded quarantined',
      facts: facts({ classConfig: undefined, quarantine: 'kept data' }),
      want: { action: 'record', job: job({ fsType: '', state: 'quarantined', lastError: 'kept data' }) } as CleanupStep,
    },
  ])('$name', ({ facts: f, want }) => {
    expect(cleanupStep(f)).toEqual(want);
  });

  it.each([
    {
      name: 'queued: a Normal event naming the job, its method and the disk',
      state: 'queued' as const,
      want: { type: 'Normal', reason: 'CleanupQueued', message: 'cleanup j1 (files) queued for /mnt/disks/a on node n1; the volume is deleted when it succeeds' },
    },
    { name: 'quarantined: a Warning with why', state: 'quarantined' as const, want: { type: 'Warning', reason: 'CleanupQuarantined', message: 'kept data' } },
  ])('the Event of a recorded job, $name', ({ state, want }) => {
    const step = cleanupStep(facts(state === 'quarantined' ? { quarantine: 'kept data' } : {}));
    if (step.action !== 'record') throw new Error('expected a job');
    expect(cleanupRecordedEvent(step.job, 'j1')).toEqual(want);
  });
});
