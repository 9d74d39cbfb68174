// `stowage backup FILE` and `stowage restore FILE` as real processes against real
// databases: everything comes back (objects with their uids and resourceVersions, users,
// tokens, provisioned-asset records, numbers past 2^53), history is reset (a watch from
// before the snapshot gets 410), a non-empty target is refused, and a backup taken while
// writes go on is one consistent snapshot.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ensureServingPki } from '../../server/kube/pki';
import { UserService } from '../../server/services/users';
import { restoreBackup, writeBackup } from '../../server/store/backup';
import { strategies } from '../../server/resources/registry';
import { createTestDatabase, openTestStore, rawQuery, type TestStore } from '../db';

const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-backup-'));
let a: TestStore;
let b: TestStore | undefined;
let token: string;

function stowage(args: string[], databaseUrl: string, dataDir = path.join(dir, 'data')): Promise<{ code: number; out: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, STOWAGE_DATA_DIR: dataDir };
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/stowage.mjs', ...args], { env, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

const pv = (name: string, storage = '1Gi') => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name, labels: { app: 'db' } },
  spec: { capacity: { storage }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` } },
});

async function everything(ts: TestStore) {
  const out: Record<string, unknown[]> = {};
  for (const s of strategies) out[s.kind] = (await ts.store.list(s.kind)).items;
  return out;
}

beforeAll(async () => {
  a = await openTestStore();
  for (const ns of ['default', 'team-a']) await a.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await a.store.create(pv('small'));
  await a.store.create(pv('huge', '100E')); // 10^20 bytes: a numeric column past 2^53
  await a.store.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'example.com/x', parameters: { a: 'b' } });
  await a.store.create({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'team-a' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  const users = new UserService(a.store);
  await users.create({ name: 'dev', role: 'developer', namespaces: ['team-a'], password: 'a-long-password' });
  token = await users.createToken('dev');
  await rawQuery(a.url, `INSERT INTO provisioned_assets (id, plugin, pv_name, state, details, updated_at) VALUES ('stowage.io/host-path:pvc-1', 'stowage.io/host-path', 'pvc-1', 'created', '{"path":"/srv/v/pvc-1"}', now())`);
});
afterAll(async () => {
  await b?.close();
  await a?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('backup and restore', () => {
  test('everything comes back into an empty database, with history reset', async () => {
    const file = path.join(dir, 'stowage.backup');
    const backup = await stowage(['backup', file], a.url);
    expect(backup.code, backup.out).toBe(0);
    expect(backup.out).toMatch(/Backed up \d+ rows/);
    expect(backup.out).not.toMatch(/Warning/);
    const header = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]);
    expect(header).toMatchObject({ format: 'stowage-backup/1', resourceVersion: (await a.store.currentResourceVersion()).toString() });

    const target = await createTestDatabase();
    const restore = await stowage(['restore', file], target);
    expect(restore.code, restore.out).toBe(0);
    b = await openTestStore(target);

    expect(await everything(b)).toEqual(await everything(a));
    // Who changed what comes back too (the change log does not).
    const historyOf = (url: string) => rawQuery(url, 'SELECT rv::text AS rv, type, action, actor, kind, namespace, name FROM history ORDER BY history.rv');
    const kept = await historyOf(a.url);
    expect(kept.length).toBeGreaterThan(5);
    expect(await historyOf(target)).toEqual(kept);
    expect(await new UserService(b.store).authenticate(token)).toMatchObject({ name: 'dev', namespaces: ['team-a'] });
    expect(await new UserService(b.store).signIn('dev', 'a-long-password')).toMatchObject({ name: 'dev' });
    expect(await rawQuery(target, 'SELECT id, state, details FROM provisioned_assets')).toEqual([{ id: 'stowage.io/host-path:pvc-1', state: 'created', details: { path: '/srv/v/pvc-1' } }]);
    const [huge] = await rawQuery<{ capacity_bytes: string }>(target, "SELECT capacity_bytes::text FROM objects WHERE name = 'huge'");
    expect(huge.capacity_bytes).toBe('100000000000000000000');

    // History starts at the snapshot: a watch from before it is told to relist.
    const head = await b.store.currentResourceVersion();
    expect(head.toString()).toBe(header.resourceVersion);
    await expect(b.store.watch({ resourceVersion: '1' }).next()).rejects.toMatchObject({ code: 'Expired' });
    // New writes continue after the snapshot's versions.
    const created = await b.store.create(pv('after-restore'));
    expect(BigInt(created.metadata.resourceVersion!)).toBeGreaterThan(head);

    // A database that holds anything is never overwritten.
    const again = await stowage(['restore', file], target);
    expect(again.code).not.toBe(0);
    expect(again.out).toMatch(/already holds objects or users/);
    expect((await b.store.tryGet('PersistentVolume', undefined, 'after-restore'))?.metadata.uid).toBe(created.metadata.uid);
  });

  test('a backup taken while writes go on is one snapshot', async () => {
    let stop = false;
    let n = 0;
    const writer = (async () => {
      while (!stop) await a.store.create(pv(`during-${n++}`));
    })();
    // Let some writes land, then snapshot in the middle of them.
    while (n < 20) await new Promise((r) => setTimeout(r, 5));
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c));
    const summary = await writeBackup(a.url, sink);
    stop = true;
    await writer;
    const lines = Buffer.concat(chunks).toString('utf8').trim().split('\n');
    const dumped = lines
      .slice(1, -1)
      .map((l) => JSON.parse(l))
      .filter((l) => l.t === 'objects')
      .map((l) => l.r.name as string)
      .sort();
    const atSnapshot = (await rawQuery<{ name: string }>(a.url, 'SELECT name FROM objects WHERE resource_version <= $1 ORDER BY name', [summary.resourceVersion])).map((r) => r.name).sort();
    expect(dumped).toEqual(atSnapshot);
    expect(n).toBeGreaterThan(atSnapshot.filter((x) => x.startsWith('during-')).length);

    // A truncated file restores nothing.
    const target = await createTestDatabase();
    const truncated = new PassThrough();
    truncated.end(lines.slice(0, -1).join('\n'));
    await expect(restoreBackup(target, truncated)).rejects.toThrow(/truncated/);
    expect(await rawQuery(target, 'SELECT count(*)::int AS n FROM objects')).toEqual([{ n: 0 }]);
  });
});

describe('writing the backup file', () => {
  test('a stream that pushes back on every line: one error listener at a time, no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    let most = 0;
    // highWaterMark 1: every write reports a full buffer and the backup waits for 'drain'.
    const slow = new Writable({
      highWaterMark: 1,
      write(_chunk, _enc, done) {
        most = Math.max(most, slow.listenerCount('error'));
        setImmediate(done);
      },
    });
    try {
      const summary = await writeBackup(a.url, slow);
      expect(summary.rows).toBeGreaterThan(20);
      await new Promise((r) => setImmediate(r)); // a warning is emitted on the next tick
      expect(warnings.filter((w) => w.includes('MaxListeners'))).toEqual([]);
      expect(most).toBeLessThanOrEqual(2); // the stream's own, and the one the backup waits with
      expect(slow.listenerCount('error')).toBeLessThanOrEqual(1);
    } finally {
      process.off('warning', onWarning);
    }
  });

  test('`stowage backup` of a few hundred KiB prints no warning', async () => {
    const big = await createTestDatabase();
    // 3000 rows of about 150 bytes: the file stream's 16 KiB buffer fills some 30 times.
    await rawQuery(
      big,
      `INSERT INTO provisioned_assets (id, plugin, pv_name, state, details, updated_at)
       SELECT 'stowage.io/host-path:pvc-' || i, 'stowage.io/host-path', 'pvc-' || i, 'created', jsonb_build_object('path', '/srv/volumes/pvc-' || i), now()
       FROM generate_series(1, 3000) i`,
    );
    const r = await stowage(['backup', path.join(dir, 'big.backup')], big);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/Backed up 300\d rows/);
    expect(r.out).not.toMatch(/Warning/);
  });

  test('a directory that does not exist is named, with no stack trace and nothing started', async () => {
    const target = path.join(dir, 'no-such-dir', 'b.jsonl');
    // The database is never reached: an address nothing listens on would fail otherwise.
    const r = await stowage(['backup', target], 'postgresql://nobody@127.0.0.1:1/none');
    expect(r.code).toBe(1);
    expect(r.out.trim()).toBe(`error: cannot write the backup to ${target}: the directory ${path.dirname(target)} does not exist`);
  });
});

describe('the PKI and the roles in a backup', () => {
  const modeOf = (f: string) => statSync(f).mode & 0o777;
  const pkiOf = (dataDir: string) => Object.fromEntries(['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key'].map((n) => [n, readFileSync(path.join(dataDir, 'pki', n), 'utf8')]));
  const objectCount = async (url: string) => (await rawQuery<{ n: number }>(url, 'SELECT count(*)::int AS n FROM objects'))[0].n;

  test('the CA and serving keys are backed up and restored owner-only, so old kubeconfigs keep trusting the server', async () => {
    const source = path.join(dir, 'pki-source');
    ensureServingPki(source, ['localhost']);
    const file = path.join(dir, 'with-pki.backup');
    const backup = await stowage(['backup', file], a.url, source);
    expect(backup.code, backup.out).toBe(0);
    expect(backup.out).toMatch(/with the API's PKI/);
    expect(modeOf(file)).toBe(0o600);

    const target = await createTestDatabase();
    const restored = path.join(dir, 'pki-restored');
    const restore = await stowage(['restore', file], target, restored);
    expect(restore.code, restore.out).toBe(0);
    expect(restore.out).toMatch(/Restored the API's PKI/);
    expect(pkiOf(restored)).toEqual(pkiOf(source));
    expect(modeOf(path.join(restored, 'pki'))).toBe(0o700);
    for (const n of ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key']) expect(modeOf(path.join(restored, 'pki', n)), n).toBe(0o600);
    // The restored server keeps the CA (and its serving certificate) rather than making new ones.
    expect(ensureServingPki(restored, ['localhost']).caPem).toBe(pkiOf(source)['ca.crt']);

    // A data dir that already has another CA is refused before the database is touched.
    const other = path.join(dir, 'pki-other');
    ensureServingPki(other, ['localhost']);
    const empty = await createTestDatabase();
    const refused = await stowage(['restore', file], empty, other);
    expect(refused.code).not.toBe(0);
    expect(refused.out).toMatch(/differs from the backup's/);
    expect(await objectCount(empty)).toBe(0);
  });

  test('a backup naming a role this Stowage does not know is refused, and nothing is restored', async () => {
    const file = path.join(dir, 'roles.backup');
    expect((await stowage(['backup', file], a.url)).code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"role":"developer"');
    const forged = path.join(dir, 'forged.backup');
    writeFileSync(forged, text.replace('"role":"developer"', '"role":"root"'));
    const target = await createTestDatabase();
    const r = await stowage(['restore', forged], target);
    expect(r.code).not.toBe(0);
    expect(r.out).toMatch(/user "dev" has the unknown role "root"/);
    expect(await objectCount(target)).toBe(0);
    expect(await rawQuery(target, 'SELECT name FROM users')).toEqual([]);
  });
});
