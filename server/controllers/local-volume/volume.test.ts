import { describe, expect, it, test } from 'vitest';
import { persistentVolumeStrategy } from '../../resources/persistent-volume/strategy';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import { isLocalVolume, nodeSettings, planLocalVolume, roundDownCapacityPretty, type PlanInput } from './volume';
import { localCleanupFinalizer } from '../../domain/well-known/finalizers';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

const disk = (o: Partial<PlanInput['disk']> = {}): PlanInput['disk'] => ({
  nodeName: 'node-a',
  className: 'local-disks',
  entryName: 'disk1',
  hostPath: '/mnt/disks/disk1',
  pvName: 'local-pv-1234abcd',
  volumeMode: 'Filesystem',
  capacityBytes: String(10 * GiB),
  ...o,
});
const fsClass = { volumeMode: 'Filesystem' as const };
const input = (o: Partial<PlanInput> = {}): PlanInput => ({
  disk: disk(),
  config: fsClass,
  storageClass: { reclaimPolicy: 'Delete' },
  provisionerName: 'local-volume-provisioner-node-a-5f1c',
  volumesOnNode: [],
  ...o,
});
const other = (name: string, path: string, by = 'local-volume-provisioner-node-a-5f1c'): PersistentVolume => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': by } },
  spec: { local: { path } },
});

// Upstream discovery_test / roundDownCapacityPretty: at least 10 units of GiB, else of MiB.
describe('roundDownCapacityPretty', () => {
  it.each([
    [10 * GiB + 123, 10 * GiB],
    [252 * GiB + 512 * MiB, 252 * GiB],
    [9 * GiB + 5, 9 * 1024 * MiB],
    [10 * MiB + 7, 10 * MiB],
    [9 * MiB + 7, 9 * MiB + 7],
    [4096, 4096],
  ])('%d bytes -> %d', (bytes, want) => {
    expect(roundDownCapacityPretty(BigInt(bytes))).toBe(BigInt(want));
  });
});

describe('planLocalVolume: the PV a discovered entry becomes', () => {
  it.each([
    {
      name: 'a filesystem entry of a class with policy Delete',
      i: input(),
      want: { volumeMode: 'Filesystem', storage: '10Gi', reclaim: 'Delete', accessModes: ['ReadWriteOnce'], local: { path: '/mnt/disks/disk1' } },
    },
    {
      name: 'a block device of a Block class with policy Retain, rounded to MiB',
      i: input({ disk: disk({ volumeMode: 'Block', capacityBytes: String(64 * MiB + 4095) }), config: { volumeMode: 'Block' }, storageClass: { reclaimPolicy: 'Retain' } }),
      want: { volumeMode: 'Block', storage: '64Mi', reclaim: 'Retain', accessModes: ['ReadWriteOnce'], local: { path: '/mnt/disks/disk1' } },
    },
    {
      name: 'a block device of a Filesystem class is a Filesystem PV (the configured volumeMode decides)',
      i: input({ disk: disk({ volumeMode: 'Block' }), config: { volumeMode: 'Filesystem', declaredFsType: 'xfs' } }),
      want: { volumeMode: 'Filesystem', storage: '10Gi', reclaim: 'Delete', accessModes: ['ReadWriteOnce'], local: { path: '/mnt/disks/disk1', fsType: 'xfs' } },
    },
    {
      name: "the StorageClass's mount options, the config's accessMode and a capacity rounded down to GiB",
      i: input({ disk: disk({ capacityBytes: String(252 * GiB + 77 * MiB) }), storageClass: { reclaimPolicy: 'Delete', mountOptions: ['noatime'] }, config: { volumeMode: 'Filesystem', accessMode: 'ReadWriteMany' } }),
      want: { volumeMode: 'Filesystem', storage: '252Gi', reclaim: 'Delete', accessModes: ['ReadWriteMany'], local: { path: '/mnt/disks/disk1' }, mountOptions: ['noatime'] },
    },
  ])('$name', ({ i, want }) => {
    const plan = planLocalVolume(i);
    if (!('pv' in plan)) throw new Error(plan.blocked);
    const pv = plan.pv;
    expect(pv.spec!.volumeMode).toBe(want.volumeMode);
    expect(pv.spec!.capacity!.storage).toBe(want.storage);
    expect(pv.spec!.persistentVolumeReclaimPolicy).toBe(want.reclaim);
    expect(pv.spec!.accessModes).toEqual(want.accessModes);
    expect(pv.spec!.local).toEqual(want.local);
    expect(pv.spec!.mountOptions).toEqual(want.mountOptions);
    expect(pv.spec!.storageClassName).toBe('local-disks');
    expect(pv.spec!.nodeAffinity!.required!.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-a'] }] },
    ]);
    expect(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by']).toBe('local-volume-provisioner-node-a-5f1c');
    expect(pv.metadata.finalizers).toEqual([localCleanupFinalizer]);
    expect(isLocalVolume(pv)).toBe(true);
    // The PV strategy's own validation accepts it (local volumes need node affinity).
    const obj = structuredClone(pv);
    persistentVolumeStrategy.applyDefaults(obj);
    expect(persistentVolumeStrategy.validateShape(obj)).toEqual([]);
    expect(persistentVolumeStrategy.validate(obj)).toEqual([]);
  });

  it("adds the config's selector terms to the node affinity (ORed, as upstream concatenates them)", () => {
    const term = { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a'] }] };
    const plan = planLocalVolume(input({ config: { volumeMode: 'Filesystem', selector: [term] } }));
    expect('pv' in plan && plan.pv.spec!.nodeAffinity!.required!.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-a'] }] },
      term,
    ]);
  });

  it.each([
    { name: 'a class in the map with no StorageClass offers nothing', i: input({ storageClass: undefined }), why: 'failed to get ReclaimPolicy from storage class "local-disks": storageclass.storage.k8s.io "local-disks" not found' },
    { name: 'a class no longer configured', i: input({ config: undefined }), why: 'class local-disks is no longer in the storageClassMap' },
    { name: 'an empty reclaim policy is neither Retain nor Delete', i: input({ storageClass: { reclaimPolicy: '' } }), why: 'unsupported ReclaimPolicy "" from storage class "local-disks", supported policy are Retain and Delete' },
    { name: 'a directory in a Block class', i: input({ config: { volumeMode: 'Block' } }), why: 'path "/mnt/disks/disk1" of filesystem mode cannot be used to create block volume' },
    {
      name: 'the path is already one of our volumes under another name',
      i: input({ volumesOnNode: [other('local-pv-old', '/mnt/disks/disk1')] }),
      why: 'Volume path already in use: PV "local-pv-1234abcd" wants path "/mnt/disks/disk1" which was already found in "local-pv-old".',
    },
  ])('$name', ({ i, why }) => {
    expect(planLocalVolume(i)).toEqual({ blocked: why });
  });

  it.each([
    { name: 'a PV made by hand on the same path does not count (upstream looks only at its own)', pvs: [other('by-hand', '/mnt/disks/disk1', 'someone')] },
    { name: 'our PV of the same name is the disk itself', pvs: [other('local-pv-1234abcd', '/mnt/disks/disk1')] },
    { name: 'our PV on another path', pvs: [other('local-pv-old', '/mnt/disks/disk2')] },
  ])('$name', ({ pvs }) => {
    expect('pv' in planLocalVolume(input({ volumesOnNode: pvs }))).toBe(true);
  });
});

describe('which volumes are local volumes', () => {
  it.each([
    ['local-volume-provisioner-node-a-5f1c', true],
    ['local-volume-provisioner-node-a', true],
    ['local-volume-provisioner', true],
    ['local-volume-provisioner2', false],
    ['stowage.io/host-path', false],
    [undefined, false],
  ])('provisioned-by %s -> %s', (by, want) => {
    expect(isLocalVolume({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { annotations: by ? { 'pv.kubernetes.io/provisioned-by': by } : {} } })).toBe(want);
  });
});

describe('nodeSettings (upstream discovery: labelsForPV, nodeLabelsForPV, useNodeNameOnly, setPVOwnerRef)', () => {
  const options = { nodeLabelsForPV: [] as string[], labelsForPV: {} as Record<string, string>, setPVOwnerRef: false, useNodeNameOnly: false };
  const node = { name: 'n1', uid: 'u1', labels: { 'kubernetes.io/hostname': 'host-1', zone: 'z1' } };
  test.each([
    { name: 'defaults: the hostname label names the node, no labels, no owner', o: options, n: node, want: { labels: {}, hostnameValue: 'host-1' } },
    { name: 'useNodeNameOnly: the node name', o: { ...options, useNodeNameOnly: true }, n: node, want: { labels: {}, hostnameValue: 'n1' } },
    { name: 'no hostname label: the node name', o: options, n: { name: 'n1' }, want: { labels: {}, hostnameValue: 'n1' } },
    { name: 'node labels copied when present; labelsForPV after them', o: { ...options, nodeLabelsForPV: ['zone', 'rack'], labelsForPV: { zone: 'fixed', team: 't' } }, n: node, want: { labels: { zone: 'fixed', team: 't' }, hostnameValue: 'host-1' } },
    { name: 'only the node label', o: { ...options, nodeLabelsForPV: ['zone'] }, n: node, want: { labels: { zone: 'z1' }, hostnameValue: 'host-1' } },
    { name: 'setPVOwnerRef: owned by the node', o: { ...options, setPVOwnerRef: true }, n: node, want: { labels: {}, hostnameValue: 'host-1', ownerNode: { name: 'n1', uid: 'u1' } } },
    { name: 'setPVOwnerRef without a node uid: no owner', o: { ...options, setPVOwnerRef: true }, n: { name: 'n1' }, want: { labels: {}, hostnameValue: 'n1' } },
  ])('$name', ({ o, n, want }) => {
    expect(nodeSettings(o, n)).toEqual(want);
  });
});
