import { describe, expect, it } from 'vitest';
import type { Node } from '../resources/node/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { Pod } from '../resources/pod/schema';
import {
  claimLastUsed,
  claimUsage,
  claimVerdict,
  daysSince,
  nodeGoneReason,
  reclaimEvent,
  usageSearchStart,
  volumeNode,
  volumeVerdict,
  type VolumeAction,
  type VolumeFacts,
} from './reclaim';

function pv(phase: string, extra: { uid?: string; terminating?: boolean; policy?: string; provisionedBy?: string; noRef?: boolean } = {}): PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: 'pv-1',
      ...(extra.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
      ...(extra.provisionedBy ? { annotations: { 'pv.kubernetes.io/provisioned-by': extra.provisionedBy } } : {}),
    },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'manual',
      persistentVolumeReclaimPolicy: extra.policy ?? 'Retain',
      hostPath: { path: '/tmp/x' },
      ...(extra.noRef ? {} : { claimRef: { namespace: 'default', name: 'data', uid: extra.uid ?? 'old-uid' } }),
    },
    status: { phase },
  };
}

function claim(name: string, extra: { uid?: string; volumeName?: string; phase?: string; storage?: string; cls?: string; terminating?: boolean } = {}): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default', uid: extra.uid ?? `${name}-uid`, ...(extra.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: {
      accessModes: ['ReadWriteOnce'],
      storageClassName: extra.cls ?? 'manual',
      resources: { requests: { storage: extra.storage ?? '1Gi' } },
      ...(extra.volumeName ? { volumeName: extra.volumeName } : {}),
    },
    status: { phase: extra.phase ?? 'Pending' },
  };
}

type Row = { name: string; action: VolumeAction; facts: VolumeFacts; want: string };

const rows: Row[] = [
  { name: 'a Released volume is made Available', action: 'make-available', facts: { pv: pv('Released'), claimPods: [] }, want: 'claimRef default/data will be cleared|phase Released → Available' },
  { name: 'an Available volume is not made Available', action: 'make-available', facts: { pv: pv('Available', { noRef: true }), claimPods: [] }, want: '!only Released volumes can be made Available again; this one is Available' },
  { name: 'a Failed volume is not made Available', action: 'make-available', facts: { pv: pv('Failed'), claimPods: [] }, want: '!only Released volumes' },
  { name: 'a terminating volume allows nothing', action: 'delete', facts: { pv: pv('Released', { terminating: true }), claimPods: [] }, want: '!being deleted (terminating)' },
  { name: 'a Bound volume is not deleted', action: 'delete', facts: { pv: pv('Bound', { uid: 'data-uid' }), claim: claim('data', { volumeName: 'pv-1', phase: 'Bound' }), claimPods: [] }, want: '!bound to claim default/data' },
  { name: 'a volume whose claim a pod uses is refused as in use', action: 'make-available', facts: { pv: pv('Released', { uid: 'data-uid' }), claim: claim('data', { volumeName: 'pv-1' }), claimPods: ['web-0'] }, want: '!in use: claim default/data is used by pod web-0' },
  { name: 'a pod using a newer claim of the same name does not hold the volume', action: 'make-available', facts: { pv: pv('Released', { uid: 'old-uid' }), claim: claim('data', { uid: 'new-uid' }), claimPods: ['web-0'] }, want: 'claimRef default/data will be cleared' },
  { name: 'a Released volume is deleted keeping its data (Retain)', action: 'delete', facts: { pv: pv('Released'), claimPods: [] }, want: 'volume pv-1 will be deleted|data) is kept' },
  { name: 'a Failed provisioned Delete volume is deleted with its asset', action: 'delete', facts: { pv: pv('Failed', { policy: 'Delete', provisionedBy: 'stowage.io/host-path' }), claimPods: [] }, want: 'its provisioner deletes the storage asset' },
  { name: 'a static volume cannot be recycled', action: 'recycle', facts: { pv: pv('Released'), claimPods: [] }, want: '!no provisioner made this volume' },
  { name: 'a local volume is recycled by a wipe', action: 'recycle', facts: { pv: pv('Released', { provisionedBy: 'local-volume-provisioner' }), claimPods: [] }, want: 'reclaim policy Retain → Delete|wipes the disk' },
  { name: 'a provisioned volume is recycled through its provisioner', action: 'recycle', facts: { pv: pv('Failed', { provisionedBy: 'example.com/nfs', policy: 'Delete' }), claimPods: [] }, want: 'already Delete|provisioner example.com/nfs deletes' },
  { name: "a local volume under upstream's per-node provisioner name is recycled by a wipe", action: 'recycle', facts: { pv: pv('Released', { provisionedBy: 'local-volume-provisioner-node-1-7d3e' }), claimPods: [] }, want: 'reclaim policy Retain → Delete|wipes the disk' },
  { name: 'an Available volume is not recycled', action: 'recycle', facts: { pv: pv('Available', { provisionedBy: 'local-volume-provisioner', noRef: true }), claimPods: [] }, want: '!only Released or Failed volumes can be recycled' },
  { name: 'pre-bind without a target is refused', action: 'pre-bind', facts: { pv: pv('Released'), claimPods: [] }, want: '!name the claim' },
  { name: 'pre-bind to a missing claim is refused', action: 'pre-bind', facts: { pv: pv('Released'), claimPods: [], targetName: 'default/nope' }, want: '!claim default/nope does not exist' },
  { name: 'pre-bind to a bound claim is refused', action: 'pre-bind', facts: { pv: pv('Released'), claimPods: [], targetName: 'default/other', target: claim('other', { phase: 'Bound', volumeName: 'pv-9' }) }, want: '!already bound to pv-9' },
  { name: 'pre-bind to a terminating claim is refused', action: 'pre-bind', facts: { pv: pv('Released'), claimPods: [], targetName: 'default/other', target: claim('other', { terminating: true }) }, want: '!being deleted' },
  { name: 'pre-bind to a claim asking for more is refused', action: 'pre-bind', facts: { pv: pv('Released'), claimPods: [], targetName: 'default/big', target: claim('big', { storage: '5Gi' }) }, want: '!requested PV is too small' },
  { name: 'pre-bind to a claim of another class is refused', action: 'pre-bind', facts: { pv: pv('Released'), claimPods: [], targetName: 'default/fast', target: claim('fast', { cls: 'fast' }) }, want: '!storageClassName does not match' },
  { name: 'pre-bind to a fitting Pending claim replaces the claimRef', action: 'pre-bind', facts: { pv: pv('Released'), claimPods: [], targetName: 'default/next', target: claim('next') }, want: 'claimRef default/data → default/next' },
  { name: 'a Pending volume cannot be pre-bound', action: 'pre-bind', facts: { pv: pv('Pending', { noRef: true }), claimPods: [], targetName: 'default/next', target: claim('next') }, want: '!only Released or Available' },
];

describe('volumeVerdict', () => {
  it.each(rows)('$name', ({ action, facts, want }) => {
    const v = volumeVerdict(action, facts);
    if (want.startsWith('!')) {
      expect(v.allowed).toBe(false);
      expect(v.allowed ? '' : v.reason).toContain(want.slice(1));
    } else {
      expect(v.allowed).toBe(true);
      const text = v.allowed ? v.changes.join('\n') : '';
      for (const part of want.split('|')) expect(text).toContain(part);
    }
  });
});

describe('claimVerdict', () => {
  it.each([
    { name: 'an unused bound claim is deleted and its volume released', facts: { claim: claim('data', { volumeName: 'pv-1', phase: 'Bound' }), pods: [] }, want: 'its volume pv-1 becomes Released' },
    { name: 'an unused Pending claim is deleted', facts: { claim: claim('data'), pods: [] }, want: 'claim default/data will be deleted' },
    { name: 'a claim a pod uses is refused', facts: { claim: claim('data'), pods: ['a', 'b'] }, want: '!in use by pods a, b' },
    { name: 'a terminating claim is refused', facts: { claim: claim('data', { terminating: true }), pods: [] }, want: '!terminating' },
  ])('$name', ({ facts, want }) => {
    const v = claimVerdict('delete', facts);
    if (want.startsWith('!')) expect(v.allowed ? '' : v.reason).toContain(want.slice(1));
    else expect(v.allowed ? v.changes.join('\n') : '').toContain(want);
  });
});

const now = new Date('2026-03-01T00:00:00Z');
const pvc = { ...claim('data'), metadata: { ...claim('data').metadata, creationTimestamp: '2026-01-01T00:00:00Z' } };
const pod = (phase: string, finished?: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', creationTimestamp: '2026-01-10T00:00:00Z' },
  spec: {},
  status: { phase, ...(finished ? { conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: finished }] } : {}) },
});

describe('claimLastUsed', () => {
  it.each([
    { name: 'no pod ever: the claim’s creation', pods: [], want: '2026-01-01T00:00:00.000Z', days: 59 },
    { name: 'a running pod: now', pods: [pod('Running')], want: now.toISOString(), days: 0 },
    { name: 'a finished pod: when it finished', pods: [pod('Succeeded', '2026-02-20T00:00:00Z')], want: '2026-02-20T00:00:00.000Z', days: 9 },
    { name: 'a failed pod without conditions: its creation', pods: [pod('Failed')], want: '2026-01-10T00:00:00.000Z', days: 50 },
  ])('$name', ({ pods, want, days }) => {
    const last = claimLastUsed(pvc, pods, now);
    expect(last.toISOString()).toBe(want);
    expect(daysSince(last, now)).toBe(days);
  });
});

describe('claimUsage: pods in the store and pod history rows', () => {
  const at = (s: string) => new Date(s);
  it.each([
    { name: 'nothing: the creation, no use', pods: [], history: undefined, want: '2026-01-01T00:00:00.000Z', used: false },
    { name: 'a pod deleted yesterday (history only): used yesterday', pods: [], history: at('2026-02-28T00:00:00Z'), want: '2026-02-28T00:00:00.000Z', used: true },
    { name: 'history newer than a finished pod: history wins', pods: [pod('Succeeded', '2026-02-20T00:00:00Z')], history: at('2026-02-25T00:00:00Z'), want: '2026-02-25T00:00:00.000Z', used: true },
    { name: 'a finished pod newer than history: the pod wins', pods: [pod('Succeeded', '2026-02-20T00:00:00Z')], history: at('2026-02-01T00:00:00Z'), want: '2026-02-20T00:00:00.000Z', used: true },
    { name: 'a running pod: now, whatever history says', pods: [pod('Running')], history: at('2026-01-05T00:00:00Z'), want: now.toISOString(), used: true },
    { name: 'a history row older than the claim: an earlier claim of that name, no use', pods: [], history: at('2025-12-01T00:00:00Z'), want: '2026-01-01T00:00:00.000Z', used: false },
    { name: 'a history row in the future (clock skew): capped at now', pods: [], history: at('2026-04-01T00:00:00Z'), want: now.toISOString(), used: true },
  ])('$name', ({ pods, history, want, used }) => {
    const u = claimUsage(pvc, pods, history, now);
    expect({ last: u.last.toISOString(), used: u.used }).toEqual({ last: want, used });
    expect(claimLastUsed(pvc, pods, now, history).toISOString()).toBe(want);
  });

  it.each([
    { days: 0, want: 90 },
    { days: 30, want: 90 },
    { days: 365, want: 365 },
  ])('the history is searched back max($days, 90) days', ({ days, want }) => {
    expect(daysSince(usageSearchStart(now, days), now)).toBe(want);
  });
});

describe('reclaimEvent', () => {
  const released = pv('Released');
  const withRef = (name: string) => ({ ...released, spec: { ...released.spec, claimRef: { namespace: 'team', name } } });
  const noRef = { ...released, spec: { ...released.spec, claimRef: undefined } };
  const recycled = { ...released, spec: { ...released.spec, persistentVolumeReclaimPolicy: 'Delete' } };
  const pvcBound = claim('data', { volumeName: 'pv-9' });
  const terminating = { ...pvcBound, metadata: { ...pvcBound.metadata, deletionTimestamp: '2026-03-01T00:00:00Z' } };
  it.each([
    { action: 'make-available', actor: 'user:alice', before: released, after: noRef, reason: 'MadeAvailable', message: 'user alice made the volume Available from the reclaim center: claimRef default/data cleared; the data on it is kept' },
    { action: 'pre-bind', actor: 'token:alice/ci', before: released, after: withRef('db'), reason: 'PreBound', message: 'token alice/ci pre-bound the volume to claim team/db from the reclaim center (claimRef was default/data)' },
    { action: 'pre-bind', actor: 'user:bob', before: noRef, after: withRef('db'), reason: 'PreBound', message: 'user bob pre-bound the volume to claim team/db from the reclaim center (claimRef was empty)' },
    { action: 'recycle', actor: 'user:alice', before: released, after: recycled, reason: 'RecycleRequested', message: 'user alice asked from the reclaim center to wipe and recycle the volume: reclaim policy Retain → Delete' },
    { action: 'delete', actor: 'user:alice', before: released, after: released, reason: 'DeletedFromReclaimCenter', message: 'user alice deleted the volume from the reclaim center (reclaim policy Retain)' },
    { action: 'delete', actor: 'token:dev/t', before: pvcBound, after: terminating, reason: 'DeletedFromReclaimCenter', message: 'token dev/t deleted the claim from the reclaim center (its volume pv-9 becomes Released; terminating until its finalizers are removed)' },
  ] as { action: VolumeAction; actor: string; before: PersistentVolume | PersistentVolumeClaim; after: PersistentVolume | PersistentVolumeClaim; reason: string; message: string }[])('$action by $actor: $reason', ({ action, actor, before, after, reason, message }) => {
    expect(reclaimEvent(actor, { action, before, after })).toEqual({ reason, message });
  });
});

describe('nodeGoneReason and volumeNode', () => {
  const ready: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } };
  it.each([
    { name: 'missing node', node: undefined, ready: false, want: 'node n1 does not exist' },
    { name: 'NotReady node', node: ready, ready: false, want: 'node n1 is NotReady' },
    { name: 'Ready node', node: ready, ready: true, want: undefined },
  ])('$name', ({ node, ready: r, want }) => {
    expect(nodeGoneReason('n1', node, r)).toBe(want);
  });

  it.each([
    { name: 'the manager annotation', pv: { metadata: { annotations: { 'local.stowage.io/node': 'n2' } }, spec: {} }, want: 'n2' },
    { name: 'a local PV with one hostname', pv: { metadata: {}, spec: { local: { path: '/x' }, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n3'] }] }] } } } }, want: 'n3' },
    { name: 'a local PV with two hostnames', pv: { metadata: {}, spec: { local: { path: '/x' }, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['a', 'b'] }] }] } } } }, want: undefined },
    { name: 'a host-path PV', pv: { metadata: {}, spec: { hostPath: { path: '/x' } } }, want: undefined },
  ])('$name', ({ pv: v, want }) => {
    expect(volumeNode({ apiVersion: 'v1', kind: 'PersistentVolume', ...v })).toBe(want);
  });
});
