import { describe, expect, it } from 'vitest';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import {
  explain,
  nearestCandidates,
  parseExplanation,
  sameExplanation,
  serializeExplanation,
  summaryOf,
  volumeModeMismatchMessage,
  type Situation,
} from './binding-explanation';
import type { Built } from './matching-cases';

const now = new Date('2026-11-21T10:00:00.123Z');

function pv(name: string, size: string, mod?: (o: Built<PersistentVolume>) => void): PersistentVolume {
  const o: Built<PersistentVolume> = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, uid: `uid-${name}` },
    spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem', storageClassName: 'fast' },
    status: { phase: 'Available' },
  };
  mod?.(o);
  return o;
}

const claim: PersistentVolumeClaim = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'team-a', uid: 'uid-data' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } }, storageClassName: 'fast', volumeMode: 'Filesystem' },
  status: { phase: 'Pending' },
};

describe('summaries say what the claim waits for', () => {
  const cases: [string, Situation, string][] = [
    ['waiting for provisioner X', { kind: 'waitingForProvisioner', className: 'fast', provisioner: 'example.com/nfs' }, 'waiting for provisioner "example.com/nfs" (StorageClass "fast")'],
    ['class Y does not exist', { kind: 'classNotFound', className: 'gold' }, 'its StorageClass "gold" does not exist'],
    ['no default class', { kind: 'noDefaultClass' }, 'the claim names none and there is no default StorageClass'],
    ['no class asked for', { kind: 'noMatch' }, 'it asks for no storage class, so none will be provisioned'],
    ['a class that cannot provision', { kind: 'cannotProvision', className: 'local', provisioner: 'kubernetes.io/no-provisioner' }, 'an administrator must create a matching volume'],
    ['waiting for the first consumer', { kind: 'waitForFirstConsumer', className: 'local' }, 'binds on first use (WaitForFirstConsumer)'],
    ['a requested volume that does not exist', { kind: 'volumeNotFound', volumeName: 'pv9' }, 'asks for volume "pv9" (spec.volumeName), which does not exist'],
    ['a requested volume bound elsewhere', { kind: 'volumeBoundElsewhere', volumeName: 'pv9', claim: 'b/other' }, 'which is bound to another claim (b/other)'],
    ['a requested volume that does not fit', { kind: 'volumeMismatch', volumeName: 'pv9', problems: ['requested PV is too small'] }, 'which cannot serve it: requested PV is too small.'],
  ];
  for (const [name, situation, text] of cases) {
    it(name, () => expect(summaryOf(situation)).toContain(text));
  }
});

describe('nearest candidates name the exact failed constraint', () => {
  it('too small', () => {
    const c = nearestCandidates(claim, [pv('small', '5Gi')]);
    expect(c).toEqual([{ name: 'small', reasons: ['capacity 5Gi is less than the requested 10Gi'] }]);
  });
  it('wrong access modes', () => {
    const c = nearestCandidates(claim, [pv('rox', '10Gi', (o) => (o.spec.accessModes = ['ReadOnlyMany']))]);
    expect(c[0].reasons).toEqual(['access modes ROX do not include the requested RWO']);
  });
  it('wrong volume mode', () => {
    const c = nearestCandidates(claim, [pv('blk', '10Gi', (o) => (o.spec.volumeMode = 'Block'))]);
    expect(c[0].reasons).toEqual(['volume mode Block differs from the requested Filesystem']);
  });
  it('another class', () => {
    const c = nearestCandidates(claim, [pv('slow', '10Gi', (o) => (o.spec.storageClassName = 'slow'))]);
    expect(c[0].reasons).toEqual(['has storage class "slow"; the claim asks for "fast"']);
  });
  it('selector', () => {
    const sel = { ...claim, spec: { ...claim.spec, selector: { matchLabels: { disk: 'ssd' } } } };
    const c = nearestCandidates(sel, [pv('hdd', '10Gi', (o) => (o.metadata.labels = { disk: 'hdd' }))]);
    expect(c[0].reasons).toEqual(["labels {disk=hdd} do not match the claim's selector disk=ssd"]);
  });
  it('claimRef held by another claim', () => {
    const c = nearestCandidates(claim, [
      pv('taken', '10Gi', (o) => {
        o.spec.claimRef = { namespace: 'b', name: 'other', uid: 'u2' };
        o.status.phase = 'Bound';
      }),
    ]);
    expect(c[0].reasons).toEqual(['is bound to claim b/other']);
  });
  it('already bound volumes and Released ones are told apart', () => {
    const c = nearestCandidates(claim, [
      pv('rel', '10Gi', (o) => {
        o.spec.claimRef = { namespace: 'b', name: 'gone', uid: 'u3' };
        o.status.phase = 'Released';
      }),
    ]);
    expect(c[0].reasons[0]).toContain('a Released volume is not reused automatically');
  });
  it('node affinity', () => {
    const pinned = pv('far', '10Gi', (o) => {
      o.spec.nodeAffinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n2'] }] }] } };
    });
    const c = nearestCandidates(claim, [pinned], { node: { name: 'n1', labels: { 'kubernetes.io/hostname': 'n1' } } });
    expect(c[0].reasons).toEqual(['node affinity does not allow node n1']);
  });
  it('fewest failures first, then the closest size, at most five', () => {
    const vols = [
      pv('two-problems', '1Gi', (o) => (o.spec.storageClassName = 'slow')),
      pv('far-small', '1Gi'),
      pv('near-small', '9Gi'),
      pv('ok', '20Gi'),
      ...['a', 'b', 'c', 'd'].map((n) => pv(`x-${n}`, '1Mi')),
    ];
    const c = nearestCandidates(claim, vols);
    expect(c.map((x) => x.name)).toEqual(['near-small', 'far-small', 'x-a', 'x-b', 'x-c']);
  });
  const big = { ...claim, spec: { ...claim.spec, resources: { requests: { storage: '500Gi' } } } };
  const rwx = (o: Built<PersistentVolume>) => (o.spec.accessModes = ['ReadWriteMany']);
  it.each([
    {
      name: 'a 100Gi RWX volume is listed for a 500Gi RWO claim among five 1Gi RWO ones',
      vols: [...['a', 'b', 'c', 'd', 'e'].map((n) => pv(`rwo-${n}`, '1Gi')), pv('rwx-100', '100Gi', rwx)],
      want: ['rwo-a', 'rwo-b', 'rwo-c', 'rwo-d', 'rwx-100'],
    },
    {
      name: 'the closest of another shape is not added twice when it ranks anyway',
      vols: [pv('rwo-a', '1Gi'), pv('rwx-100', '100Gi', rwx)],
      want: ['rwo-a', 'rwx-100'],
    },
    {
      name: 'the closest of the same shape needs no swap',
      vols: [...['a', 'b', 'c', 'd', 'e'].map((n) => pv(`rwo-${n}`, '1Gi')), pv('rwo-400', '400Gi'), pv('rwx-100', '100Gi', rwx)],
      want: ['rwo-400', 'rwo-a', 'rwo-b', 'rwo-c', 'rwo-d'],
    },
  ])('$name', ({ vols, want }) => {
    expect(nearestCandidates(big, vols).map((x) => x.name)).toEqual(want);
  });
});

describe('the stored explanation', () => {
  it('is compact JSON with evaluatedAt, summary and candidates', () => {
    const { reason, explanation } = explain(claim, { kind: 'classNotFound', className: 'gold' }, [pv('small', '1Gi')], now);
    expect(reason).toBe('StorageClassNotFound');
    expect(JSON.parse(serializeExplanation(explanation))).toEqual({
      evaluatedAt: '2026-11-21T10:00:00Z',
      summary: 'No available volume matches this claim, and its StorageClass "gold" does not exist.',
      candidates: [{ name: 'small', reasons: ['capacity 1Gi is less than the requested 10Gi'] }],
    });
  });
  it('says when no volume comes near', () => {
    expect(explain(claim, { kind: 'noDefaultClass' }, [], now).explanation.summary).toMatch(/No volume comes near it\.$/);
  });
  it('is the same when only the evaluation time differs (no write storm)', () => {
    const a = explain(claim, { kind: 'noMatch' }, [pv('small', '1Gi')], now).explanation;
    const b = explain(claim, { kind: 'noMatch' }, [pv('small', '1Gi')], new Date(now.getTime() + 60_000)).explanation;
    expect(sameExplanation(a, b)).toBe(true);
    expect(sameExplanation(a, { ...b, summary: 'x' })).toBe(false);
  });
  it('is the same when another volume, equally near, stands in a candidate\'s place; not when a reason differs', () => {
    const a = explain(claim, { kind: 'noMatch' }, [pv('small-a', '1Gi'), pv('other', '2Gi')], now).explanation;
    const b = explain(claim, { kind: 'noMatch' }, [pv('small-b', '1Gi'), pv('other', '2Gi')], now).explanation;
    expect(a.candidates.map((c) => c.name)).not.toEqual(b.candidates.map((c) => c.name));
    expect(sameExplanation(a, b)).toBe(true);
    const smaller = explain(claim, { kind: 'noMatch' }, [pv('small-a', '512Mi'), pv('other', '2Gi')], now).explanation;
    expect(sameExplanation(a, smaller)).toBe(false);
    const fewer = explain(claim, { kind: 'noMatch' }, [pv('small-a', '1Gi')], now).explanation;
    expect(sameExplanation(a, fewer)).toBe(false);
  });
  it('parses back, and ignores what is not an explanation', () => {
    const e = explain(claim, { kind: 'noMatch' }, [], now).explanation;
    expect(parseExplanation(serializeExplanation(e))).toEqual(e);
    expect(parseExplanation('not json')).toBeUndefined();
    expect(parseExplanation('{"a":1}')).toBeUndefined();
  });
});

describe('a claim whose only fitting volumes have the other volume mode', () => {
  const block = (o: Built<PersistentVolume>) => {
    o.spec.volumeMode = 'Block';
  };
  const blockClaim: PersistentVolumeClaim = { ...claim, spec: { ...claim.spec, volumeMode: 'Block' } };
  const cases: { name: string; claim: PersistentVolumeClaim; volumes: PersistentVolume[]; delayBinding?: boolean; want: string | undefined }[] = [
    {
      name: 'a Filesystem claim and only Block volumes that fit: said, with the change to make',
      claim,
      volumes: [pv('disk-b', '20Gi', block), pv('disk-a', '20Gi', block)],
      want: 'no persistent volumes available for this claim with volumeMode Filesystem: the volumes of StorageClass "fast" that would serve it are Block (disk-a, disk-b); a claim for them sets spec.volumeMode: Block',
    },
    {
      name: 'the same on a WaitForFirstConsumer class before a consumer is known',
      claim,
      volumes: [pv('disk-a', '20Gi', block)],
      delayBinding: true,
      want: 'no persistent volumes available for this claim with volumeMode Filesystem: the volumes of StorageClass "fast" that would serve it are Block (disk-a); a claim for them sets spec.volumeMode: Block',
    },
    {
      name: 'a Block claim and only Filesystem volumes',
      claim: blockClaim,
      volumes: [pv('dir-a', '20Gi')],
      want: 'no persistent volumes available for this claim with volumeMode Block: the volumes of StorageClass "fast" that would serve it are Filesystem (dir-a); a claim for them sets spec.volumeMode: Filesystem',
    },
    {
      name: 'many: three named and a count',
      claim,
      volumes: ['d', 'c', 'b', 'a', 'e'].map((n) => pv(`disk-${n}`, '20Gi', block)),
      want: 'no persistent volumes available for this claim with volumeMode Filesystem: the volumes of StorageClass "fast" that would serve it are Block (disk-a, disk-b, disk-c and 2 more); a claim for them sets spec.volumeMode: Block',
    },
    { name: 'a volume of the claim\'s own mode would do: nothing to say', claim, volumes: [pv('disk-a', '20Gi', block), pv('dir-a', '20Gi')], want: undefined },
    { name: 'the Block volume is too small as well: not only the mode', claim, volumes: [pv('disk-a', '1Gi', block)], want: undefined },
    { name: 'no volumes at all', claim, volumes: [], want: undefined },
  ];
  it.each(cases)('$name', ({ claim: c, volumes, delayBinding, want }) => {
    expect(volumeModeMismatchMessage(c, volumes, { delayBinding })).toBe(want);
  });
});
