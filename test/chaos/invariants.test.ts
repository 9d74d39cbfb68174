import { describe, expect, it } from 'vitest';
import {
  acknowledgedWritesDurable,
  acknowledgedWritesPresent,
  convergedInTime,
  exclusiveBindings,
  gapFreeWatches,
  noOfferBeforeWipe,
  noOverlappingWipes,
  restoredFromLastBackup,
  writesResumedInTime,
  type AckedWrite,
  type BindingObservation,
  type LostClaim,
  type RestoreOutcome,
  type WatchSegment,
} from '../../scripts/chaos/invariants';

describe('acknowledgedWritesPresent', () => {
  it.each([
    { name: 'all there', acked: ['a', 'b'], present: ['a', 'b', 'c'], deleted: [], violations: 0, checked: 2 },
    { name: 'one lost', acked: ['a', 'b'], present: ['a'], deleted: [], violations: 1, checked: 2 },
    { name: 'deleted by the run itself', acked: ['a', 'b'], present: ['a'], deleted: ['b'], violations: 0, checked: 1 },
    { name: 'nothing acknowledged', acked: [], present: [], deleted: [], violations: 0, checked: 0 },
  ])('$name', ({ acked, present, deleted, violations, checked }) => {
    const v = acknowledgedWritesPresent(acked, new Set(present), new Set(deleted));
    expect(v.violations).toHaveLength(violations);
    expect(v.checked).toBe(checked);
  });
});

describe('acknowledgedWritesDurable', () => {
  const w = (kind: string, key: string, uid: string, rv: number): AckedWrite => ({ kind, key, uid, rv: BigInt(rv) });
  const history = [
    w('PersistentVolumeClaim', 'chaos/disk-0-0', 'u1', 10),
    w('PersistentVolume', '/static-0-0', 'u2', 11),
    w('VolumeSnapshot', 'chaos/snap-0-0', 'u3', 12),
    w('ConfigMap', 'chaos/c0-0', 'u4', 13),
    w('PersistentVolumeClaim', 'chaos/disk-0-0', 'u1', 14), // its deletion, later
  ];
  it.each([
    { name: 'claims, volumes, snapshots and ConfigMaps all recorded (deleted ones too)', acked: [history[0], history[1], history[2], history[3]], bad: 0 },
    { name: 'a claim lost', acked: [w('PersistentVolumeClaim', 'chaos/disk-1-0', 'u9', 20)], bad: 1 },
    { name: 'a volume lost', acked: [w('PersistentVolume', '/static-1-0', 'u9', 21)], bad: 1 },
    { name: 'a snapshot lost', acked: [w('VolumeSnapshot', 'chaos/snap-1-0', 'u9', 22)], bad: 1 },
    { name: 'lost, and its resourceVersion reused by another object after the failover', acked: [w('VolumeSnapshot', 'chaos/snap-9', 'u9', 12)], bad: 1 },
    { name: 'the same name re-created: another uid at that resourceVersion', acked: [w('PersistentVolumeClaim', 'chaos/disk-0-0', 'u8', 10)], bad: 1 },
    { name: 'nothing acknowledged', acked: [], bad: 0 },
  ])('$name', ({ acked, bad }) => {
    const v = acknowledgedWritesDurable(acked, history);
    expect(v.violations).toHaveLength(bad);
    expect(v.checked).toBe(acked.length);
  });
});

describe('exclusiveBindings', () => {
  const pvc = (uid: string, volumeName?: string): BindingObservation => ({ kind: 'PersistentVolumeClaim', uid, name: `c-${uid}`, volumeName });
  const pv = (name: string, phase: string, claimUid?: string): BindingObservation => ({ kind: 'PersistentVolume', name, phase, claimUid });
  const gone = (uid: string): BindingObservation => ({ kind: 'PersistentVolumeClaim', uid, name: `c-${uid}`, deleted: true });
  it.each([
    { name: 'a normal life: bind, release, re-offer to a new claim', h: [pvc('u1', 'v1'), pv('v1', 'Bound', 'u1'), pv('v1', 'Released', 'u1'), pv('v1', 'Available'), pv('v1', 'Bound', 'u2'), pvc('u2', 'v1')], bad: 0 },
    { name: 'a claim names a second volume', h: [pvc('u1', 'v1'), pvc('u1', 'v2')], bad: 1 },
    { name: 'two volumes bound to one claim', h: [pv('v1', 'Bound', 'u1'), pv('v2', 'Bound', 'u1')], bad: 1 },
    { name: 'the same observation repeated is fine', h: [pv('v1', 'Bound', 'u1'), pv('v1', 'Bound', 'u1'), pvc('u1', 'v1'), pvc('u1', 'v1')], bad: 0 },
    { name: 'pre-bound (not yet Bound) volumes do not count', h: [pv('v1', 'Available', 'u1'), pv('v2', 'Bound', 'u1')], bad: 0 },
    { name: 'claims without a volume are skipped', h: [pvc('u1'), pvc('u1', 'v1')], bad: 0 },
    { name: 'one volume bound to a second claim while the first still exists', h: [pv('v1', 'Bound', 'u1'), pv('v1', 'Bound', 'u2')], bad: 1 },
    { name: 'one volume re-bound after its first claim was deleted (its Released state unseen)', h: [pv('v1', 'Bound', 'u1'), gone('u1'), pv('v1', 'Bound', 'u2')], bad: 0 },
    { name: 'one volume named by two live claims', h: [pvc('u1', 'v1'), pvc('u2', 'v1')], bad: 1 },
    { name: 'one volume named by a new claim after the old one was deleted', h: [pvc('u1', 'v1'), gone('u1'), pvc('u2', 'v1')], bad: 0 },
  ])('$name', ({ h, bad }) => {
    expect(exclusiveBindings(h).violations).toHaveLength(bad);
  });
});

describe('gapFreeWatches', () => {
  const seg = (startRv: number, rvs: number[], expired = false): WatchSegment => ({
    watcher: 'w',
    kind: 'PersistentVolume',
    startRv: BigInt(startRv),
    events: rvs.map((rv) => ({ type: 'MODIFIED', rv: BigInt(rv), key: `pv-${rv}` })),
    expired,
  });
  const committed = [10, 11, 14, 20].map((rv) => ({ rv: BigInt(rv), kind: 'PersistentVolume', key: `pv-${rv}` }));
  const otherKind = [{ rv: 12n, kind: 'ConfigMap', key: 'cm' }];
  it.each([
    { name: 'everything delivered in order', s: [seg(9, [10, 11, 14, 20])], bad: 0, checked: 4 },
    { name: 'resumed after a disconnect at the last resourceVersion', s: [seg(9, [10, 11]), seg(11, [14, 20])], bad: 0, checked: 4 },
    { name: 'a change missed between events', s: [seg(9, [10, 14, 20])], bad: 1, checked: 4 },
    { name: 'a change missed across a resume', s: [seg(9, [10]), seg(11, [14])], bad: 1, checked: 3 },
    { name: 'out of order', s: [seg(9, [10, 14, 11, 20])], bad: 1, checked: 4 },
    { name: 'an event at or before the start', s: [seg(11, [11, 14])], bad: 1, checked: 1 },
    { name: '410 then a relist: the new segment starts later', s: [seg(9, [10], true), seg(14, [20])], bad: 0, checked: 2 },
    { name: 'changes after the last event are not counted without an end', s: [seg(9, [10])], bad: 0, checked: 1 },
    { name: 'a watch that silently stopped delivering (the run watched until 20)', s: [seg(9, [10])], until: 20, bad: 3, checked: 4 },
    { name: 'a resumed watch that stopped delivering after the resume', s: [seg(9, [10, 11]), seg(11, [])], until: 20, bad: 2, checked: 4 },
    { name: 'a watch that delivered everything up to the end', s: [seg(9, [10, 11]), seg(11, [14, 20])], until: 20, bad: 0, checked: 4 },
    { name: 'after a 410 only the relisted chain must reach the end', s: [seg(9, [10], true), seg(14, [20])], until: 20, bad: 0, checked: 2 },
  ])('$name', ({ s, bad, checked, until }: { s: WatchSegment[]; bad: number; checked: number; until?: number }) => {
    const v = gapFreeWatches(s, [...committed, ...otherKind], until === undefined ? undefined : new Map([['w', BigInt(until)]]));
    expect(v.violations).toHaveLength(bad);
    expect(v.checked).toBe(checked);
  });
});

describe('noOfferBeforeWipe', () => {
  it.each([
    { name: 'an empty device offered', found: undefined, deleted: ['u1'], boundAt: {}, bad: 0 },
    { name: 'data of a deleted claim bound before the offer still there', found: 'u1', deleted: ['u1'], boundAt: { u1: 50n }, bad: 1 },
    { name: 'data of a deleted claim never seen bound', found: 'u1', deleted: ['u1'], boundAt: {}, bad: 1 },
    { name: 'data of the new claim (written after the offer)', found: 'u2', deleted: ['u1'], boundAt: { u2: 150n }, bad: 0 },
    { name: 'the device read late: a newer claim, bound after the offer, already deleted', found: 'u2', deleted: ['u1', 'u2'], boundAt: { u1: 50n, u2: 150n }, bad: 0 },
  ])('$name', ({ found, deleted, boundAt, bad }) => {
    const offer = { device: '/dev/loop9', pv: 'local-pv-1', rv: 100n, foundClaimUid: found };
    expect(noOfferBeforeWipe([offer], new Set(deleted), new Map(Object.entries(boundAt))).violations).toHaveLength(bad);
  });
});

describe('noOverlappingWipes', () => {
  it('counts wipes and reports every overlap line', () => {
    const log = '1.0 start loop1 10\n3.0 end loop1 10\n4.0 start loop2 11\n';
    expect(noOverlappingWipes(log, '')).toEqual({ checked: 2, violations: [] });
    expect(noOverlappingWipes(log, '5.0 loop1 wiped by 12 while 10 still wipes it\n').violations).toHaveLength(1);
  });
});

describe('convergedInTime', () => {
  it.each([
    { ms: 12_000, bad: 0 },
    { ms: 60_000, bad: 0 },
    { ms: 61_000, bad: 1 },
    { ms: undefined, bad: 1 },
  ])('$ms ms', ({ ms, bad }) => {
    expect(convergedInTime(ms, 60_000, 'pods').violations).toHaveLength(bad);
  });
});

describe('writesResumedInTime', () => {
  it.each([
    { name: 'both faults within the limit', stalls: [['kill', 2_000], ['failover', 14_900]] as [string, number | undefined][], bad: 0 },
    { name: 'the failover took too long', stalls: [['kill', 2_000], ['failover', 15_100]] as [string, number | undefined][], bad: 1 },
    { name: 'no write after the failover at all', stalls: [['failover', undefined]] as [string, number | undefined][], bad: 1 },
    { name: 'no Postgres fault', stalls: [] as [string, number | undefined][], bad: 0 },
  ])('$name', ({ stalls, bad }) => {
    const v = writesResumedInTime(stalls, 15_000);
    expect(v.violations).toHaveLength(bad);
    expect(v.checked).toBe(stalls.length);
  });
});

describe('restoredFromLastBackup', () => {
  const A = 'a'.repeat(64);
  const B = 'b'.repeat(64);
  const lost = (backups: LostClaim['backups']): LostClaim[] => [{ claim: 'hp-0', lostNode: 'n1', backups }];
  const twoBackups = [
    { name: 'hp-0-b2', sha256: B, completedAt: 20 },
    { name: 'hp-0-b1', sha256: A, completedAt: 10 },
  ];
  const ok: RestoreOutcome = { claim: 'hp-0', restoredClaim: 'hp-0-r', backupName: 'hp-0-b2', node: 'n2', sha256: B };
  it.each([
    { name: 'restored from the last backup on another node with its data', backups: twoBackups, restores: [ok], bad: 0 },
    { name: 'restored from an older backup (its data matches that one)', backups: twoBackups, restores: [{ ...ok, backupName: 'hp-0-b1', sha256: A }], bad: 1 },
    { name: 'other data than the backup holds', backups: twoBackups, restores: [{ ...ok, sha256: A }], bad: 1 },
    { name: 'bound on the lost node', backups: twoBackups, restores: [{ ...ok, node: 'n1' }], bad: 1 },
    { name: 'never bound', backups: twoBackups, restores: [{ ...ok, node: undefined, sha256: undefined }], bad: 1 },
    { name: 'bound, data not read', backups: twoBackups, restores: [{ ...ok, sha256: undefined }], bad: 1 },
    { name: 'a problem reported (not bound within the deadline)', backups: twoBackups, restores: [{ ...ok, node: undefined, sha256: undefined, problem: 'not Bound within 120 s' }], bad: 1 },
    { name: 'no restore of a lost claim', backups: twoBackups, restores: [], bad: 1 },
    { name: 'no Completed backup before the loss', backups: [], restores: [], bad: 1 },
    { name: 'a restore of another claim does not count', backups: twoBackups, restores: [{ ...ok, claim: 'hp-1' }], bad: 1 },
  ])('$name', ({ backups, restores, bad }) => {
    const v = restoredFromLastBackup(lost(backups), restores);
    expect(v.violations).toHaveLength(bad);
    expect(v.checked).toBe(1);
  });
  it('checks nothing when no node was lost', () => {
    expect(restoredFromLastBackup([], [ok])).toEqual({ checked: 0, violations: [] });
  });
});
