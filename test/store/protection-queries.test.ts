// The protection controllers' resync queries find the volumes and claims without their
// in-use protection finalizer, or being deleted, through partial indexes made for them.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { KubeObject } from '../../server/resources/types';
import { claimsToProtect, unprotectedCondition, volumesToProtect } from '../../server/store/protection-queries';
import { openTestStore, type TestStore } from '../db';
import { pvcProtectionFinalizer, pvProtectionFinalizer } from '../../server/domain/well-known/finalizers';

let t: TestStore;
beforeAll(async () => {
  t = await openTestStore();
  await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prot' } });
});
afterAll(async () => {
  await t?.close();
});

const pv = (name: string, finalizers: string[]): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name, finalizers },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/srv/${name}` }, storageClassName: '' },
});
const pvc = (name: string, finalizers: string[]): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'prot', finalizers },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '' },
});

describe('protection queries', () => {
  test('return what lacks the finalizer or is being deleted, and nothing else', async () => {
    await t.store.create(pv('pv-kept', [pvProtectionFinalizer]));
    await t.store.create(pv('pv-bare', []));
    await t.store.create(pv('pv-other', ['example.com/keep']));
    await t.store.create(pv('pv-going', [pvProtectionFinalizer]));
    await t.store.delete('PersistentVolume', undefined, 'pv-going');
    // A claim with the volume's finalizer is still unprotected, and the other way round.
    await t.store.create(pvc('c-kept', [pvcProtectionFinalizer]));
    await t.store.create(pvc('c-wrong', [pvProtectionFinalizer]));
    await t.store.create(pv('pv-wrong', [pvcProtectionFinalizer]));

    const volumes = (await volumesToProtect(t.store)).map((r) => r.name).sort();
    expect(volumes).toEqual(['pv-bare', 'pv-going', 'pv-other', 'pv-wrong']);
    const claims = (await claimsToProtect(t.store)).map((r) => `${r.namespace}/${r.name}`);
    expect(claims).toEqual(['prot/c-wrong']);

    // Fixed by a write, gone from the answer (the index follows the row).
    const bare = (await t.store.get('PersistentVolume', undefined, 'pv-bare'));
    bare.metadata.finalizers = [pvProtectionFinalizer];
    await t.store.update(bare);
    expect((await volumesToProtect(t.store)).map((r) => r.name)).not.toContain('pv-bare');
  });

  test.each([
    ['PersistentVolume', 'objects_pv_unprotected_idx'],
    ['PersistentVolumeClaim', 'objects_pvc_unprotected_idx'],
  ] as const)('the %s query can use its partial index (its condition is the index predicate)', async (kind, index) => {
    const c = new pg.Client({ connectionString: t.url });
    await c.connect();
    try {
      // With sequential scans priced out, only an index whose predicate the query implies can serve it.
      await c.query('SET enable_seqscan = off');
      await c.query('SET enable_bitmapscan = on');
      const plan = (await c.query(`EXPLAIN SELECT namespace, name FROM objects WHERE ${unprotectedCondition(kind)}`)).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      expect(plan).toContain(index);
    } finally {
      await c.end();
    }
  });
});
