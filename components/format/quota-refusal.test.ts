import { describe, expect, it } from 'vitest';
import { humanMessage, parseQuotaRefusal, quotaRefusalText } from './quota-refusal';

const GOLD = 'gold.storageclass.storage.k8s.io/requests.storage';

describe('a quota refusal in human units', () => {
  it.each([
    {
      name: 'namespace storage',
      message: 'exceeded quota: room, requested: requests.storage=190976Mi, used: requests.storage=38Gi, limited: requests.storage=50Gi',
      want: 'Quota room: this claim asks for 187 GiB of storage; 12 GiB of 50 GiB is left.',
    },
    {
      name: 'storage of a class, with the forbidden prefix',
      message: `persistentvolumeclaims "big" is forbidden: exceeded quota: gold-room, requested: ${GOLD}=20Gi, used: ${GOLD}=38Gi, limited: ${GOLD}=50Gi`,
      want: 'persistentvolumeclaims "big" is forbidden: Quota gold-room: this claim asks for 20 GiB of storage of class gold; 12 GiB of 50 GiB is left.',
    },
    {
      name: 'a claim count',
      message: 'exceeded quota: few, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=5, limited: persistentvolumeclaims=5',
      want: 'Quota few: this claim asks for 1 more claim; 0 of 5 is left.',
    },
    {
      name: 'two limits at once',
      message: 'exceeded quota: q, requested: persistentvolumeclaims=1,requests.storage=2Gi, used: persistentvolumeclaims=3,requests.storage=9Gi, limited: persistentvolumeclaims=3,requests.storage=10Gi',
      want: 'Quota q: this claim asks for 1 more claim; 0 of 3 is left; and this claim asks for 2 GiB of storage; 1 GiB of 10 GiB is left.',
    },
    {
      name: 'used already over the limit: nothing left, never negative',
      message: 'exceeded quota: q, requested: requests.storage=1Gi, used: requests.storage=12Gi, limited: requests.storage=10Gi',
      want: 'Quota q: this claim asks for 1 GiB of storage; 0 B of 10 GiB is left.',
    },
    {
      name: 'a snapshot count',
      message: 'volumesnapshots.snapshot.storage.k8s.io "s4" is forbidden: exceeded quota: snaps, requested: count/volumesnapshots.snapshot.storage.k8s.io=1, used: count/volumesnapshots.snapshot.storage.k8s.io=3, limited: count/volumesnapshots.snapshot.storage.k8s.io=3',
      want: 'volumesnapshots.snapshot.storage.k8s.io "s4" is forbidden: Quota snaps: this snapshot asks for 1 more snapshot; 0 of 3 is left.',
    },
    {
      name: 'snapshot bytes',
      message: 'volumesnapshots.snapshot.storage.k8s.io "second" is forbidden: exceeded quota: copies, requested: snapshots.stowage.io/storage=2Gi, used: snapshots.stowage.io/storage=2Gi, limited: snapshots.stowage.io/storage=3Gi',
      want: 'volumesnapshots.snapshot.storage.k8s.io "second" is forbidden: Quota copies: this snapshot asks for 2 GiB of snapshot storage; 1 GiB of 3 GiB is left.',
    },
    {
      name: 'another kind counted',
      message: 'configmaps "two" is forbidden: exceeded quota: maps, requested: configmaps=1, used: configmaps=1, limited: configmaps=1',
      want: 'configmaps "two" is forbidden: Quota maps: this object asks for 1 more configmaps; 0 of 1 is left.',
    },
    { name: 'another message stays as it is', message: 'claims "x" already exists', want: 'claims "x" already exists' },
    { name: 'a look-alike without limits stays as it is', message: 'exceeded quota: q, requested: , used: , limited: ', want: 'exceeded quota: q, requested: , used: , limited: ' },
  ])('$name', ({ message, want }) => expect(humanMessage(message)).toBe(want));

  it('keeps the exact quantities for a tooltip', () => {
    const r = parseQuotaRefusal('exceeded quota: room, requested: requests.storage=190976Mi, used: requests.storage=38Gi, limited: requests.storage=50Gi');
    expect(r?.limits).toEqual([{ resource: 'requests.storage', requested: '190976Mi', used: '38Gi', limited: '50Gi' }]);
    expect(quotaRefusalText(r!)).toMatch(/^Quota room:/);
  });

  it('reads nothing from a huge message', () => expect(parseQuotaRefusal(`exceeded quota: q, requested: a=1, used: a=1, limited: a=${'1'.repeat(5000)}`)).toBeUndefined());
});
