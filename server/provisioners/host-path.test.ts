import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/db';
import { AssetStore } from '../store/provisioned-assets';
import { createHostPathPlugin } from './host-path';
import { createRealOs } from './os';
import { FakeOs, FaultyOs } from './os-fake';
import { provisionOptionsFor, type ProvisionerPlugin } from './plugin';
import { releaseEverythingUnder, testClaim, testClass } from './testing';
import { sqlOf } from '../store/sql-handle';
import { hostPathProvisioner } from '../domain/well-known/provisioners';

const NODE = 'node-a';
let ts: TestStore;
let assets: AssetStore;
let dir: string;
let base: string;

beforeAll(async () => {
  ts = await openTestStore();
  assets = new AssetStore(ts.store);
});
afterAll(async () => ts.close());

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-hostpath-'));
  base = path.join(dir, 'volumes');
  await sqlOf(ts.store).$executeRawUnsafe("DELETE FROM provisioned_assets");
});
afterEach(async () => {
  await releaseEverythingUnder(dir);
});

function plugin(hostOs = createRealOs(NODE)): ProvisionerPlugin {
  return createHostPathPlugin({ os: hostOs, assets, nodeName: NODE });
}

const exists = (p: string) => fs.access(p).then(() => true, () => false);

describe('stowage.io/host-path on real directories', () => {
  it('makes a directory per claim, pinned to this node, and records it before and after', async () => {
    const claim = testClaim({ size: '1Gi' });
    const result = await plugin().provision(provisionOptionsFor(claim, testClass(hostPathProvisioner, { basePath: base })));
    expect(result.error).toBeUndefined();
    const v = result.volume!;
    const dirPath = path.join(base, `pvc-${claim.metadata.uid}_team-a_data`);
    expect(v.source).toEqual({ hostPath: { path: dirPath, type: 'Directory' } });
    expect(v.capacityBytes).toBe(1n << 30n);
    expect(v.nodeAffinity?.required?.nodeSelectorTerms?.[0].matchExpressions?.[0]).toEqual({ key: 'kubernetes.io/hostname', operator: 'In', values: [NODE] });
    expect((await fs.stat(dirPath)).isDirectory()).toBe(true);
    // The narrowest mode that works: the owner's only.
    expect((await fs.stat(dirPath)).mode & 0o777).toBe(0o700);
    const record = await assets.get(hostPathProvisioner, `pvc-${claim.metadata.uid}`);
    expect(record).toMatchObject({ state: 'created', node: NODE, claimUid: claim.metadata.uid, details: { path: dirPath, claim: 'team-a/data' } });
  });

  it('deletes the directory with its contents; the record stays "deleting" for the deleter', async () => {
    const claim = testClaim();
    const p = plugin();
    const { volume } = await p.provision(provisionOptionsFor(claim, testClass(hostPathProvisioner, { basePath: base, mode: '0750' })));
    const dirPath = (volume!.source.hostPath as { path: string }).path;
    expect((await fs.stat(dirPath)).mode & 0o777).toBe(0o750);
    await fs.writeFile(path.join(dirPath, 'file'), 'data');
    const pv = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: `pvc-${claim.metadata.uid}` } };
    expect(await p.delete(pv)).toBe('deleted');
    expect(await exists(dirPath)).toBe(false);
    expect(await exists(base)).toBe(true);
    expect((await assets.get(hostPathProvisioner, pv.metadata.name))?.state).toBe('deleting');
    // Deleting again is harmless.
    expect(await p.delete(pv)).toBe('deleted');
  });

  it('continues an earlier attempt for the same claim instead of making a second asset', async () => {
    const claim = testClaim();
    const options = provisionOptionsFor(claim, testClass(hostPathProvisioner, { basePath: base }));
    const first = await plugin().provision(options);
    const again = await plugin().provision(options);
    expect(again.volume?.source).toEqual(first.volume?.source);
    expect(await fs.readdir(base)).toHaveLength(1);
    expect(await assets.count()).toBe(1);
  });

  it('undoes a failed attempt: no directory, no record', async () => {
    const faulty = new FaultyOs(createRealOs(NODE));
    const claim = testClaim();
    faulty.failNext('mkdir', 1, (args) => String(args[0]).includes('pvc-'));
    const result = await plugin(faulty).provision(provisionOptionsFor(claim, testClass(hostPathProvisioner, { basePath: base })));
    expect(result).toMatchObject({ state: 'finished', error: { message: expect.stringContaining('injected failure: mkdir') } });
    expect(await fs.readdir(base)).toEqual([]);
    expect(await assets.count()).toBe(0);
  });

  it('keeps the record with the error when even the undo fails, so the sweep can finish it', async () => {
    const faulty = new FaultyOs(createRealOs(NODE));
    faulty.failNext('mkdir', 1, (args) => String(args[0]).includes('pvc-'));
    faulty.failNext('rm', 1);
    const claim = testClaim();
    await plugin(faulty).provision(provisionOptionsFor(claim, testClass(hostPathProvisioner, { basePath: base })));
    const [record] = await assets.list();
    expect(record).toMatchObject({ state: 'creating', error: expect.stringContaining('injected failure: rm') });
    expect(await plugin().deleteAsset(record)).toBe('deleted');
    expect(await assets.count()).toBe(0);
  });

  it('ignores PVs it has no record of, and records of another node', async () => {
    const p = plugin();
    expect(await p.delete({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pvc-unknown' } })).toBe('ignored');
    const claim = testClaim();
    await p.provision(provisionOptionsFor(claim, testClass(hostPathProvisioner, { basePath: base })));
    const [record] = await assets.list();
    const elsewhere = createHostPathPlugin({ os: createRealOs('node-b'), assets, nodeName: 'node-b' });
    expect(await elsewhere.deleteAsset(record)).toBe('ignored');
    expect(await exists(String(record.details.path))).toBe(true);
  });

  it('refuses to remove anything outside the base path a record names', async () => {
    const victim = path.join(dir, 'precious');
    await fs.mkdir(victim);
    const { record } = await assets.begin({ plugin: hostPathProvisioner, pvName: 'pvc-x', node: NODE, details: { path: victim, basePath: base } });
    await expect(plugin().deleteAsset(record)).rejects.toThrow(/refusing to remove/);
    expect(await exists(victim)).toBe(true);
  });

  it('fails without an asset when the base path cannot hold the request', async () => {
    const fake = new FakeOs({ hostname: NODE, totalBytes: 1n << 20n });
    const result = await plugin(fake).provision(provisionOptionsFor(testClaim({ size: '2Mi' }), testClass(hostPathProvisioner, { basePath: '/data' })));
    expect(result.error?.message).toMatch(/not enough space under \/data: 1 MiB available, 2 MiB requested/);
    expect(await assets.count()).toBe(0);
  });
});

describe('stowage.io/host-path refuses what it cannot honour, before making anything', () => {
  const cases: { name: string; params: Record<string, string>; spec?: Record<string, unknown>; sc?: Record<string, unknown>; problem: RegExp }[] = [
    { name: 'an unknown parameter', params: { basePath: '/data', size: '1' }, problem: /unknown parameter "size"/ },
    { name: 'no basePath', params: {}, problem: /"basePath" is required/ },
    { name: 'a relative basePath', params: { basePath: 'data' }, problem: /must be an absolute path/ },
    { name: 'basePath /', params: { basePath: '/' }, problem: /may not be "\/"/ },
    { name: 'an unnormalized basePath', params: { basePath: '/data/../etc' }, problem: /must be a normalized path/ },
    { name: 'a bad mode', params: { basePath: '/data', mode: 'rwx' }, problem: /"mode" must be octal/ },
    { name: 'volumeMode Block', params: { basePath: '/data' }, spec: { volumeMode: 'Block' }, problem: /cannot provision a volume with volumeMode Block/ },
    { name: 'ReadWriteMany', params: { basePath: '/data' }, spec: { accessModes: ['ReadWriteMany'] }, problem: /access mode ReadWriteMany/ },
    { name: "a populator's data source", params: { basePath: '/data' }, spec: { dataSource: { apiGroup: 'example.io', kind: 'Populator', name: 'x' } }, problem: /cannot populate a volume from a Populator/ },
    { name: 'a data source in another namespace', params: { basePath: '/data' }, spec: { dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'x', namespace: 'other' } }, problem: /from another namespace/ },
    { name: 'a selector on an unknown label', params: { basePath: '/data' }, spec: { selector: { matchLabels: { zone: 'a' } } }, problem: /label "zone"/ },
    { name: 'a selector for another node', params: { basePath: '/data' }, spec: { selector: { matchLabels: { 'kubernetes.io/hostname': 'node-b' } } }, problem: /provisions on node "node-a" only/ },
    { name: 'a NotIn selector', params: { basePath: '/data' }, spec: { selector: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['x'] }] } }, problem: /cannot be satisfied/ },
    { name: 'mountOptions on the class', params: { basePath: '/data' }, sc: { mountOptions: ['ro'] }, problem: /take no mountOptions/ },
  ];
  it.each(cases)('$name', async ({ params, spec, sc, problem }) => {
    const fake = new FakeOs({ hostname: NODE });
    const p = plugin(fake);
    const claim = testClaim({ spec });
    const cls = testClass(hostPathProvisioner, params, sc);
    expect(p.validateParameters(params, claim, cls).join('\n')).toMatch(problem);
    const result = await p.provision(provisionOptionsFor(claim, cls));
    expect(result).toMatchObject({ state: 'finished', error: { name: 'ProvisioningError', message: expect.stringMatching(problem) } });
    expect(fake.dirs.size).toBe(1);
    expect(await assets.count()).toBe(0);
  });

  it('honours a selector on this node by labelling the volume', async () => {
    const fake = new FakeOs({ hostname: NODE });
    const claim = testClaim({ spec: { selector: { matchLabels: { 'kubernetes.io/hostname': NODE } } } });
    const result = await plugin(fake).provision(provisionOptionsFor(claim, testClass(hostPathProvisioner, { basePath: '/data' })));
    expect(result.volume?.labels).toEqual({ 'kubernetes.io/hostname': NODE });
  });

  it('asks for another node when the scheduler picked one it does not serve', async () => {
    const fake = new FakeOs({ hostname: NODE });
    const claim = testClaim({ annotations: { 'volume.kubernetes.io/selected-node': 'node-b' } });
    const result = await plugin(fake).provision(provisionOptionsFor(claim, testClass(hostPathProvisioner, { basePath: '/data' })));
    expect(result.state).toBe('reschedule');
    expect(await assets.count()).toBe(0);
  });
});

describe('stowage.io/host-path snapshots: a copy with its progress', () => {
  /** A copy that stops after its first file until released: progress is seen mid-copy. */
  class PausingCopyOs extends FakeOs {
    release: () => void = () => {};
    async copy(source: string, target: string): Promise<void> {
      await this.mkdir(target);
      this.files.set(`${target}/first`, 10n);
      await new Promise<void>((resolve) => (this.release = resolve));
      await this.rm(target);
      await super.copy(source, target);
    }
  }

  it('reports the partial copy against the source, then the whole; the record is created with the copy', async () => {
    const fake = new PausingCopyOs({ hostname: NODE });
    const p = createHostPathPlugin({ os: fake, assets, nodeName: NODE, progressEveryMs: 5 });
    const claim = testClaim({ name: 'data', size: '1Gi' });
    const made = await p.provision(provisionOptionsFor(claim, testClass(hostPathProvisioner, { basePath: '/data' })));
    if (!made.volume) throw made.error;
    const volumeDir = made.volume.asset.path as string;
    fake.files.set(`${volumeDir}/a`, 600n);
    fake.files.set(`${volumeDir}/b`, 400n);
    const seen: string[] = [];
    const result = await p.snapshots!.create({
      contentName: 'snapcontent-1',
      pvName: `pvc-${claim.metadata.uid}`,
      sizeBytes: 1n << 30n,
      onProgress: (x) => {
        seen.push(`${x.copiedBytes}/${x.totalBytes}`);
        if (seen.length === 1) fake.release();
      },
    });
    expect(seen[0]).toBe('10/1000');
    expect(seen.at(-1)).toBe('1000/1000');
    expect(result).toMatchObject({ state: 'ready', snapshot: { handle: '/data/.snapshots/snapcontent-1', sizeBytes: 1n << 30n } });
    expect(fake.files.get('/data/.snapshots/snapcontent-1/a')).toBe(600n);
    expect([...fake.dirs].some((d) => d.endsWith('.partial'))).toBe(false);
    expect((await assets.get(hostPathProvisioner, 'snapcontent-1'))?.state).toBe('created');
  });
});
