// What names a storage class, a snapshot class or a backup target, for their delete dialogs,
// on a real Postgres: counts across namespaces, claims by phase, a few names oldest first,
// the default flag; a developer is refused; other kinds are a bad request.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Principal } from '../../server/domain/authorization';
import { openTestApp } from '../app';

let app: Awaited<ReturnType<typeof openTestApp>>;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['team-a'] };
const snapApi = 'snapshot.storage.k8s.io/v1';

async function setPhase(ns: string, name: string, phase: string) {
  const o = await app.objects.get(admin, 'PersistentVolumeClaim', ns, name);
  await app.objects.update(admin, { ...o, status: { ...o.status, phase } }, { subresource: 'status' });
}

beforeAll(async () => {
  app = await openTestApp();
  for (const ns of ['team-a', 'team-b']) await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await app.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'kubernetes.io/no-provisioner' });
  await app.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'idle' }, provisioner: 'kubernetes.io/no-provisioner' });
  for (const [ns, name] of [['team-a', 'c1'], ['team-b', 'c2'], ['team-b', 'c3']]) {
    await app.store.create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: ns }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } } });
  }
  await setPhase('team-b', 'c3', 'Bound');
  await app.store.create({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-fast' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'fast', hostPath: { path: '/tmp/pv-fast' } } });

  await app.store.create({ apiVersion: snapApi, kind: 'VolumeSnapshotClass', metadata: { name: 'snaps' }, driver: 'stowage.io/btrfs', deletionPolicy: 'Delete' });
  await app.store.create({ apiVersion: snapApi, kind: 'VolumeSnapshot', metadata: { name: 's1', namespace: 'team-a' }, spec: { volumeSnapshotClassName: 'snaps', source: { persistentVolumeClaimName: 'c1' } } });
  await app.store.create({ apiVersion: snapApi, kind: 'VolumeSnapshot', metadata: { name: 's2', namespace: 'team-a' }, spec: { source: { persistentVolumeClaimName: 'c1' } } });
  await app.store.create({ apiVersion: 'snapshot.stowage.io/v1', kind: 'SnapshotSchedule', metadata: { name: 'nightly', namespace: 'team-b' }, spec: { every: '24h', keep: 2, target: { claimName: 'c2' }, snapshotClassName: 'snaps', backup: { targetName: 'nfs', keep: 2 } } });

  await app.store.create({ apiVersion: 'stowage.io/v1', kind: 'BackupTarget', metadata: { name: 'nfs' }, spec: { path: '/mnt/backups', default: true } });
  await app.store.create({ apiVersion: 'stowage.io/v1', kind: 'VolumeBackup', metadata: { name: 'b1', namespace: 'team-a' }, spec: { source: { persistentVolumeClaimName: 'c1' }, backupTargetName: 'nfs' } });
});

afterAll(async () => {
  await app?.close();
});

test('a storage class: its claims by phase across namespaces, its volumes, the default flag', async () => {
  const d = await app.dependents.of(admin, 'StorageClass', 'fast');
  expect(d).toMatchObject({ kind: 'StorageClass', name: 'fast', isDefault: true });
  const claims = d.references.find((r) => r.kind === 'PersistentVolumeClaim')!;
  expect(claims.count).toBe(3);
  expect(claims.phases).toEqual({ Pending: 2, Bound: 1 });
  expect([...claims.names].sort()).toEqual(['team-a/c1', 'team-b/c2', 'team-b/c3']);
  expect(d.references.find((r) => r.kind === 'PersistentVolume')).toMatchObject({ count: 1, names: ['pv-fast'] });
  const idle = await app.dependents.of(admin, 'StorageClass', 'idle');
  expect(idle.isDefault).toBe(false);
  expect(idle.references.map((r) => r.count)).toEqual([0, 0]);
});

test('a snapshot class: the snapshots and schedules that name it (not those that name none)', async () => {
  const d = await app.dependents.of(admin, 'VolumeSnapshotClass', 'snaps');
  expect(d.references).toEqual([
    { kind: 'VolumeSnapshot', count: 1, phases: {}, names: ['team-a/s1'] },
    { kind: 'SnapshotSchedule', count: 1, phases: {}, names: ['team-b/nightly'] },
  ]);
});

test('a backup target: its backups and the schedules that back up into it', async () => {
  const d = await app.dependents.of(admin, 'BackupTarget', 'nfs');
  expect(d.isDefault).toBe(true);
  expect(d.references.map((r) => [r.kind, r.count, r.names])).toEqual([
    ['VolumeBackup', 1, ['team-a/b1']],
    ['SnapshotSchedule', 1, ['team-b/nightly']],
  ]);
});

test('only who may delete it is told; other kinds and missing objects are refused in words', async () => {
  await expect(app.dependents.of(dev, 'StorageClass', 'fast')).rejects.toMatchObject({ code: 'Forbidden' });
  await expect(app.dependents.of(admin, 'Pod', 'x')).rejects.toMatchObject({ code: 'BadRequest' });
  await expect(app.dependents.of(admin, 'StorageClass', 'nope')).rejects.toMatchObject({ code: 'NotFound' });
  await expect(app.dependents.of(admin, 'StorageClass', '__proto__')).rejects.toMatchObject({ code: 'NotFound' });
});
