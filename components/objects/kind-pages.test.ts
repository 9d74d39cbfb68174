// Each kind's summary, read as the detail page shows it: which fields, in which order, their
// text and their links. One row per case, named from its data.
import { describe, expect, test } from 'vitest';
import type { KubeObject } from '@/server/resources/types';
import { KINDS } from './kinds';
import { KIND_PAGES, summaryOf } from './kind-pages';
import { permsThat, readItems, type ReadItem } from './testing';

const now = Date.parse('2026-01-01T01:00:00Z');
const hourAgo = '2026-01-01T00:00:00Z';
const meta = (name: string, namespace?: string, extra: Record<string, unknown> = {}) => ({ name, ...(namespace ? { namespace } : {}), creationTimestamp: hourAgo, ...extra });

interface Row {
  name: string;
  obj: Record<string, unknown> & { kind: string };
  /** The labels, in order. */
  labels: string[];
  /** Some of the values: their text, or their text and links. */
  values?: Record<string, string | ReadItem>;
  mayGet?: boolean;
}

const rows: Row[] = [
  {
    name: 'a bound volume: its claim and class as links, sizes as sizes, no reason or mount options',
    obj: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: meta('pv-1'), spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: 'fast', claimRef: { namespace: 'shop', name: 'data' } }, status: { phase: 'Bound' } },
    labels: ['Status', 'Capacity', 'Used', 'Access modes', 'Reclaim policy', 'Storage class', 'Volume mode', 'Claim'],
    values: {
      Status: 'Bound',
      Capacity: '1 GiB',
      'Access modes': 'RWO (ReadWriteOnce)',
      'Storage class': { text: 'fast', links: ['/storage-classes/fast'] },
      'Volume mode': 'Filesystem',
      Claim: { text: 'shop/data', links: ['/claims/shop/data'] },
    },
  },
  {
    name: 'a failed, deleted volume with mount options: Terminating, the reason and message, no claim',
    obj: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: meta('pv-2', undefined, { deletionTimestamp: hourAgo }), spec: { capacity: { storage: '2Gi' }, mountOptions: ['noatime', 'ro'] }, status: { phase: 'Failed', reason: 'Recycle', message: 'no recycler' } },
    labels: ['Status', 'Reason', 'Capacity', 'Used', 'Access modes', 'Reclaim policy', 'Storage class', 'Volume mode', 'Claim', 'Mount options'],
    values: { Status: 'Terminating', Reason: 'Recycle: no recycler', 'Storage class': 'none', Claim: 'none', 'Mount options': 'noatime, ro' },
  },
  {
    name: 'a volume seen by a viewer who may not get claims or classes: names without links',
    obj: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: meta('pv-3'), spec: { storageClassName: 'fast', claimRef: { namespace: 'shop', name: 'data' } }, status: { phase: 'Bound' } },
    mayGet: false,
    labels: ['Status', 'Capacity', 'Used', 'Access modes', 'Reclaim policy', 'Storage class', 'Volume mode', 'Claim'],
    values: { 'Storage class': { text: 'fast', links: [] }, Claim: { text: 'shop/data', links: [] } },
  },
  {
    name: 'a pending claim from a snapshot with a selector: not bound yet, made from the snapshot',
    obj: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta('data', 'shop'), spec: { resources: { requests: { storage: '5Gi' } }, accessModes: ['ReadWriteOnce'], storageClassName: 'fast', volumeMode: 'Block', selector: { matchLabels: { tier: 'gold' } }, dataSource: { kind: 'VolumeSnapshot', apiGroup: 'snapshot.storage.k8s.io', name: 'snap-1' } }, status: { phase: 'Pending' } },
    labels: ['Status', 'Volume', 'Requested', 'Capacity', 'Access modes', 'Storage class', 'Volume mode', 'Selector', 'Made from'],
    values: {
      Status: 'Pending',
      Volume: 'not bound yet',
      Requested: '5 GiB',
      'Volume mode': 'Block',
      Selector: '{"matchLabels":{"tier":"gold"}}',
      'Made from': { text: 'VolumeSnapshot snap-1', links: ['/snapshots/shop/snap-1'] },
    },
  },
  {
    name: 'a bound claim: its volume as a link and its capacity',
    obj: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta('data', 'shop'), spec: { volumeName: 'pv-1', resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Bound', capacity: { storage: '2Gi' } } },
    labels: ['Status', 'Volume', 'Requested', 'Capacity', 'Access modes', 'Storage class', 'Volume mode'],
    values: { Status: 'Bound', Volume: { text: 'pv-1', links: ['/volumes/pv-1'] }, Capacity: '2 GiB', 'Storage class': 'none' },
  },
  {
    name: 'a placed pod: its node as a link, containers with their images, the node selector',
    obj: { apiVersion: 'v1', kind: 'Pod', metadata: meta('web', 'shop'), spec: { nodeName: 'n1', nodeSelector: { disk: 'ssd' }, containers: [{ name: 'app', image: 'nginx' }, { name: 'side' }] }, status: { phase: 'Running' } },
    labels: ['Status', 'Node', 'Containers', 'Node selector'],
    values: { Status: 'Running', Node: { text: 'n1', links: ['/nodes/n1'] }, Containers: 'app (nginx), side (no image)', 'Node selector': 'disk=ssd' },
  },
  {
    name: 'an unplaced pod with a status reason: the reason before the phase',
    obj: { apiVersion: 'v1', kind: 'Pod', metadata: meta('web', 'shop'), spec: { containers: [] }, status: { phase: 'Pending', reason: 'Unschedulable' } },
    labels: ['Status', 'Node', 'Containers', 'Node selector'],
    values: { Status: 'Unschedulable', Node: 'not placed yet', Containers: '' },
  },
  {
    name: 'a default class with topologies and mount options',
    obj: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: meta('fast', undefined, { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }), provisioner: 'stowage.io/btrfs', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true, mountOptions: ['noatime'], allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a', 'b'] }, { key: 'rack', values: ['1'] }] }, { matchLabelExpressions: [{ key: 'zone', values: ['c'] }] }] },
    labels: ['Default class', 'Provisioner', 'Reclaim policy', 'Binding mode', 'Volume expansion', 'Mount options', 'Allowed topologies'],
    values: { 'Default class': 'default', Provisioner: 'stowage.io/btrfs', 'Reclaim policy': 'Retain', 'Binding mode': 'WaitForFirstConsumer', 'Volume expansion': 'allowed', 'Allowed topologies': 'zone in [a, b] and rack in [1] or zone in [c]' },
  },
  {
    name: 'a plain class: the defaults of its fields',
    obj: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: meta('slow'), provisioner: 'stowage.io/local' },
    labels: ['Default class', 'Provisioner', 'Reclaim policy', 'Binding mode', 'Volume expansion'],
    values: { 'Default class': 'no', 'Reclaim policy': 'Delete', 'Binding mode': 'Immediate', 'Volume expansion': 'not allowed' },
  },
  {
    name: 'a ready, cordoned node with capacity and node info: sizes read as sizes',
    obj: { apiVersion: 'v1', kind: 'Node', metadata: meta('n1'), spec: { unschedulable: true }, status: { conditions: [{ type: 'Ready', status: 'True', message: 'agent is posting' }], addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], capacity: { storage: '10Gi', pods: '110' }, nodeInfo: { kubeletVersion: 'v1.30.0', osImage: 'Debian', kernelVersion: '6.1' } } },
    labels: ['Status', 'Condition', 'Addresses', 'Capacity', 'Version', 'OS', 'Scheduling'],
    values: { Status: 'Ready', Condition: 'agent is posting', Addresses: 'InternalIP: 10.0.0.1', Capacity: 'storage=10 GiB pods=110', Version: 'v1.30.0', OS: 'Debian 6.1', Scheduling: 'disabled' },
  },
  {
    name: 'a node whose Ready condition is False, and one without conditions',
    obj: { apiVersion: 'v1', kind: 'Node', metadata: meta('n2'), status: { conditions: [{ type: 'Ready', status: 'False' }] } },
    labels: ['Status', 'Addresses'],
    values: { Status: 'NotReady', Addresses: '' },
  },
  {
    name: 'a node without conditions is Unknown',
    obj: { apiVersion: 'v1', kind: 'Node', metadata: meta('n3') },
    labels: ['Status', 'Addresses'],
    values: { Status: 'Unknown' },
  },
  {
    name: 'an active namespace: links to its claims and events',
    obj: { apiVersion: 'v1', kind: 'Namespace', metadata: meta('shop'), status: { phase: 'Active' } },
    labels: ['Status', 'In this namespace'],
    values: { Status: 'Active', 'In this namespace': { text: 'Claims Events', links: ['/claims?namespace=shop', '/events?namespace=shop'] } },
  },
  {
    name: 'a namespace seen by a viewer who may list neither claims nor events there: no links',
    obj: { apiVersion: 'v1', kind: 'Namespace', metadata: meta('shop') },
    mayGet: false,
    labels: ['Status', 'In this namespace'],
    values: { Status: 'Active', 'In this namespace': { text: '', links: [] } },
  },
  {
    name: 'an event about a claim: its object as a link, the series count, its ages and source',
    obj: { apiVersion: 'v1', kind: 'Event', metadata: meta('data.1', 'shop'), type: 'Warning', reason: 'ProvisioningFailed', message: 'no room', involvedObject: { kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data' }, count: 2, series: { count: 7, lastObservedTime: '2026-01-01T00:55:00Z' }, firstTimestamp: hourAgo, source: { component: 'stowage-provisioner', host: 'n1' } },
    labels: ['Type', 'Reason', 'Message', 'Object', 'Count', 'First seen', 'Last seen', 'Source'],
    values: { Type: 'Warning', Reason: 'ProvisioningFailed', Message: 'no room', Object: { text: 'PersistentVolumeClaim/shop/data', links: ['/claims/shop/data'] }, Count: '7', 'First seen': '60m ago', 'Last seen': '5m ago', Source: 'stowage-provisioner, n1' },
  },
  {
    name: 'an event about a node without a count: counted once, its reporting component as the source',
    obj: { apiVersion: 'v1', kind: 'Event', metadata: meta('n1.1', 'default'), type: 'Normal', reason: 'Ready', involvedObject: { kind: 'Node', name: 'n1' }, eventTime: hourAgo, reportingComponent: 'stowage-agent' },
    labels: ['Type', 'Reason', 'Message', 'Object', 'Count', 'First seen', 'Last seen', 'Source'],
    values: { Object: { text: 'Node/n1', links: ['/nodes/n1'] }, Count: '1', Source: 'stowage-agent' },
  },
  {
    name: 'a counted quota with scopes and a scope selector: a bar per resource',
    obj: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: meta('storage', 'shop'), spec: { hard: { 'requests.storage': '10Gi' }, scopes: ['NotTerminating'], scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high', 'low'] }, { scopeName: 'BestEffort', operator: 'Exists' }] } }, status: { hard: { 'requests.storage': '10Gi' }, used: { 'requests.storage': '5Gi' } } },
    labels: ['Used of limit', 'Scopes', 'Scope selector'],
    values: { Scopes: 'NotTerminating', 'Scope selector': 'PriorityClass In [high, low] and BestEffort Exists' },
  },
  {
    name: 'a quota not counted yet says so',
    obj: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: meta('storage', 'shop'), spec: { hard: { 'requests.storage': '10Gi' } } },
    labels: ['Used of limit', 'Counted'],
    values: { Counted: 'not yet: the quota controller has not counted usage' },
  },
  {
    name: 'a snapshot of a content, not ready, with an error: no claim, the driver default class, taken by hand',
    obj: { apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshot', metadata: meta('snap-1', 'shop'), spec: { source: { volumeSnapshotContentName: 'content-1' } }, status: { readyToUse: false, error: { message: 'disk gone' } } },
    labels: ['Ready', 'Of claim', 'Restore size', 'Taken', 'Snapshot class', 'Taken by', 'Error'],
    values: { 'Of claim': 'content content-1', 'Restore size': 'not known yet', Taken: 'not yet', 'Snapshot class': 'the default of its driver', 'Taken by': 'hand', Error: 'disk gone' },
  },
  {
    name: 'a schedule over a label selector, paused, with a note',
    obj: { apiVersion: 'stowage.io/v1', kind: 'SnapshotSchedule', metadata: meta('nightly', 'shop'), spec: { every: '24h', keep: 3, suspend: true, target: { selector: { matchLabels: { backup: 'yes' } } } }, status: { claims: ['a', 'b'], lastScheduleTime: hourAgo, message: 'claim a has no snapshot class' } },
    labels: ['Every', 'Keeps', 'Snapshots', 'Claims now', 'Last slot', 'Next slot', 'Paused', 'Note'],
    values: { Every: '24h', Keeps: '3 newest per claim', Snapshots: 'claims matching backup=yes', 'Claims now': 'a, b', 'Last slot': '60m ago', 'Next slot': '—', Paused: 'yes', Note: 'claim a has no snapshot class' },
  },
  {
    name: 'a kind whose page has no summary (a pool) shows none',
    obj: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: meta('pool-1', 'kube-system'), storageClassName: 'fast' },
    labels: [],
  },
  {
    name: 'a kind the dashboard has no page for shows none',
    obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cm', 'shop') },
    labels: [],
  },
];

describe('a kind\'s summary', () => {
  test.each(rows)('$name', ({ obj, labels, values, mayGet }) => {
    const perms = permsThat(() => mayGet !== false);
    const items = summaryOf(obj as unknown as KubeObject, { perms, now });
    expect(items.map((i) => i.label)).toEqual(labels);
    const read = readItems(items);
    for (const [label, want] of Object.entries(values ?? {})) {
      if (typeof want === 'string') expect(read[label].text, label).toBe(want);
      else expect(read[label], label).toEqual(want);
    }
  });
});

test('every kind the dashboard has pages for has an entry of what its page shows, and no other kind has one', () => {
  expect(Object.keys(KIND_PAGES).sort()).toEqual(KINDS.map((k) => k.kind).sort());
});
