// The binder matches claims with indexed queries, not in memory. This runs every case of
// the matching table (server/domain/matching-cases.ts) through the store path
// (findMatchInStore on real Postgres) and expects the same volume as the pure algorithm.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findMatchInStore } from '../../server/controllers/binder/bind';
import { transact } from '../../server/controllers/runtime/controller-tx';
import { accessModesToBits } from '../../server/domain/access-modes';
import { matchCases } from '../../server/domain/matching-cases';
import type { PersistentVolume } from '../../server/resources/persistent-volume/schema';
import { nearVolumes } from '../../server/store/volume-queries';
import { openTestStore, type TestStore } from '../db';

let ts: TestStore;
beforeAll(async () => {
  ts = await openTestStore();
});
afterAll(async () => {
  await ts?.close();
});

const HOLD = 'stowage.io/test-hold';

async function setPhase(name: string, phase: string): Promise<void> {
  const v = await ts.store.get('PersistentVolume', undefined, name);
  if (v.status?.phase === phase) return;
  await ts.store.update({ ...v, status: { ...v.status, phase } }, { subresource: 'status' });
}

describe('the store path agrees with the matching table', () => {
  matchCases.forEach((c, i) => {
    if (c.tieBreak) return;
    it(c.name, async () => {
      const ns = `case-${i}`;
      const prefix = `m${i}-`;
      await ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      const claimIn = structuredClone(c.claim);
      claimIn.metadata = { ...claimIn.metadata, namespace: ns };
      delete claimIn.metadata.uid;
      delete claimIn.status;
      const claim = await ts.store.create(claimIn);
      const created: string[] = [];
      for (const original of c.volumes) {
        const v = structuredClone(original); // the case's volumes are PVs
        const phase: string = v.status?.phase ?? 'Available';
        const deleting = Boolean(v.metadata.deletionTimestamp);
        v.metadata = { ...v.metadata, name: prefix + v.metadata.name };
        delete v.metadata.uid;
        delete v.metadata.deletionTimestamp;
        if (deleting) v.metadata.finalizers = [HOLD];
        const ref = v.spec!.claimRef;
        if (ref?.namespace === 'myns') ref.namespace = ns;
        if (ref?.uid === 'uid-claim01') ref.uid = claim.metadata.uid;
        delete v.status;
        await ts.store.create(v);
        created.push(v.metadata.name!);
        await setPhase(v.metadata.name!, phase);
        if (deleting) await ts.store.delete('PersistentVolume', undefined, v.metadata.name!);
      }
      try {
        const got = await transact(ts.store, async (tx) => {
          const locked = await tx.get('PersistentVolumeClaim', ns, claim.metadata.name!);
          return findMatchInStore(tx, locked!, c.opts ?? {});
        });
        expect(got.match?.volume.metadata.name).toBe(c.expected === undefined ? undefined : prefix + c.expected);
        if (c.prebound !== undefined && got.match) expect(got.match.prebound).toBe(c.prebound);
        expect(got.busy).toBe(false);
      } finally {
        for (const name of created) {
          const v = await ts.store.get('PersistentVolume', undefined, name);
          if (v.metadata.finalizers?.length) await ts.store.update({ ...v, metadata: { ...v.metadata, finalizers: [] } });
          else await ts.store.delete('PersistentVolume', undefined, name);
        }
      }
    });
  });
});

describe('nearVolumes (the claim doctor)', () => {
  it.each([
    { name: 'a smaller volume of another shape', extra: { name: 'near-rwx-100', size: '100Gi', modes: ['ReadWriteMany'], mode: 'Filesystem' } },
    { name: 'a larger volume of another volume mode', extra: { name: 'near-block-600', size: '600Gi', modes: ['ReadWriteOnce'], mode: 'Block' } },
  ])('finds the closest in size across shapes, beyond the bounded scans: $name', async ({ extra }) => {
    const cls = `near-${extra.name}`;
    const mk = (name: string, size: string, modes: string[], volumeMode: string): PersistentVolume => ({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name },
      spec: { capacity: { storage: size }, accessModes: modes, volumeMode, storageClassName: cls, hostPath: { path: `/srv/${name}` } },
    });
    const names = [...['a', 'b', 'c', 'd', 'e', 'f'].map((n) => `${extra.name}-rwo-${n}`)];
    for (const n of names) await ts.store.create(mk(n, '1Gi', ['ReadWriteOnce'], 'Filesystem'));
    await ts.store.create(mk(extra.name, extra.size, extra.modes, extra.mode));
    for (const n of [...names, extra.name]) await setPhase(n, 'Available');
    const near = await nearVolumes(ts.store, {
      storageClass: cls,
      volumeMode: 'Filesystem',
      accessModes: accessModesToBits(['ReadWriteOnce']),
      minBytes: (500n * 1024n ** 3n).toString(),
      limit: 4,
      scan: 0, // the bounded scans see nothing: only the closest-across-shapes probe can find it
    });
    expect(near.map((v) => v.metadata.name)).toContain(extra.name);
  });
});
