import { describe, expect, test } from 'vitest';
import { createErrors, created, lines, patched, statusUpdateErrors, updateErrors } from '../testing';
import type { KubeObject } from '../types';
import { csiPV, hostnameAffinity, hostPathPV, localPV, nfsPV } from './fixtures';
import { persistentVolumeStrategy as strategy } from './strategy';
import { validatePersistentVolume } from './validation';

const SUBDOMAIN = /a lowercase RFC 1123 subdomain must consist of/;
const term = (expr: object) => ({ required: { nodeSelectorTerms: [{ matchExpressions: [expr] }] } });

describe('PersistentVolume validation on create', () => {
  test.each<{ rule: string; pv: KubeObject; want: (string | RegExp)[] }>([
    { rule: 'a local volume with node affinity is valid', pv: localPV, want: [] },
    { rule: 'an nfs volume with mount options is valid', pv: nfsPV, want: [] },
    { rule: 'a hostPath volume is valid', pv: hostPathPV, want: [] },
    { rule: 'a csi block volume is valid', pv: csiPV, want: [] },
    { rule: 'a loosely shaped source with its required fields is valid', pv: patched(nfsPV, { spec: { nfs: undefined, gcePersistentDisk: { pdName: 'disk-1', fsType: 'ext4' } } }), want: [] },
    { rule: 'capacity is required', pv: patched(localPV, { spec: { capacity: undefined } }), want: ['spec.capacity: Required value', 'spec.capacity: Unsupported value: {}: supported values: "storage"'] },
    { rule: 'capacity must be greater than zero', pv: patched(localPV, { spec: { capacity: { storage: '0' } } }), want: ['spec.capacity[storage]: Invalid value: "0": must be greater than zero'] },
    { rule: 'capacity may not be negative', pv: patched(localPV, { spec: { capacity: { storage: '-1Gi' } } }), want: ['spec.capacity[storage]: Invalid value: -1073741824: must be a valid resource quantity', 'spec.capacity[storage]: Invalid value: "-1Gi": must be greater than zero'] },
    { rule: 'capacity must parse as a quantity', pv: patched(localPV, { spec: { capacity: { storage: '10 gigs' } } }), want: [/^spec\.capacity\[storage\]: Invalid value: "10 gigs": quantities must match the regular expression/] },
    { rule: 'capacity of 1e65 would overflow the byte column', pv: patched(localPV, { spec: { capacity: { storage: '1e65' } } }), want: ['spec.capacity[storage]: Invalid value: "100e63": must be less than 1e65'] },
    { rule: 'capacity as the JSON number 1e308', pv: patched(localPV, { spec: { capacity: { storage: 1e308 } } }), want: ['spec.capacity[storage]: Invalid value: "100e306": must be less than 1e65'] },
    { rule: 'capacity written as a bare suffix reads as zero, as upstream', pv: patched(localPV, { spec: { capacity: { storage: 'Gi' } } }), want: ['spec.capacity[storage]: Invalid value: "0": must be greater than zero'] },
    { rule: 'capacity with an unknown suffix', pv: patched(localPV, { spec: { capacity: { storage: '10K' } } }), want: ["spec.capacity[storage]: Invalid value: \"10K\": unable to parse quantity's suffix"] },
    { rule: 'capacity may only name storage', pv: patched(localPV, { spec: { capacity: { cpu: '1' } } }), want: ['spec.capacity: Unsupported value: {"cpu":"1","storage":"10Gi"}: supported values: "storage"'] },
    { rule: 'access modes are required', pv: patched(localPV, { spec: { accessModes: [] } }), want: ['spec.accessModes: Required value'] },
    { rule: 'access modes must be supported', pv: patched(localPV, { spec: { accessModes: ['ReadWriteSometimes'] } }), want: ['spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"'] },
    { rule: 'ReadWriteOncePod stands alone', pv: patched(localPV, { spec: { accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'] } }), want: ['spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes'] },
    { rule: 'reclaim policy must be supported', pv: patched(localPV, { spec: { persistentVolumeReclaimPolicy: 'Keep' } }), want: ['spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"'] },
    { rule: 'volume mode must be supported', pv: patched(localPV, { spec: { volumeMode: 'Raw' } }), want: ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"'] },
    { rule: 'a volume source is required', pv: patched(localPV, { spec: { local: undefined } }), want: ['spec: Required value: must specify a volume type'] },
    { rule: 'only one volume source', pv: patched(localPV, { spec: { hostPath: { path: '/tmp' } } }), want: ['spec.local: Forbidden: may not specify more than 1 volume type'] },
    { rule: 'local path is required', pv: patched(localPV, { spec: { local: { path: '' } } }), want: ['spec.local.path: Required value'] },
    { rule: 'a relative local path is valid (upstream dropped the absolute-path check)', pv: patched(localPV, { spec: { local: { path: 'mnt/disks/ssd1' } } }), want: [] },
    { rule: 'a relative local path may not step back either', pv: patched(localPV, { spec: { local: { path: 'disks/../../etc' } } }), want: ['spec.local.path: Invalid value: "disks/../../etc": must not contain \'..\''] },
    { rule: 'local path may not step back', pv: patched(localPV, { spec: { local: { path: '/mnt/../etc' } } }), want: ['spec.local.path: Invalid value: "/mnt/../etc": must not contain \'..\''] },
    { rule: 'local volumes require node affinity', pv: patched(localPV, { spec: { nodeAffinity: undefined } }), want: ['spec.nodeAffinity: Required value: Local volume requires node affinity'] },
    { rule: 'node affinity requires required terms', pv: patched(patched(localPV, { spec: { nodeAffinity: undefined } }), { spec: { nodeAffinity: {} } }), want: ['spec.nodeAffinity.required: Required value: must specify required node constraints'] },
    { rule: 'node selector needs at least one term', pv: patched(localPV, { spec: { nodeAffinity: { required: { nodeSelectorTerms: [] } } } }), want: ['spec.nodeAffinity.required.nodeSelectorTerms: Required value: must have at least one node selector term'] },
    { rule: 'node selector operator must be known', pv: patched(localPV, { spec: { nodeAffinity: term({ key: 'zone', operator: 'Near', values: ['a'] }) } }), want: ['spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator'] },
    { rule: 'In needs values', pv: patched(localPV, { spec: { nodeAffinity: term({ key: 'zone', operator: 'In' }) } }), want: ["spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"] },
    { rule: 'Exists takes no values', pv: patched(localPV, { spec: { nodeAffinity: term({ key: 'zone', operator: 'Exists', values: ['a'] }) } }), want: ["spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"] },
    { rule: 'Gt takes exactly one value', pv: patched(localPV, { spec: { nodeAffinity: term({ key: 'cores', operator: 'Gt', values: ['1', '2'] }) } }), want: ["spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"] },
    { rule: 'node selector keys are label names', pv: patched(localPV, { spec: { nodeAffinity: term({ key: 'bad key', operator: 'Exists' }) } }), want: [/^spec\.nodeAffinity\.required\.nodeSelectorTerms\[0\]\.matchExpressions\[0\]\.key: Invalid value: "bad key": name part must consist/] },
    { rule: 'node selector values are label values', pv: patched(localPV, { spec: { nodeAffinity: hostnameAffinity('node 1') } }), want: [/^spec\.nodeAffinity\.required\.nodeSelectorTerms\[0\]\.matchExpressions\[0\]\.values\[0\]: Invalid value: "node 1": a valid label must be/] },
    {
      rule: 'node field selectors only select metadata.name',
      pv: patched(localPV, { spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchFields: [{ key: 'spec.nodeName', operator: 'In', values: ['n'] }] }] } } } }),
      want: ['spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "spec.nodeName": not a valid field selector key'],
    },
    { rule: 'hostPath path may not step back', pv: patched(hostPathPV, { spec: { hostPath: { path: '/data/..' } } }), want: ['spec.hostPath.path: Invalid value: "/data/..": must not contain \'..\''] },
    { rule: 'hostPath type must be supported', pv: patched(hostPathPV, { spec: { hostPath: { type: 'Folder' } } }), want: [/^spec\.hostPath\.type: Unsupported value: "Folder": supported values: "", "BlockDevice"/] },
    { rule: "hostPath of '/' may not be recycled", pv: patched(hostPathPV, { spec: { hostPath: { path: '//./' }, persistentVolumeReclaimPolicy: 'Recycle' } }), want: ["spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'"] },
    { rule: 'nfs path must be absolute', pv: patched(nfsPV, { spec: { nfs: { path: 'exports' } } }), want: ['spec.nfs.path: Invalid value: "exports": must be an absolute path'] },
    { rule: 'nfs server is required', pv: patched(nfsPV, { spec: { nfs: { server: '' } } }), want: ['spec.nfs.server: Required value'] },
    { rule: 'csi driver and volume handle are required', pv: patched(csiPV, { spec: { csi: { driver: undefined, volumeHandle: undefined } } }), want: ['spec.csi.driver: Required value', 'spec.csi.volumeHandle: Required value'] },
    { rule: 'csi driver is at most 63 characters', pv: patched(csiPV, { spec: { csi: { driver: `${'a'.repeat(60)}.com` } } }), want: ['spec.csi.driver: Too long: may not be more than 63 bytes'] },
    { rule: 'csi driver is a DNS subdomain', pv: patched(csiPV, { spec: { csi: { driver: 'my_driver' } } }), want: [SUBDOMAIN] },
    { rule: 'csi secret references need a namespace', pv: patched(csiPV, { spec: { csi: { nodeStageSecretRef: { namespace: undefined } } } }), want: ['spec.csi.nodeStageSecretRef.namespace: Required value'] },
    { rule: 'a loosely shaped source still needs its required fields', pv: patched(nfsPV, { spec: { nfs: undefined, mountOptions: undefined, awsElasticBlockStore: { fsType: 'ext4' } } }), want: ['spec.awsElasticBlockStore.volumeID: Required value'] },
    { rule: 'storage class name is a DNS subdomain', pv: patched(localPV, { spec: { storageClassName: 'Fast_SSD' } }), want: [SUBDOMAIN] },
    { rule: 'spec.mountOptions are not checked per source (upstream checks only the annotation)', pv: patched(hostPathPV, { spec: { mountOptions: ['ro'] } }), want: [] },
    { rule: 'the mount options annotation is refused on local volumes', pv: patched(localPV, { metadata: { annotations: { 'volume.beta.kubernetes.io/mount-options': 'ro' } } }), want: ['metadata.annotations.volume.beta.kubernetes.io/mount-options: Forbidden: may not specify mount options for this volume type'] },
    { rule: 'the mount options annotation is refused on fc, which upstream does not list', pv: patched(localPV, { spec: { local: undefined, nodeAffinity: undefined, fc: { targetWWNs: ['a'], lun: 0 } }, metadata: { annotations: { 'volume.beta.kubernetes.io/mount-options': 'ro' } } }), want: ['metadata.annotations.volume.beta.kubernetes.io/mount-options: Forbidden: may not specify mount options for this volume type'] },
    { rule: 'the mount options annotation is fine on nfs', pv: patched(nfsPV, { metadata: { annotations: { 'volume.beta.kubernetes.io/mount-options': 'hard' } } }), want: [] },
    { rule: 'volumeAttributesClassName needs a csi source', pv: patched(localPV, { spec: { volumeAttributesClassName: 'gold' } }), want: ['spec.csi: Required value: has to be specified when using volumeAttributesClassName'] },
    { rule: 'the name is a DNS subdomain', pv: patched(localPV, { metadata: { name: 'Local_PV' } }), want: [SUBDOMAIN] },
    { rule: 'PVs are cluster-scoped', pv: patched(localPV, { metadata: { namespace: 'default' } }), want: ['metadata.namespace: Forbidden: not allowed on this type'] },
    { rule: 'unknown spec fields are refused', pv: patched(localPV, { spec: { size: '10Gi' } }), want: ['spec.size: unknown field "spec.size"'] },
    { rule: 'unknown fields inside a source are refused', pv: patched(localPV, { spec: { local: { readOnly: true } } }), want: ['spec.local.readOnly: unknown field "spec.local.readOnly"'] },
    { rule: 'the kind must match', pv: patched(localPV, { kind: 'PersistentVolumeClaim' }), want: ['kind: Invalid value: "PersistentVolumeClaim": must be PersistentVolume'] },
  ])('$rule', ({ pv, want }) => {
    const got = lines(createErrors(strategy, pv));
    expect(got).toHaveLength(want.length);
    want.forEach((w, i) => (typeof w === 'string' ? expect(got[i]).toBe(w) : expect(got[i]).toMatch(w)));
  });

  test('every offending field is reported at once', () => {
    const pv = patched(localPV, { spec: { capacity: { storage: '0' }, accessModes: ['Bogus'], local: { path: 'a/../b' }, nodeAffinity: undefined } });
    expect(createErrors(strategy, pv).map((e) => e.field)).toEqual([
      'spec.accessModes',
      'spec.capacity[storage]',
      'spec.local.path',
      'spec.nodeAffinity',
    ]);
  });

  test('status.phase must be one of the five phases', () => {
    const pv = { ...structuredClone(localPV), status: { phase: 'Lost' } };
    expect(lines(validatePersistentVolume(pv))).toEqual([
      'status.phase: Unsupported value: "Lost": supported values: "Available", "Bound", "Failed", "Pending", "Released"',
    ]);
  });
});

describe('PersistentVolume validation on update', () => {
  const stored = created(strategy, localPV);
  const storedCSI = created(strategy, csiPV);
  const storedHostPath = created(strategy, hostPathPV);
  const storedNFS = created(strategy, nfsPV);

  test.each<{ rule: string; prev: KubeObject; change: object; want: string[] }>([
    { rule: 'labels may change', prev: stored, change: { metadata: { labels: { tier: 'fast' } } }, want: [] },
    { rule: 'the binder may set claimRef', prev: stored, change: { spec: { claimRef: { namespace: 'ns', name: 'c', uid: 'u' } } }, want: [] },
    { rule: 'capacity and reclaim policy may change', prev: stored, change: { spec: { capacity: { storage: '20Gi' }, persistentVolumeReclaimPolicy: 'Delete' } }, want: [] },
    { rule: 'the volume source is immutable', prev: stored, change: { spec: { local: { path: '/mnt/disks/ssd2' } } }, want: ['spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation'] },
    {
      rule: 'the volume source type is immutable',
      prev: stored,
      change: { spec: { local: undefined, hostPath: { path: '/mnt/disks/ssd1' } } },
      want: ['spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation'],
    },
    { rule: 'volumeMode is immutable', prev: stored, change: { spec: { volumeMode: 'Block' } }, want: ['volumeMode: Invalid value: "Block": field is immutable'] },
    { rule: 'node affinity is immutable once set', prev: stored, change: { spec: { nodeAffinity: hostnameAffinity('node-2') } }, want: [expect.stringMatching(/^nodeAffinity: Invalid value: .*: field is immutable, except for updating from beta label to GA$/)] },
    {
      rule: 'a replicated pool volume’s node affinity follows its copies',
      prev: patched(stored, { metadata: { annotations: { 'pv.kubernetes.io/provisioned-by': 'stowage.io/btrfs', 'replication.stowage.io/active-node': 'node-1' } } }),
      change: { spec: { nodeAffinity: hostnameAffinity('node-1', 'node-2') } },
      want: [],
    },
    {
      rule: 'not for another provisioner’s volume marked replicated',
      prev: patched(stored, { metadata: { annotations: { 'pv.kubernetes.io/provisioned-by': 'example.com/other', 'replication.stowage.io/active-node': 'node-1' } } }),
      change: { spec: { nodeAffinity: hostnameAffinity('node-2') } },
      want: [expect.stringMatching(/field is immutable/)],
    },
    {
      rule: 'not when the update drops the mark',
      prev: patched(stored, { metadata: { annotations: { 'pv.kubernetes.io/provisioned-by': 'stowage.io/btrfs', 'replication.stowage.io/active-node': 'node-1' } } }),
      change: { metadata: { annotations: { 'replication.stowage.io/active-node': '' } }, spec: { nodeAffinity: hostnameAffinity('node-2') } },
      want: [expect.stringMatching(/field is immutable/)],
    },
    { rule: 'mount options may change', prev: storedNFS, change: { spec: { mountOptions: ['soft'] } }, want: [] },
    { rule: 'capacity, reclaim policy, class and access modes may change', prev: stored, change: { spec: { capacity: { storage: '20Gi' }, persistentVolumeReclaimPolicy: 'Retain', storageClassName: 'other', accessModes: ['ReadWriteMany'] } }, want: [] },
    { rule: 'node affinity may be set when it was not', prev: storedHostPath, change: { spec: { nodeAffinity: hostnameAffinity('node-1') } }, want: [] },
    { rule: 'a csi volume may gain a controllerExpandSecretRef', prev: storedCSI, change: { spec: { csi: { controllerExpandSecretRef: { name: 'x', namespace: 'y' } } } }, want: [] },
    { rule: 'a csi volume handle is immutable', prev: storedCSI, change: { spec: { csi: { volumeHandle: 'vol-9' } } }, want: ['spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation'] },
    { rule: 'the name is immutable', prev: stored, change: { metadata: { name: 'other' } }, want: ['metadata.name: Invalid value: "other": field is immutable'] },
  ])('$rule', ({ prev, change, want }) => {
    expect(lines(updateErrors(strategy, prev, patched(prev, change)))).toEqual(want);
  });

  test('a beta zone label may become the GA label', () => {
    const beta = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'failure-domain.beta.kubernetes.io/zone', operator: 'In', values: ['z1'] }] }] } };
    const prev = created(strategy, patched(hostPathPV, { spec: { nodeAffinity: beta } }));
    const ga = structuredClone(beta);
    ga.required.nodeSelectorTerms[0].matchExpressions[0].key = 'topology.kubernetes.io/zone';
    expect(updateErrors(strategy, prev, patched(prev, { spec: { nodeAffinity: ga } }))).toEqual([]);
  });

  test('a status update may move the phase but not to an unknown one', () => {
    expect(statusUpdateErrors(strategy, stored, patched(stored, { status: { phase: 'Available' } }))).toEqual([]);
    expect(lines(statusUpdateErrors(strategy, stored, patched(stored, { status: { phase: 'Lost' } })))).toEqual([
      'status.phase: Unsupported value: "Lost": supported values: "Available", "Bound", "Failed", "Pending", "Released"',
    ]);
  });

  test('a status update cannot change the source', () => {
    expect(statusUpdateErrors(strategy, stored, patched(stored, { spec: { local: { path: '/other' } }, status: { phase: 'Available' } }))).toEqual([]);
  });
});
