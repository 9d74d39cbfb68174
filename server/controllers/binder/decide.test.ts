import { describe, expect, it } from 'vitest';
import type { MatchOptions } from '../../domain/matching';
import type { PersistentVolume } from '../../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../../resources/storage-class/schema';
import { annBindCompleted, annBindingExplanation } from '../../domain/well-known/annotations';
import { dataSourceRefusal, decide, delayBindingEvent, type ClaimAction, type ClaimFacts, type LockedFacts } from './decide';

interface ClaimShape {
  cls?: string | null;
  volumeName?: string;
  bound?: boolean;
  phase?: string;
  deleting?: boolean;
  dataSource?: 'snapshot' | 'populator' | 'backup';
  rv?: string;
}

function claim(o: ClaimShape = {}): PersistentVolumeClaim {
  const annotations: Record<string, string> = o.bound ? { [annBindCompleted]: 'yes' } : {};
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c', namespace: 'ns', uid: 'u1', resourceVersion: o.rv ?? '10', annotations, ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: {
      ...(o.cls === null ? {} : { storageClassName: o.cls ?? 'gold' }),
      ...(o.volumeName ? { volumeName: o.volumeName } : {}),
      ...(o.dataSource === 'snapshot' ? { dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's' } } : {}),
      ...(o.dataSource === 'populator' ? { dataSource: { apiGroup: 'populators.example.io', kind: 'Populator', name: 'p' } } : {}),
      ...(o.dataSource === 'backup' ? { dataSource: { apiGroup: 'stowage.io', kind: 'VolumeBackup', name: 'b' } } : {}),
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '1Gi' } },
    },
    status: { phase: o.phase ?? (o.bound ? 'Bound' : 'Pending'), ...(o.bound ? { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] } : {}) },
  };
}

interface VolumeShape {
  name?: string;
  claimUid?: string | null;
  claimName?: string;
  phase?: string;
  size?: string;
  cls?: string;
}

function volume(o: VolumeShape = {}): PersistentVolume {
  const ref = o.claimUid === undefined ? undefined : { namespace: 'ns', name: o.claimName ?? 'c', ...(o.claimUid ? { uid: o.claimUid } : {}) };
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: o.name ?? 'pv-1', resourceVersion: '5' },
    spec: { capacity: { storage: o.size ?? '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: o.cls ?? 'gold', ...(ref ? { claimRef: ref } : {}) },
    status: { phase: o.phase ?? (ref ? 'Bound' : 'Available') },
  };
}

const storageClass = (provisioner: string): StorageClass => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'gold' }, provisioner });
const inTree = new Set(['stowage.io/host-path']);
const wffcNoNode: MatchOptions = { delayBinding: true };

interface Row {
  name: string;
  claim: PersistentVolumeClaim;
  volume?: PersistentVolume;
  defaultClass?: string;
  sc?: StorageClass;
  opts?: MatchOptions;
  locked?: LockedFacts;
  unscheduledPods?: string[];
  want: string;
}

/** The action in a few words: what the row's name promises. */
function summary(a: ClaimAction): string {
  const events = (e: { reason: string }[]) => (e.length > 0 ? ` [${e.map((x) => x.reason).join(', ')}]` : '');
  switch (a.action) {
    case 'bind':
      return `bind ${a.volume.metadata.name}`;
    case 'setDefaultClass':
      return `setDefaultClass ${a.className}`;
    case 'markLost':
      return `markLost ${a.reason}`;
    case 'provision':
      return `provision ${a.provisioner}${events(a.events)}`;
    case 'pending':
      return `pending ${a.situation.kind}${events(a.events)}`;
    default:
      return a.action;
  }
}

function facts(r: Row): ClaimFacts {
  return { claim: r.claim, volume: r.volume, defaultClass: r.defaultClass, storageClass: r.sc, opts: r.opts ?? {}, unscheduledPods: r.unscheduledPods, inTreeProvisioners: inTree, locked: r.locked };
}

const unbound = (o: ClaimShape = {}) => claim(o);
const lockedAs = (c: PersistentVolumeClaim, more: Omit<LockedFacts, 'claim'> = {}): LockedFacts => ({ claim: c, ...more });
const bound = (o: ClaimShape = {}) => claim({ bound: true, volumeName: 'pv-1', ...o });
const complete = () => {
  const v = volume({ claimUid: 'u1' });
  return { claim: bound(), volume: v };
};

describe('decide: a claim whose binding completed once (upstream syncBoundClaim)', () => {
  it.each<Row>([
    { name: 'names no volume any more', claim: bound({ volumeName: '' }), want: 'markLost ClaimLost' },
    { name: 'its volume is gone', claim: bound(), want: 'markLost ClaimLost' },
    { name: 'its volume is gone, already Lost', claim: bound({ phase: 'Lost' }), want: 'none' },
    { name: 'its volume is bound to another claim', claim: bound(), volume: volume({ claimUid: 'u2' }), want: 'markLost ClaimMisbound' },
    { name: 'its volume lost its claimRef', claim: bound(), volume: volume(), want: 'bind pv-1' },
    { name: 'its volume is not Bound yet', claim: bound(), volume: volume({ claimUid: 'u1', phase: 'Available' }), want: 'bind pv-1' },
    { name: 'both sides say everything', ...complete(), want: 'none' },
  ])('$name -> $want', (r) => {
    expect(summary(decide(facts(r)))).toBe(r.want);
  });
});

describe('decide: an unbound claim before its bind transaction', () => {
  it.each<Row>([
    { name: 'no class, a default class exists', claim: unbound({ cls: null }), defaultClass: 'fast', want: 'setDefaultClass fast' },
    { name: 'no class, no default class', claim: unbound({ cls: null }), want: 'lookForVolume' },
    { name: 'class "" (asks for none)', claim: unbound({ cls: '' }), defaultClass: 'fast', want: 'lookForVolume' },
    { name: 'names its volume, no class', claim: unbound({ cls: null, volumeName: 'pv-1' }), defaultClass: 'fast', want: 'lookForVolume' },
    { name: 'being deleted, no class', claim: unbound({ cls: null, deleting: true }), defaultClass: 'fast', want: 'lookForVolume' },
    { name: 'has a class', claim: unbound(), defaultClass: 'fast', want: 'lookForVolume' },
  ])('$name -> $want', (r) => {
    expect(summary(decide(facts(r)))).toBe(r.want);
  });
});

const c = unbound();
const named = unbound({ volumeName: 'pv-1' });
/** An unbound claim whose consumer the scheduler placed on `node` (volume.kubernetes.io/selected-node). */
const onNode = (node: string): PersistentVolumeClaim => {
  const x = unbound();
  x.metadata.annotations = { ...x.metadata.annotations, 'volume.kubernetes.io/selected-node': node };
  return x;
};
const match = (v: PersistentVolume, prebound = false) => ({ volume: v, prebound });

describe('decide: what the bind transaction found (upstream syncUnboundClaim)', () => {
  it.each<Row>([
    { name: 'the claim changed under the lock', claim: c, locked: lockedAs(unbound({ rv: '11' })), want: 'retry' },
    { name: 'the claim is gone under the lock', claim: c, locked: {}, want: 'retry' },
    { name: 'the store matched a volume', claim: c, locked: lockedAs(c, { match: match(volume()) }), want: 'bind pv-1' },
    { name: 'a volume pre-bound by claimRef matched', claim: c, locked: lockedAs(c, { match: match(volume({ claimUid: null }), true) }), want: 'bind pv-1' },
    { name: 'no match, candidates busy', claim: c, locked: lockedAs(c, { busy: true }), want: 'retrySoon' },
    { name: 'no match, being deleted', claim: unbound({ deleting: true }), locked: lockedAs(unbound({ deleting: true })), sc: storageClass('ext.io/nfs'), want: 'none' },
    { name: 'no match, WaitForFirstConsumer without a node', claim: c, sc: storageClass('ext.io/nfs'), opts: wffcNoNode, locked: lockedAs(c), want: 'pending waitForFirstConsumer [WaitForFirstConsumer]' },
    { name: 'no match, WaitForFirstConsumer, a pod not yet scheduled', claim: c, sc: storageClass('ext.io/nfs'), opts: wffcNoNode, unscheduledPods: ['web-0'], locked: lockedAs(c), want: 'pending waitForFirstConsumer [WaitForPodScheduled]' },
    // pv_controller syncUnboundClaim: IsDelayBindingProvisioning reads the annotation only; the node it names need not be known.
    { name: 'no match, WaitForFirstConsumer, a selected node Stowage does not know: handed to the external provisioner', claim: onNode('node-elsewhere'), sc: storageClass('ext.io/nfs'), opts: wffcNoNode, locked: lockedAs(onNode('node-elsewhere')), want: 'provision ext.io/nfs [ExternalProvisioning]' },
    { name: 'no match, WaitForFirstConsumer, a selected node Stowage does not know: handed to the in-tree provisioner, which decides', claim: onNode('node-elsewhere'), sc: storageClass('stowage.io/host-path'), opts: wffcNoNode, locked: lockedAs(onNode('node-elsewhere')), want: 'provision stowage.io/host-path' },
    { name: 'no match, WaitForFirstConsumer, a known selected node', claim: onNode('n1'), sc: storageClass('ext.io/nfs'), opts: { delayBinding: true, node: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } } }, locked: lockedAs(onNode('n1')), want: 'provision ext.io/nfs [ExternalProvisioning]' },
    { name: 'no match, class not found', claim: c, locked: lockedAs(c), want: 'pending classNotFound [ProvisioningFailed]' },
    { name: 'no match, in-tree provisioner', claim: c, sc: storageClass('stowage.io/host-path'), locked: lockedAs(c), want: 'provision stowage.io/host-path' },
    { name: 'no match, external provisioner', claim: c, sc: storageClass('ext.io/nfs'), locked: lockedAs(c), want: 'provision ext.io/nfs [ExternalProvisioning]' },
    { name: 'no match, no-provisioner class', claim: c, sc: storageClass('kubernetes.io/no-provisioner'), locked: lockedAs(c), want: 'pending cannotProvision [ProvisioningFailed]' },
    { name: 'no match, a kubernetes.io/ plugin we lack', claim: c, sc: storageClass('kubernetes.io/gce-pd'), locked: lockedAs(c), want: 'pending cannotProvision [ProvisioningFailed]' },
    { name: 'no match, in-tree provisioner and a populator data source', claim: unbound({ dataSource: 'populator' }), sc: storageClass('stowage.io/host-path'), locked: lockedAs(unbound({ dataSource: 'populator' })), want: 'pending cannotProvision [ProvisioningFailed]' },
    { name: 'no match, in-tree provisioner and a VolumeSnapshot data source (a restore)', claim: unbound({ dataSource: 'snapshot' }), sc: storageClass('stowage.io/host-path'), locked: lockedAs(unbound({ dataSource: 'snapshot' })), want: 'provision stowage.io/host-path' },
    { name: 'no match, in-tree provisioner and a VolumeBackup data source (a restore from a backup)', claim: unbound({ dataSource: 'backup' }), sc: storageClass('stowage.io/host-path'), locked: lockedAs(unbound({ dataSource: 'backup' })), want: 'provision stowage.io/host-path' },
    { name: 'no match, external provisioner and a data source', claim: unbound({ dataSource: 'snapshot' }), sc: storageClass('ext.io/nfs'), locked: lockedAs(unbound({ dataSource: 'snapshot' })), want: 'provision ext.io/nfs [ExternalProvisioning]' },
    { name: 'no match, no class and no default class', claim: unbound({ cls: null }), locked: lockedAs(unbound({ cls: null })), want: 'pending noDefaultClass [FailedBinding]' },
    { name: 'no match, class ""', claim: unbound({ cls: '' }), locked: lockedAs(unbound({ cls: '' })), want: 'pending noMatch [FailedBinding]' },
    { name: 'names a volume that does not exist', claim: named, locked: lockedAs(named), want: 'pending volumeNotFound' },
    { name: 'names a free volume that fits', claim: named, locked: lockedAs(named, { requested: volume() }), want: 'bind pv-1' },
    { name: 'names a free volume too small', claim: named, locked: lockedAs(named, { requested: volume({ size: '1Mi' }) }), want: 'pending volumeMismatch [VolumeMismatch]' },
    { name: 'names a free volume of another class', claim: named, locked: lockedAs(named, { requested: volume({ cls: 'silver' }) }), want: 'pending volumeMismatch [VolumeMismatch]' },
    { name: 'names a volume pre-bound to it (claimRef without uid)', claim: named, locked: lockedAs(named, { requested: volume({ claimUid: null, size: '1Mi' }) }), want: 'bind pv-1' },
    { name: 'names a volume bound to it', claim: named, locked: lockedAs(named, { requested: volume({ claimUid: 'u1' }) }), want: 'bind pv-1' },
    { name: 'names a volume bound to another claim', claim: named, locked: lockedAs(named, { requested: volume({ claimUid: 'u2', claimName: 'other' }) }), want: 'pending volumeBoundElsewhere [FailedBinding]' },
    { name: 'names a volume bound elsewhere, being deleted', claim: unbound({ volumeName: 'pv-1', deleting: true }), locked: lockedAs(unbound({ volumeName: 'pv-1', deleting: true }), { requested: volume({ claimUid: 'u2' }) }), want: 'none' },
  ])('$name -> $want', (r) => {
    expect(summary(decide(facts(r)))).toBe(r.want);
  });
});

describe('decide: what goes with the action', () => {
  it('a claim naming its volume is explained without near volumes; one that searched, with them', () => {
    const named = decide(facts({ name: '', claim: unbound({ volumeName: 'pv-9' }), locked: lockedAs(unbound({ volumeName: 'pv-9' })), want: '' }));
    expect(named).toMatchObject({ action: 'pending', situation: { kind: 'volumeNotFound', volumeName: 'pv-9' }, showNear: false });
    const searched = decide(facts({ name: '', claim: c, locked: lockedAs(c), want: '' }));
    expect(searched).toMatchObject({ action: 'pending', situation: { kind: 'classNotFound', className: 'gold' }, showNear: true });
  });
  it('upstream texts: the data-source refusal, the mismatch, the lost volume', () => {
    const ds = unbound({ dataSource: 'populator' });
    expect(decide(facts({ name: '', claim: ds, sc: storageClass('stowage.io/host-path'), locked: lockedAs(ds), want: '' }))).toMatchObject({
      events: [{ type: 'Warning', message: dataSourceRefusal('stowage.io/host-path') }],
    });
    expect(decide(facts({ name: '', claim: named, locked: lockedAs(named, { requested: volume({ size: '1Mi' }) }), want: '' }))).toMatchObject({
      events: [{ message: 'Cannot bind to requested volume "pv-1": requested PV is too small' }],
    });
    expect(decide(facts({ name: '', claim: bound(), want: '' }))).toEqual({
      action: 'markLost',
      reason: 'ClaimLost',
      message: 'Bound claim has lost its PersistentVolume. Data on the volume is lost!',
    });
  });
  it('a bound claim still explained as Pending is not complete', () => {
    const { claim: b, volume: v } = complete();
    b.metadata.annotations![annBindingExplanation] = '{}';
    expect(summary(decide(facts({ name: '', claim: b, volume: v, want: '' })))).toBe('bind pv-1');
  });
});

describe('delayBindingEvent (upstream emitEventForUnboundDelayBindingClaim)', () => {
  it.each([
    { pods: [], reason: 'WaitForFirstConsumer', message: 'waiting for first consumer to be created before binding' },
    { pods: ['web-0'], reason: 'WaitForPodScheduled', message: 'waiting for pod web-0 to be scheduled' },
    { pods: ['web-0', 'web-1'], reason: 'WaitForPodScheduled', message: 'waiting for pods web-0,web-1 to be scheduled' },
  ])('$pods', ({ pods, reason, message }) => {
    expect(delayBindingEvent(pods)).toEqual({ reason, message });
  });
});
