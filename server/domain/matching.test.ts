// Table tests of the matching algorithm (seed 004's eight steps), with the situations of
// upstream's index_test.go and binder_test.go. Case names say the rule they show; the
// table itself is in matching-cases.ts (the store path is checked against it too).
import { describe, expect, it } from 'vitest';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import { accessModeGroups, checkRequestedVolume, evaluateVolume, findBestMatch } from './matching';
import { boundTo, both, cls, matchCases as cases, pv, pvc, RWO, RWOP, RWX } from './matching-cases';

describe('findBestMatch', () => {
  it('has at least 40 cases', () => expect(cases.length).toBeGreaterThanOrEqual(40));
  for (const c of cases) {
    it(c.name, () => {
      const got = findBestMatch(c.claim, c.volumes, c.opts);
      expect(got?.volume.metadata.name).toBe(c.expected);
      if (c.prebound !== undefined && got) expect(got.prebound).toBe(c.prebound);
    });
  }
});

describe('accessModeGroups', () => {
  it('RWO: the exact set, then two-mode sets by bits, then three modes', () => {
    expect(accessModeGroups([RWO])).toEqual([1, 3, 5, 7]);
  });
  it('RWX: supersets of RWX closest first', () => {
    expect(accessModeGroups([RWX])).toEqual([4, 5, 6, 7]);
  });
  it('RWOP stands alone', () => {
    expect(accessModeGroups([RWOP])).toEqual([8]);
  });
  it('only the sets present are returned (upstream allPossibleMatchingAccessModes)', () => {
    expect(accessModeGroups([RWO], [3, 7, 3])).toEqual([3, 7]);
  });
});

describe('evaluateVolume reports every failed rule', () => {
  it('names size, modes, class and selector at once', () => {
    const claim = pvc('10Gi', [RWX], both(cls('fast'), (c) => (c.spec.selector = { matchLabels: { a: 'b' } })));
    const v = evaluateVolume(claim, pv('small', '1Gi', [RWO], cls('slow')));
    expect(v.failures.map((f) => f.rule)).toEqual(['accessModes', 'capacity', 'selector', 'storageClass']);
    expect(v.failures[1].message).toBe('capacity 1Gi is less than the requested 10Gi');
    expect(v.failures[3].message).toBe('has storage class "slow"; the claim asks for "fast"');
  });
  it('explains a Released volume', () => {
    const v = evaluateVolume(pvc('1Gi'), pv('rel', '1Gi', [RWO], both(boundTo('gone', 'u1'), (o) => (o.status.phase = 'Released'))));
    expect(v.failures).toEqual([{ rule: 'claimRef', message: 'was released by claim myns/gone; a Released volume is not reused automatically' }]);
  });
});

describe('checkRequestedVolume (a claim naming its volume: upstream checkVolumeSatisfyClaim)', () => {
  const cases: [string, PersistentVolumeClaim, PersistentVolume, string[]][] = [
    ['a fitting volume has no problems', pvc('1Gi'), pv('v', '1Gi'), []],
    ['a volume too small', pvc('2Gi'), pv('v', '1Gi'), ['requested PV is too small']],
    ['a volume of another class', pvc('1Gi', [RWO], cls('gold')), pv('v', '1Gi'), ['storageClassName does not match']],
    ['another volume mode', pvc('1Gi', [RWO], (c) => (c.spec.volumeMode = 'Block')), pv('v', '1Gi'), ['incompatible volumeMode']],
    ['missing access modes', pvc('1Gi', [RWX]), pv('v', '1Gi'), ['incompatible accessMode']],
    ['a volume being deleted', pvc('1Gi'), pv('v', '1Gi', [RWO], (o) => (o.metadata.deletionTimestamp = '2026-01-01T00:00:00Z')), ['the volume is marked for deletion "v"']],
    ['the selector and the phase are not checked', pvc('1Gi', [RWO], (c) => (c.spec.selector = { matchLabels: { a: 'b' } })), pv('v', '1Gi', [RWO], (o) => (o.status.phase = 'Pending')), []],
  ];
  for (const [name, claim, volume, want] of cases) it(name, () => expect(checkRequestedVolume(claim, volume)).toEqual(want));
});
