// The table of matching cases (seed 004's eight steps, with the situations of upstream's
// index_test.go and binder_test.go), named after the rule each shows. Used by the pure
// table test (matching.test.ts) and by the store-path test (test/controllers).
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { ObjectMeta } from '../resources/types';
import type { MatchOptions } from './matching';

export const RWO = 'ReadWriteOnce';
export const ROX = 'ReadOnlyMany';
export const RWX = 'ReadWriteMany';
export const RWOP = 'ReadWriteOncePod';

/** An object as pv() and pvc() build it: spec and status are always there. */
export type Built<T extends { spec?: unknown; status?: unknown }> = T & { spec: NonNullable<T['spec']>; status: NonNullable<T['status']> };
export type Mod<T extends PersistentVolume | PersistentVolumeClaim = PersistentVolume> = (o: Built<T>) => void;

export function pv(name: string, size: string, modes: string[] = [RWO], mod?: Mod): PersistentVolume {
  const o: Built<PersistentVolume> = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, uid: `uid-${name}` },
    spec: { capacity: { storage: size }, accessModes: modes, volumeMode: 'Filesystem', hostPath: { path: `/tmp/${name}` } },
    status: { phase: 'Available' },
  };
  mod?.(o);
  return o;
}

export function pvc(size: string, modes: string[] = [RWO], mod?: Mod<PersistentVolumeClaim>): PersistentVolumeClaim {
  const o: Built<PersistentVolumeClaim> = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'claim01', namespace: 'myns', uid: 'uid-claim01' },
    spec: { accessModes: modes, resources: { requests: { storage: size } }, volumeMode: 'Filesystem' },
    status: { phase: 'Pending' },
  };
  mod?.(o);
  return o;
}

export const boundTo = (name: string, uid = `uid-${name}`, namespace = 'myns'): Mod => (o) => {
  o.spec.claimRef = { kind: 'PersistentVolumeClaim', namespace, name, uid };
  o.status.phase = 'Bound';
};
export const preboundTo = (name: string, namespace = 'myns'): Mod => (o) => {
  o.spec.claimRef = { namespace, name };
};
export const labels = (l: Record<string, string>) => (o: { metadata: ObjectMeta }) => {
  o.metadata.labels = l;
};
export const cls = (c: string) => (o: { spec: { storageClassName?: string } }) => {
  o.spec.storageClassName = c;
};
/** The mods in order; their kind comes from where the result is used (pv() or pvc()). */
export const both = <T extends PersistentVolume | PersistentVolumeClaim>(...mods: NoInfer<Mod<T>>[]): Mod<T> => (o) => mods.forEach((m) => m(o));

// Upstream createTestVolumes (index_test.go), deliberately out of order.
const upstreamVolumes = [
  pv('gce-pd-10', '10G', [RWO, ROX]),
  pv('gce-pd-20', '20G', [RWO, ROX], boundTo('other', 'def456')),
  pv('nfs-5', '5G', [RWO, ROX, RWX]),
  pv('gce-pd-1', '1G', [RWO, ROX], boundTo('other2', 'abc123')),
  pv('nfs-10', '10G', [RWO, ROX, RWX]),
  pv('gce-pd-5', '5G', [RWO, ROX]),
  pv('nfs-1', '1G', [RWO, ROX, RWX]),
  pv('gce-pd-2', '20000G', [RWO], labels({ 'should-exist': 'true' })),
  pv('gce-pd-silver1', '10000G', [RWO], both(cls('silver'), labels({ 'should-exist': 'true' }))),
  pv('gce-pd-silver2', '100G', [RWO], cls('silver')),
  pv('gce-pd-gold', '50G', [RWO], cls('gold')),
];

// TestFindingVolumeWithDifferentAccessModes
const gce = (mod?: Mod) => pv('gce', '10G', [RWO, ROX], mod);
const ebs = (mod?: Mod) => pv('ebs', '10G', [RWO], mod);
const nfs = (mod?: Mod) => pv('nfs', '10G', [RWO, ROX, RWX], mod);
const taken = boundTo('someone-else');

// TestFindingPreboundVolumes
const prebound = (name: string, size: string, modes: string[] = [RWO], mod?: Mod) =>
  pv(name, size, modes, both(preboundTo('claim01'), mod ?? (() => {})));

export interface MatchCase {
  name: string;
  claim: PersistentVolumeClaim;
  volumes: PersistentVolume[];
  opts?: MatchOptions;
  expected: string | undefined;
  prebound?: boolean;
  /** Shows the in-memory tie-break (equal sizes by name); the store takes index order. */
  tieBreak?: boolean;
}

const node1 = { name: 'node1', labels: { 'kubernetes.io/hostname': 'node1', zone: 'a' } };
const pinnedTo = (host: string): Mod => (o) => {
  o.spec.nodeAffinity = {
    required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [host] }] }] },
  };
};

export const matchCases: MatchCase[] = [
  // Step 1: access modes equal to or greater than requested.
  { name: 'step 1: a volume lacking a requested access mode is never considered', claim: pvc('1G', [RWX]), volumes: [ebs()], expected: undefined },
  { name: 'step 1: a volume with more modes than requested is considered', claim: pvc('1G', [RWO]), volumes: [gce()], expected: 'gce' },
  { name: 'step 1: the order of requested modes does not matter', claim: pvc('1G', [RWX, RWO, ROX]), volumes: [gce(), ebs(), nfs()], expected: 'nfs' },
  { name: 'step 1: fewer requested modes still match a volume with more', claim: pvc('1G', [RWX]), volumes: [gce(), ebs(), nfs()], expected: 'nfs' },
  { name: 'step 1: a partial mode request (ROX) matches the closest set containing it', claim: pvc('1G', [ROX]), volumes: [gce(), ebs(), nfs()], expected: 'gce' },
  { name: 'step 1: ReadWriteOncePod matches only a ReadWriteOncePod volume', claim: pvc('1G', [RWOP]), volumes: [pv('rwo', '1G', [RWO]), pv('rwop', '10G', [RWOP])], expected: 'rwop' },
  { name: 'step 1: ReadWriteOnce does not match a ReadWriteOncePod volume', claim: pvc('1G', [RWO]), volumes: [pv('rwop', '10G', [RWOP])], expected: undefined },
  // Step 2: closest access-mode group first.
  { name: 'step 2: the exact access-mode set wins over a larger set', claim: pvc('1G', [RWO]), volumes: [gce(), ebs(), nfs()], expected: 'ebs' },
  { name: 'step 2: the exact set wins even when a larger set has a smaller volume', claim: pvc('1G', [RWO]), volumes: [pv('big-exact', '100G', [RWO]), pv('small-wider', '1G', [RWO, ROX])], expected: 'big-exact' },
  { name: 'step 2: with the exact set taken, the next larger set is used', claim: pvc('1G', [RWO]), volumes: [gce(), ebs(taken), nfs()], expected: 'gce' },
  { name: 'step 2: continuing up the levels of modes', claim: pvc('1G', [RWO]), volumes: [gce(taken), ebs(taken), nfs()], expected: 'nfs' },
  { name: 'step 2: sets with as many modes go by their bits (RWO+ROX before RWO+RWX)', claim: pvc('1G', [RWO]), volumes: [pv('rwo-rwx', '1G', [RWO, RWX]), pv('rwo-rox', '5G', [RWO, ROX])], expected: 'rwo-rox' },
  { name: 'step 2: a closer group wins over a volume pre-bound to the claim in a farther group (upstream)', claim: pvc('1G', [RWO]), volumes: [ebs(), gce(preboundTo('claim01'))], expected: 'ebs', prebound: false },
  { name: 'step 2: upstream successful-match-gce-10', claim: pvc('8G', [ROX, RWO]), volumes: upstreamVolumes, expected: 'gce-pd-10' },
  { name: 'step 2: upstream successful-match-nfs-5', claim: pvc('5G', [ROX, RWO, RWX]), volumes: upstreamVolumes, expected: 'nfs-5' },
  // Step 3: pre-bound volumes.
  { name: 'step 3: a volume pre-bound by claimRef name wins over a smaller available one', claim: pvc('1Gi'), volumes: [prebound('pv8', '8Gi'), pv('pv1', '1Gi'), pv('pv5', '5Gi')], expected: 'pv8', prebound: true },
  { name: 'step 3: a volume pre-bound by name and uid wins', claim: pvc('1Gi'), volumes: [pv('pv10', '10Gi', [RWO], boundTo('claim01', 'uid-claim01')), pv('pv1', '1Gi')], expected: 'pv10', prebound: true },
  { name: 'step 3: a claimRef with this name but another uid belongs to another claim', claim: pvc('1Gi'), volumes: [pv('volume1-7', '10Gi', [RWO], boundTo('claim01', 'uid1-777'))], expected: undefined },
  { name: 'step 3: a pre-bound volume that is too small is passed over', claim: pvc('1Gi'), volumes: [prebound('pv-bad-size', '1Mi'), pv('pv1', '1Gi'), pv('pv5', '5Gi')], expected: 'pv1' },
  { name: 'step 3: a pre-bound volume without a requested access mode is not considered', claim: pvc('1Gi'), volumes: [prebound('pv-bad-mode', '1Gi', [ROX]), pv('pv1', '1Gi')], expected: 'pv1' },
  { name: 'step 3: a pre-bound volume binds although the claim selector does not match it', claim: pvc('1Gi', [RWO], (c) => (c.spec.selector = { matchLabels: { foo: 'true' } })), volumes: [prebound('pv-nolabels', '1Gi')], expected: 'pv-nolabels', prebound: true },
  { name: 'step 3: a pre-bound volume binds although its class differs (upstream checks class only for the rest)', claim: pvc('1Gi', [RWO], cls('gold')), volumes: [prebound('pv-silver', '1Gi', [RWO], cls('silver'))], expected: 'pv-silver', prebound: true },
  { name: 'step 3: a pre-bound volume still in phase Pending binds', claim: pvc('1Gi'), volumes: [prebound('pv-pending', '1Gi', [RWO], (o) => (o.status.phase = 'Pending'))], expected: 'pv-pending', prebound: true },
  { name: 'step 3: a pre-bound volume of another volume mode does not bind', claim: pvc('1Gi'), volumes: [prebound('pv-block', '1Gi', [RWO], (o) => (o.spec.volumeMode = 'Block'))], expected: undefined },
  { name: 'step 3: a pre-bound volume being deleted does not bind', claim: pvc('1Gi'), volumes: [prebound('pv-del', '1Gi', [RWO], (o) => (o.metadata.deletionTimestamp = '2026-01-01T00:00:00Z'))], expected: undefined },
  { name: 'step 3: a claimRef to the same name in another namespace is not this claim', claim: pvc('1Gi'), volumes: [pv('pv-other-ns', '1Gi', [RWO], preboundTo('claim01', 'otherns'))], expected: undefined },
  // Step 4: volumes annotated for (alpha) dynamic provisioning.
  { name: 'step 4: a volume annotated for dynamic provisioning is skipped', claim: pvc('1Gi'), volumes: [pv('pv-alpha', '1Gi', [RWO], (o) => (o.metadata.annotations = { 'volume.alpha.kubernetes.io/storage-class': 'x' }))], expected: undefined },
  { name: 'step 4: an annotated volume pre-bound to the claim still binds (step 3 comes first)', claim: pvc('1Gi'), volumes: [prebound('pv-alpha', '1Gi', [RWO], (o) => (o.metadata.annotations = { 'volume.alpha.kubernetes.io/storage-class': 'x' }))], expected: 'pv-alpha', prebound: true },
  // Step 5: other claimRefs.
  { name: 'step 5: a volume bound to another claim is skipped (TestMatchingWithBoundVolumes)', claim: pvc('1G', [ROX, RWO]), volumes: [pv('gce001', '1G', [RWO, ROX], boundTo('x', 'abc123')), pv('gce002', '1G', [RWO, ROX])], expected: 'gce002' },
  { name: 'step 5: upstream successful-skip-1g-bound-volume', claim: pvc('1G', [ROX, RWO]), volumes: upstreamVolumes, expected: 'gce-pd-5' },
  { name: 'step 5: a volume reserved for another claim (claimRef without uid) is skipped', claim: pvc('1Gi'), volumes: [pv('pv-reserved', '1Gi', [RWO], preboundTo('someone'))], expected: undefined },
  { name: 'step 5: a Released volume is not reused, even by a new claim of the same name', claim: pvc('1Gi'), volumes: [pv('pv-released', '1Gi', [RWO], both(boundTo('claim01', 'uid-old'), (o) => (o.status.phase = 'Released')))], expected: undefined },
  // Step 6: label selectors.
  { name: 'step 6: matchLabels selects a labelled volume (1-11)', claim: pvc('1Gi', [RWO], (c) => (c.spec.selector = { matchLabels: { foo: 'true', bar: 'false' } })), volumes: [pv('pv-labelled', '1Gi', [RWO], labels({ foo: 'true', bar: 'false' }))], expected: 'pv-labelled' },
  { name: 'step 6: a volume without the selected labels is skipped (1-12)', claim: pvc('1Gi', [RWO], (c) => (c.spec.selector = { matchLabels: { foo: 'true' } })), volumes: [pv('pv-plain', '1Gi')], expected: undefined },
  { name: 'step 6: upstream successful-no-match-due-to-label', claim: pvc('999G', [ROX, RWO], (c) => (c.spec.selector = { matchLabels: { 'should-not-exist': 'true' } })), volumes: upstreamVolumes, expected: undefined },
  { name: 'step 6: a selector match does not guarantee a match: the size must fit too', claim: pvc('20000G', [ROX, RWO], (c) => (c.spec.selector = { matchLabels: { 'should-exist': 'true' } })), volumes: upstreamVolumes, expected: undefined },
  { name: 'step 6: upstream successful-match-due-with-constraint-and-label-selector', claim: pvc('20000G', [RWO], (c) => (c.spec.selector = { matchLabels: { 'should-exist': 'true' } })), volumes: upstreamVolumes, expected: 'gce-pd-2' },
  { name: 'step 6: matchExpressions In picks a volume whose label value is listed', claim: pvc('1Gi', [RWO], (c) => (c.spec.selector = { matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold', 'silver'] }] })), volumes: [pv('a-bronze', '1Gi', [RWO], labels({ tier: 'bronze' })), pv('b-silver', '2Gi', [RWO], labels({ tier: 'silver' }))], expected: 'b-silver' },
  { name: 'step 6: matchExpressions NotIn skips the excluded value', claim: pvc('1Gi', [RWO], (c) => (c.spec.selector = { matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['east', 'west'] }] })), volumes: [pv('a-east', '1Gi', [RWO], labels({ region: 'east' })), pv('b-north', '2Gi', [RWO], labels({ region: 'north' }))], expected: 'b-north' },
  { name: 'step 6: matchExpressions Exists requires the key', claim: pvc('1Gi', [RWO], (c) => (c.spec.selector = { matchExpressions: [{ key: 'ssd', operator: 'Exists' }] })), volumes: [pv('a-plain', '1Gi'), pv('b-ssd', '5Gi', [RWO], labels({ ssd: '' }))], expected: 'b-ssd' },
  { name: 'step 6: matchExpressions DoesNotExist excludes volumes with the key', claim: pvc('1Gi', [RWO], (c) => (c.spec.selector = { matchExpressions: [{ key: 'broken', operator: 'DoesNotExist' }] })), volumes: [pv('a-broken', '1Gi', [RWO], labels({ broken: 'yes' })), pv('b-fine', '5Gi')], expected: 'b-fine' },
  { name: 'step 6: an empty selector {} matches every volume', claim: pvc('1Gi', [RWO], (c) => (c.spec.selector = {})), volumes: [pv('pv-any', '1Gi', [RWO], labels({ x: 'y' }))], expected: 'pv-any' },
  // Step 7: storage class.
  { name: 'step 7: a claim with a class matches only volumes of that class (successful-match-with-class)', claim: pvc('1G', [RWO], both(cls('silver'), (c) => (c.spec.selector = { matchLabels: { 'should-exist': 'true' } }))), volumes: upstreamVolumes, expected: 'gce-pd-silver1' },
  { name: 'step 7: class and size combine (successful-match-with-class-and-labels)', claim: pvc('1G', [RWO], cls('silver')), volumes: upstreamVolumes, expected: 'gce-pd-silver2' },
  { name: 'step 7: a claim without storageClassName matches only volumes without a class', claim: pvc('1Gi'), volumes: [pv('a-gold', '1Gi', [RWO], cls('gold')), pv('b-none', '2Gi')], expected: 'b-none' },
  { name: 'step 7: storageClassName "" matches only volumes without a class', claim: pvc('1Gi', [RWO], cls('')), volumes: [pv('a-gold', '1Gi', [RWO], cls('gold')), pv('b-none', '2Gi')], expected: 'b-none' },
  { name: 'step 7: a class-less claim never takes a volume of a class', claim: pvc('1Gi'), volumes: [pv('a-gold', '1Gi', [RWO], cls('gold'))], expected: undefined },
  { name: 'step 7: the beta class annotation on the claim wins over storageClassName', claim: pvc('1Gi', [RWO], both(cls('gold'), (c) => (c.metadata.annotations = { 'volume.beta.kubernetes.io/storage-class': 'silver' }))), volumes: [pv('a-gold', '1Gi', [RWO], cls('gold')), pv('b-silver', '2Gi', [RWO], cls('silver'))], expected: 'b-silver' },
  { name: 'step 7: the beta class annotation on the volume wins over storageClassName', claim: pvc('1Gi', [RWO], cls('silver')), volumes: [pv('a-anno', '1Gi', [RWO], both(cls('gold'), (o) => (o.metadata.annotations = { 'volume.beta.kubernetes.io/storage-class': 'silver' })))], expected: 'a-anno' },
  { name: 'step 7 (upstream): a volume not yet Available is not bound', claim: pvc('1Gi'), volumes: [pv('pv-pending', '1Gi', [RWO], (o) => (o.status.phase = 'Pending'))], expected: undefined },
  { name: 'step 7 (upstream): a Failed volume is not bound', claim: pvc('1Gi'), volumes: [pv('pv-failed', '1Gi', [RWO], (o) => (o.status.phase = 'Failed'))], expected: undefined },
  // volumeMode and deletion.
  { name: 'volumeMode: a Block claim does not take a Filesystem volume', claim: pvc('1Gi', [RWO], (c) => (c.spec.volumeMode = 'Block')), volumes: [pv('fs', '1Gi')], expected: undefined },
  { name: 'volumeMode: a Block claim takes a Block volume', claim: pvc('1Gi', [RWO], (c) => (c.spec.volumeMode = 'Block')), volumes: [pv('fs', '1Gi'), pv('block', '5Gi', [RWO], (o) => (o.spec.volumeMode = 'Block'))], expected: 'block' },
  { name: 'volumeMode: a missing volumeMode is Filesystem on both sides', claim: pvc('1Gi', [RWO], (c) => delete c.spec.volumeMode), volumes: [pv('fs', '1Gi', [RWO], (o) => delete o.spec.volumeMode)], expected: 'fs' },
  { name: 'deletion: a volume being deleted is skipped', claim: pvc('1Gi'), volumes: [pv('a-del', '1Gi', [RWO], (o) => (o.metadata.deletionTimestamp = '2026-01-01T00:00:00Z')), pv('b-ok', '2Gi')], expected: 'b-ok' },
  // Step 8: the smallest that fits.
  { name: 'step 8: the smallest volume that fits wins (1-4)', claim: pvc('1Gi'), volumes: [pv('volume1-4-1', '10Gi'), pv('volume1-4-2', '1Gi')], expected: 'volume1-4-2' },
  { name: 'step 8: a volume of exactly the requested size fits', claim: pvc('5Gi'), volumes: [pv('a', '5Gi'), pv('b', '6Gi')], expected: 'a' },
  { name: 'step 8: sizes compare exactly across units (1000M = 1G < 1Gi)', claim: pvc('1G'), volumes: [pv('a-gi', '1Gi'), pv('b-m', '1000M')], expected: 'b-m' },
  { name: 'step 8: a volume one byte too small does not fit', claim: pvc('1Gi'), volumes: [pv('a', '1073741823')], expected: undefined },
  { name: 'step 8: equal sizes are decided by name (in memory)', claim: pvc('1Gi'), volumes: [pv('zeta', '2Gi'), pv('alpha', '2Gi')], expected: 'alpha', tieBreak: true },
  { name: 'step 8: nothing large enough: no match (successful-no-match)', claim: pvc('999G', [ROX, RWO]), volumes: upstreamVolumes, expected: undefined },
  // Node affinity (scheduler path) and delayed binding.
  { name: 'node affinity: with a node, a volume pinned to another node is skipped', claim: pvc('1Gi'), volumes: [pv('a-node2', '1Gi', [RWO], pinnedTo('node2'))], opts: { node: node1 }, expected: undefined },
  { name: 'node affinity: with a node, a volume pinned to it matches', claim: pvc('1Gi'), volumes: [pv('a-node2', '1Gi', [RWO], pinnedTo('node2')), pv('b-node1', '2Gi', [RWO], pinnedTo('node1'))], opts: { node: node1 }, expected: 'b-node1' },
  { name: 'node affinity: without a node it is not checked (the binder path)', claim: pvc('1Gi'), volumes: [pv('a-node2', '1Gi', [RWO], pinnedTo('node2'))], expected: 'a-node2' },
  { name: 'delay binding: without a consumer node only a pre-bound volume binds', claim: pvc('1Gi'), volumes: [pv('a-free', '1Gi'), prebound('b-pre', '2Gi')], opts: { delayBinding: true }, expected: 'b-pre', prebound: true },
  { name: 'delay binding: without a consumer node a free volume waits', claim: pvc('1Gi'), volumes: [pv('a-free', '1Gi')], opts: { delayBinding: true }, expected: undefined },
];
