import { describe, expect, test } from 'vitest';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import { admitClaim, claimUsage, isClaimResource, quotaUsed, roomLeft, storageRoomText } from './quota';
import { formatQuantity, quantityFromJSON } from './quantity';

const claim = (storage: string | undefined, cls?: string, extra: { allocated?: string; beta?: string } = {}): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'ns', ...(extra.beta ? { annotations: { 'volume.beta.kubernetes.io/storage-class': extra.beta } } : {}) },
  spec: { accessModes: ['ReadWriteOnce'], resources: storage === undefined ? {} : { requests: { storage } }, ...(cls !== undefined ? { storageClassName: cls } : {}) },
  ...(extra.allocated ? { status: { allocatedResources: { storage: extra.allocated } } } : {}),
});

const gold = (r: string) => `gold.storageclass.storage.k8s.io/${r}`;

describe('claimUsage (upstream pvcEvaluator.Usage)', () => {
  test.each<[string, PersistentVolumeClaim, Record<string, string>]>([
    ['a claim without class counts itself and its request', claim('10Gi'), { 'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'requests.storage': '10Gi' }],
    [
      'a claim of class gold also counts against the class',
      claim('10Gi', 'gold'),
      { 'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'requests.storage': '10Gi', [gold('persistentvolumeclaims')]: '1', [gold('requests.storage')]: '10Gi' },
    ],
    [
      'the beta annotation names the class over the field',
      claim('1Gi', 'silver', { beta: 'gold' }),
      { 'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'requests.storage': '1Gi', [gold('persistentvolumeclaims')]: '1', [gold('requests.storage')]: '1Gi' },
    ],
    ['an empty class name counts against no class', claim('1Gi', ''), { 'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'requests.storage': '1Gi' }],
    ['a larger allocation counts instead of the request', claim('10Gi', undefined, { allocated: '20Gi' }), { 'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'requests.storage': '20Gi' }],
    ['a smaller allocation does not count', claim('10Gi', undefined, { allocated: '5Gi' }), { 'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'requests.storage': '10Gi' }],
    ['a fractional request is rounded up to whole bytes', claim('1500m'), { 'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1', 'requests.storage': '2' }],
    ['a claim with no request counts only itself', claim(undefined), { 'count/persistentvolumeclaims': '1', persistentvolumeclaims: '1' }],
  ])('%s', (_name, c, want) => {
    expect(Object.fromEntries([...claimUsage(c)].map(([k, v]) => [k, formatQuantity(v)]))).toEqual(want);
  });
});

describe('isClaimResource (upstream MatchingResources)', () => {
  test.each<[string, boolean]>([
    ['requests.storage', true],
    ['persistentvolumeclaims', true],
    ['count/persistentvolumeclaims', true],
    [gold('requests.storage'), true],
    [gold('persistentvolumeclaims'), true],
    ['pods', false],
    ['requests.cpu', false],
    ['storage', false],
    ['gold.storageclass.storage.k8s.io/pods', false],
    ['requests.ephemeral-storage', false],
  ])('%s: %s', (name, want) => {
    expect(isClaimResource(name)).toBe(want);
  });
});

interface Row {
  name: string;
  hard: Record<string, string>;
  used: Record<string, string>;
  prev?: PersistentVolumeClaim;
  next: PersistentVolumeClaim;
  scoped?: boolean;
  message?: string;
  newUsed?: Record<string, string>;
}

const rows: Row[] = [
  {
    name: 'create within requests.storage is admitted and charged',
    hard: { 'requests.storage': '12Gi' },
    used: { 'requests.storage': '5Gi' },
    next: claim('5Gi'),
    newUsed: { 'requests.storage': '10Gi' },
  },
  {
    name: 'create exactly filling requests.storage is admitted',
    hard: { 'requests.storage': '10Gi' },
    used: { 'requests.storage': '5Gi' },
    next: claim('5Gi'),
    newUsed: { 'requests.storage': '10Gi' },
  },
  {
    name: 'create over requests.storage is refused with upstream message',
    hard: { 'requests.storage': '12Gi' },
    used: { 'requests.storage': '10Gi' },
    next: claim('5Gi'),
    message: 'exceeded quota: q, requested: requests.storage=5Gi, used: requests.storage=10Gi, limited: requests.storage=12Gi',
  },
  {
    name: 'create over the claim count is refused',
    hard: { persistentvolumeclaims: '1', 'requests.storage': '100Gi' },
    used: { persistentvolumeclaims: '1', 'requests.storage': '1Gi' },
    next: claim('1Gi'),
    message: 'exceeded quota: q, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=1, limited: persistentvolumeclaims=1',
  },
  {
    name: 'a zero claim count refuses every claim even with no usage known',
    hard: { persistentvolumeclaims: '0' },
    used: {},
    next: claim('1Gi'),
    message: 'exceeded quota: q, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=0, limited: persistentvolumeclaims=0',
  },
  {
    name: 'count/persistentvolumeclaims is enforced like persistentvolumeclaims',
    hard: { 'count/persistentvolumeclaims': '2' },
    used: { 'count/persistentvolumeclaims': '2' },
    next: claim('1Gi'),
    message: 'exceeded quota: q, requested: count/persistentvolumeclaims=1, used: count/persistentvolumeclaims=2, limited: count/persistentvolumeclaims=2',
  },
  {
    name: 'several exceeded resources are listed in sorted order',
    hard: { 'requests.storage': '10Gi', persistentvolumeclaims: '1', pods: '1' },
    used: { 'requests.storage': '10Gi', persistentvolumeclaims: '1' },
    next: claim('1Gi'),
    message: 'exceeded quota: q, requested: persistentvolumeclaims=1,requests.storage=1Gi, used: persistentvolumeclaims=1,requests.storage=10Gi, limited: persistentvolumeclaims=1,requests.storage=10Gi',
  },
  {
    name: 'class limit refuses a claim of that class',
    hard: { [gold('requests.storage')]: '10Gi' },
    used: { [gold('requests.storage')]: '8Gi' },
    next: claim('3Gi', 'gold'),
    message: `exceeded quota: q, requested: ${gold('requests.storage')}=3Gi, used: ${gold('requests.storage')}=8Gi, limited: ${gold('requests.storage')}=10Gi`,
  },
  {
    name: 'class claim count refuses a claim of that class',
    hard: { [gold('persistentvolumeclaims')]: '2' },
    used: { [gold('persistentvolumeclaims')]: '2' },
    next: claim('1Gi', 'gold'),
    message: `exceeded quota: q, requested: ${gold('persistentvolumeclaims')}=1, used: ${gold('persistentvolumeclaims')}=2, limited: ${gold('persistentvolumeclaims')}=2`,
  },
  {
    name: 'class limit ignores a claim of another class',
    hard: { [gold('requests.storage')]: '10Gi' },
    used: { [gold('requests.storage')]: '10Gi' },
    next: claim('3Gi', 'silver'),
    newUsed: { [gold('requests.storage')]: '10Gi' },
  },
  {
    name: 'class limit ignores a claim without class',
    hard: { [gold('requests.storage')]: '1Gi' },
    used: {},
    next: claim('3Gi'),
    newUsed: { [gold('requests.storage')]: '0' },
  },
  {
    name: 'unrelated resources are kept out of enforcement',
    hard: { pods: '0', 'requests.cpu': '0', 'requests.storage': '1Gi' },
    used: { pods: '5' },
    next: claim('1Gi'),
    newUsed: { 'requests.storage': '1Gi' },
  },
  {
    name: 'resize within the quota is charged the difference',
    hard: { 'requests.storage': '20Gi', persistentvolumeclaims: '1' },
    used: { 'requests.storage': '10Gi', persistentvolumeclaims: '1' },
    prev: claim('10Gi'),
    next: claim('15Gi'),
    newUsed: { persistentvolumeclaims: '1', 'requests.storage': '15Gi' },
  },
  {
    name: 'resize over the quota is refused with only the growth requested',
    hard: { 'requests.storage': '20Gi', persistentvolumeclaims: '1' },
    used: { 'requests.storage': '10Gi', persistentvolumeclaims: '1' },
    prev: claim('10Gi'),
    next: claim('25Gi'),
    message: 'exceeded quota: q, requested: requests.storage=15Gi, used: requests.storage=10Gi, limited: requests.storage=20Gi',
  },
  {
    name: 'shrinking is admitted in a namespace over its quota',
    hard: { 'requests.storage': '5Gi' },
    used: { 'requests.storage': '10Gi' },
    prev: claim('10Gi'),
    next: claim('8Gi'),
    newUsed: { 'requests.storage': '10Gi' },
  },
  {
    name: 'an update that changes no usage is admitted in a namespace over its quota',
    hard: { 'requests.storage': '5Gi', persistentvolumeclaims: '0' },
    used: { 'requests.storage': '10Gi', persistentvolumeclaims: '3' },
    prev: claim('10Gi'),
    next: claim('10Gi'),
    newUsed: { persistentvolumeclaims: '3', 'requests.storage': '10Gi' },
  },
  {
    name: 'decimal and binary quantities compare by value',
    hard: { 'requests.storage': '10G' },
    used: { 'requests.storage': '0' },
    next: claim('10Gi'),
    message: 'exceeded quota: q, requested: requests.storage=10Gi, used: requests.storage=0, limited: requests.storage=10G',
  },
  {
    name: 'a scoped quota matches no claim',
    hard: { 'requests.storage': '0' },
    used: {},
    next: claim('1Gi'),
    scoped: true,
    newUsed: { 'requests.storage': '0' },
  },
];

describe('admitClaim (upstream CheckRequest)', () => {
  test.each(rows)('$name', (r) => {
    const d = admitClaim({ name: 'q', hard: r.hard, scoped: r.scoped }, r.used, r.prev, r.next);
    if (r.message) expect(d).toEqual({ allowed: false, message: r.message });
    else expect(d).toMatchObject({ allowed: true, used: r.newUsed });
  });
});

describe('quotaUsed', () => {
  const claims = [claim('1Gi', 'gold'), claim('2Gi'), claim('500Mi', 'gold')];
  test.each<[string, Record<string, string>, boolean, Record<string, string>]>([
    ['sums every claim resource the quota names', { 'requests.storage': '10Gi', persistentvolumeclaims: '10' }, false, { persistentvolumeclaims: '3', 'requests.storage': '3572Mi' }],
    ['sums a class resource over that class only', { [gold('requests.storage')]: '10Gi' }, false, { [gold('requests.storage')]: '1524Mi' }],
    ['leaves out names no claim uses', { pods: '3', 'requests.cpu': '1' }, false, {}],
    ['counts nothing for a scoped quota', { 'requests.storage': '1Gi' }, true, { 'requests.storage': '0' }],
  ])('%s', (_n, hard, scoped, want) => {
    expect(quotaUsed({ name: 'q', hard, scoped }, claims)).toEqual(want);
  });
});

describe('roomLeft', () => {
  test.each<[string, Record<string, string>, Record<string, string>, string | undefined]>([
    ['half used leaves half', { 'requests.storage': '50Gi' }, { 'requests.storage': '38Gi' }, '12Gi'],
    ['nothing used leaves all', { 'requests.storage': '50Gi' }, {}, '50Gi'],
    ['overused leaves zero', { 'requests.storage': '5Gi' }, { 'requests.storage': '10Gi' }, '0'],
    ['an absent limit leaves no answer', {}, {}, undefined],
  ])('%s', (_n, hard, used, want) => {
    const r = roomLeft(hard, used, 'requests.storage');
    expect(r ? formatQuantity(r.left) : undefined).toBe(want);
  });
});

describe('storageRoomText', () => {
  const q = (s: string) => quantityFromJSON(s)!;
  test.each<[string, string, string]>([
    ['12Gi', '50Gi', '12 of 50 Gi'],
    ['0', '50Gi', '0 of 50 Gi'],
    ['1536Mi', '2Gi', '1.5 of 2 Gi'],
    ['512Mi', '1Ti', '0 of 1 Ti'],
    ['100', '1000', '100 of 1000 bytes'],
    ['10G', '10G', '9.3 of 9.3 Gi'],
  ])('%s left of %s reads "%s"', (left, hard, want) => {
    expect(storageRoomText(q(left), q(hard))).toBe(want);
  });
});
