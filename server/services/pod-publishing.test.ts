// Which changes leave an agent's answer (its node's pods and their volumes) as it was, so a
// held ask is not made again for them. Pure.
import { describe, expect, it } from 'vitest';
import type { AgentPod, PodVolume } from '../contracts/agent';
import type { Pod } from '../resources/pod/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import { claimEntriesUnchanged, podEntryUnchanged, volumeEntriesUnchanged } from './pod-publishing';

const resolved: PodVolume = { name: 'data', claimName: 'c1', readOnly: false, pvName: 'pv-1', volumeMode: 'Filesystem', hostPath: '/srv/pv-1' };
const waiting: PodVolume = { name: 'data', claimName: 'c1', readOnly: false, volumeMode: 'Filesystem', waiting: 'persistentvolumeclaim "c1" is not bound' };
const entry = (volumes: PodVolume[] = [resolved], deleting = false): AgentPod => ({ namespace: 'apps', name: 'p', uid: 'u1', deleting, volumes });

const pod = (o: { uid?: string; volumes?: unknown[]; phase?: string; deleting?: boolean } = {}): Pod =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: 'apps', name: 'p', uid: o.uid ?? 'u1', ...(o.deleting ? { deletionTimestamp: '2026-11-26T00:00:00Z' } : {}) },
    spec: { nodeName: 'n', containers: [{ name: 'c', image: 'busybox' }], volumes: o.volumes ?? [{ name: 'data', persistentVolumeClaim: { claimName: 'c1' } }] },
    status: { phase: o.phase ?? 'Running' },
  }) as Pod;

describe('podEntryUnchanged', () => {
  it.each([
    { name: 'its status only (the agent reported it Running)', had: entry(), pod: pod(), want: true },
    { name: 'now being deleted', had: entry(), pod: pod({ deleting: true }), want: false },
    { name: 'another pod of the same name (new uid)', had: entry(), pod: pod({ uid: 'u2' }), want: false },
    { name: 'a claim volume added', had: entry(), pod: pod({ volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'c1' } }, { name: 'logs', persistentVolumeClaim: { claimName: 'c2' } }] }), want: false },
    { name: 'the claim volume made read-only', had: entry(), pod: pod({ volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'c1', readOnly: true } }] }), want: false },
    { name: 'the volume renamed', had: entry(), pod: pod({ volumes: [{ name: 'other', persistentVolumeClaim: { claimName: 'c1' } }] }), want: false },
    { name: 'finished: its volumes are no longer published', had: entry(), pod: pod({ phase: 'Succeeded' }), want: false },
    { name: 'finished, and the answer already had no volumes', had: entry([]), pod: pod({ phase: 'Failed' }), want: true },
    { name: 'a volume that is not a claim changes nothing', had: entry(), pod: pod({ volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'c1' } }, { name: 'tmp', emptyDir: {} }] }), want: true },
  ])('$name: $want', ({ had, pod: p, want }) => {
    expect(podEntryUnchanged(had, p)).toBe(want);
  });
});

const claim = (volumeName: string | undefined, phase: string): PersistentVolumeClaim =>
  ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { namespace: 'apps', name: 'c1' }, spec: { ...(volumeName ? { volumeName } : {}) }, status: { phase } });

describe('claimEntriesUnchanged', () => {
  it.each([
    { name: 'still Bound to the same volume', entries: [resolved], claim: claim('pv-1', 'Bound'), want: true },
    { name: 'bound to another volume', entries: [resolved], claim: claim('pv-2', 'Bound'), want: false },
    { name: 'Lost', entries: [resolved], claim: claim('pv-1', 'Lost'), want: false },
    { name: 'an entry still waiting (any change may resolve it)', entries: [waiting], claim: claim(undefined, 'Pending'), want: false },
    { name: 'no entry', entries: [], claim: claim('pv-1', 'Bound'), want: false },
  ])('$name: $want', ({ entries, claim: c, want }) => {
    expect(claimEntriesUnchanged(entries, c)).toBe(want);
  });
});

const volume = (spec: Record<string, unknown>, annotations: Record<string, string> = {}): PersistentVolume =>
  ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-1', annotations }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], ...spec } });

describe('volumeEntriesUnchanged', () => {
  it.each([
    { name: 'annotations only (its used bytes)', pv: volume({ hostPath: { path: '/srv/pv-1' } }, { 'stowage.io/used-bytes': '4096' }), want: true },
    { name: 'the same path as a local volume', pv: volume({ local: { path: '/srv/pv-1' } }), want: true },
    { name: 'another path', pv: volume({ hostPath: { path: '/srv/elsewhere' } }), want: false },
    { name: 'now Block', pv: volume({ hostPath: { path: '/srv/pv-1' }, volumeMode: 'Block' }), want: false },
    { name: 'no path any more (an NFS source)', pv: volume({ nfs: { server: 'x', path: '/e' } }), want: false },
  ])('$name: $want', ({ pv, want }) => {
    expect(volumeEntriesUnchanged([resolved], pv)).toBe(want);
  });

  it('an entry still waiting, or none, is always looked at again', () => {
    expect(volumeEntriesUnchanged([waiting], volume({ hostPath: { path: '/srv/pv-1' } }))).toBe(false);
    expect(volumeEntriesUnchanged([], volume({ hostPath: { path: '/srv/pv-1' } }))).toBe(false);
  });
});
