// What a plugin's intent records promise per node and pool, summed in Postgres, agrees
// with the domain's rule for one record (promisedBytes): the larger of the wanted and the
// applied limit, nothing once the subvolume is removed, nothing for a read-only snapshot.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { promisedBytes, type PoolAssetDetails } from '../../server/domain/btrfs-pool';
import { pooledPromises, withCurrentPromises } from '../../server/domain/pool-capacity';
import { annPoolFree, annPoolPath, annPoolTotal } from '../../server/domain/well-known/annotations';
import { labelPoolNode } from '../../server/domain/well-known/labels';
import type { CSIStorageCapacity } from '../../server/resources/csi-storage-capacity/schema';
import { AssetStore } from '../../server/store/provisioned-assets';
import { openTestStore, type TestStore } from '../db';

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
});
afterAll(async () => {
  await t?.close();
});

const records: { pv: string; node: string; details: PoolAssetDetails; then?: 'created' | 'deleting' | 'removed' }[] = [
  { pv: 'pvc-a', node: 'n1', details: { pool: '/srv/p', limitBytes: '1073741824' } },
  // Being expanded: the larger limit counts.
  { pv: 'pvc-b', node: 'n1', details: { pool: '/srv/p', limitBytes: '3000000000', appliedBytes: '2000000000' }, then: 'created' },
  // Being shrunk back is not a thing, but an applied limit above the wanted one still counts.
  { pv: 'pvc-c', node: 'n1', details: { pool: '/srv/p', limitBytes: '100', appliedBytes: '5000' } },
  // Removed: nothing.
  { pv: 'pvc-d', node: 'n1', details: { pool: '/srv/p', limitBytes: '7777777' }, then: 'removed' },
  // Being deleted but not removed yet: still counts.
  { pv: 'pvc-e', node: 'n1', details: { pool: '/srv/p', limitBytes: '12345' }, then: 'deleting' },
  // A read-only snapshot: no limit.
  { pv: 'snap-f', node: 'n1', details: { pool: '/srv/p', readOnly: true } },
  { pv: 'pvc-g', node: 'n2', details: { pool: '/srv/p', limitBytes: '99999999999999999999' } },
  { pv: 'pvc-h', node: 'n1', details: { pool: '/srv/other', limitBytes: '42' } },
];

describe('AssetStore.promisedByPool', () => {
  test('sums each node and pool as promisedBytes does, record by record', async () => {
    const assets = new AssetStore(t.store);
    for (const r of records) {
      const { record } = await assets.begin({ plugin: 'stowage.io/btrfs', pvName: r.pv, node: r.node, details: { ...r.details } });
      if (r.then === 'created') await assets.markCreated(record);
      if (r.then === 'deleting' || r.then === 'removed') await assets.markDeleting(record);
      if (r.then === 'removed') await assets.markRemoved(record);
    }
    // A record of another plugin is not counted.
    await assets.begin({ plugin: 'example.com/other', pvName: 'pvc-x', node: 'n1', details: { pool: '/srv/p', limitBytes: '1' } });

    const want = new Map<string, bigint>();
    for (const r of records) {
      const k = `${r.node} ${r.details.pool}`;
      want.set(k, (want.get(k) ?? 0n) + promisedBytes({ ...r.details, ...(r.then === 'removed' ? { removed: true } : {}) }));
    }
    const got = await assets.promisedByPool('stowage.io/btrfs');
    expect(new Map(got.map((g) => [`${g.node} ${g.pool}`, BigInt(g.bytes)]))).toEqual(want);
    expect(want.get('n1 /srv/p')).toBe(1073741824n + 3000000000n + 5000n + 12345n);

    // As promises, the sums leave the same room as the records one by one would.
    const capacity: CSIStorageCapacity = {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIStorageCapacity',
      metadata: {
        name: 'c1',
        namespace: 'kube-system',
        labels: { [labelPoolNode]: 'n1' },
        annotations: { [annPoolPath]: '/srv/p', [annPoolTotal]: '10000000000', [annPoolFree]: '9000000000' },
      },
      storageClassName: 'pooled',
    };
    const oneByOne = records.map((r) => ({ node: r.node, details: { ...r.details, ...(r.then === 'removed' ? { removed: true } : {}) } }));
    expect(withCurrentPromises([capacity], pooledPromises(got))).toEqual(withCurrentPromises([capacity], oneByOne));
  });
});
