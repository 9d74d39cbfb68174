import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/db';
import { AssetStore } from '../store/provisioned-assets';
import { createLoopPlugin, roundToSector } from './loop';
import { createRealOs, type HostOs } from './os';
import { FakeOs, FaultyOs, type OsOperation } from './os-fake';
import { provisionOptionsFor, type ProvisionerPlugin } from './plugin';
import { loopsUnder, mountsUnder, releaseAndWarn, testClaim, testClass } from './testing';
import { sqlOf } from '../store/sql-handle';
import { loopProvisioner } from '../domain/well-known/provisioners';

const NODE = 'node-a';
const real = createRealOs(NODE);
const loop = await real.loopSupport();
if (!loop.ok) console.log(`[skip] real loop-device tests of ${loopProvisioner}: ${loop.reason}`);

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
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-loop-'));
  base = path.join(dir, 'volumes');
  await sqlOf(ts.store).$executeRawUnsafe("DELETE FROM provisioned_assets");
});
afterEach(() => releaseAndWarn(dir));

function plugin(hostOs: HostOs = real): ProvisionerPlugin {
  return createLoopPlugin({ os: hostOs, assets, nodeName: NODE });
}
const pvOf = (claim: { metadata: { uid?: string } }) => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: `pvc-${claim.metadata.uid}` } });
const exists = (p: string) => fs.access(p).then(() => true, () => false);

describe.skipIf(!loop.ok)('stowage.io/loop on real loop devices', () => {
  it('Filesystem: formats, mounts under basePath/mounts/<pv>, enforces the size, and deletes it all', async () => {
    const claim = testClaim({ size: '8Mi' });
    const p = plugin();
    const result = await p.provision(provisionOptionsFor(claim, testClass(loopProvisioner, { basePath: base })));
    expect(result.error).toBeUndefined();
    const v = result.volume!;
    const mountpoint = path.join(base, 'mounts', `pvc-${claim.metadata.uid}`);
    expect(v).toMatchObject({ capacityBytes: 8n << 20n, volumeMode: 'Filesystem', source: { local: { path: mountpoint } } });
    const file = String(v.asset.file);
    expect((await fs.stat(file)).size).toBe(8 << 20);
    expect((await fs.stat(file)).blocks * 512).toBeLessThan(8 << 20); // sparse
    expect(await mountsUnder(dir)).toEqual([mountpoint]);
    expect(await real.fsTypeOf(String(v.asset.device))).toBe('ext4');
    // The size is enforced: 9 MiB do not fit into an 8 MiB filesystem.
    const big = Buffer.alloc(9 << 20, 1);
    await expect(fs.writeFile(path.join(mountpoint, 'too-big'), big)).rejects.toMatchObject({ code: 'ENOSPC' });

    expect(await p.delete(pvOf(claim))).toBe('deleted');
    expect(await mountsUnder(dir)).toEqual([]);
    expect(await loopsUnder(dir)).toEqual([]);
    expect(await exists(file)).toBe(false);
    expect(await exists(mountpoint)).toBe(false);
  });

  it('Block: hands out the device, exactly as large as requested', async () => {
    const claim = testClaim({ size: '4Mi', spec: { volumeMode: 'Block' } });
    const p = plugin();
    const { volume, error } = await p.provision(provisionOptionsFor(claim, testClass(loopProvisioner, { basePath: base })));
    expect(error).toBeUndefined();
    const device = String(volume!.asset.device);
    expect(volume).toMatchObject({ volumeMode: 'Block', source: { local: { path: device } }, capacityBytes: 4n << 20n });
    expect(await real.sizeOf(device)).toBe(4n << 20n);
    expect(await real.fsTypeOf(device)).toBeUndefined();
    const h = await fs.open(device, 'r+');
    try {
      expect((await h.write(Buffer.alloc(512, 7), 0, 512, (4 << 20) - 512)).bytesWritten).toBe(512);
      // Past the end there is nothing to write to.
      const past = await h.write(Buffer.alloc(512, 7), 0, 512, 4 << 20).then((r) => r.bytesWritten, (e) => e.code);
      expect([0, 'ENOSPC', 'EIO', 'EINVAL']).toContain(past);
    } finally {
      await h.close();
    }
    expect(await p.delete(pvOf(claim))).toBe('deleted');
    expect(await loopsUnder(dir)).toEqual([]);
  });

  it('rounds an unaligned request up to whole sectors, never below the request', async () => {
    const claim = testClaim({ size: '2M', spec: { volumeMode: 'Block' } });
    const { volume } = await plugin().provision(provisionOptionsFor(claim, testClass(loopProvisioner, { basePath: base })));
    expect(volume!.capacityBytes).toBe(roundToSector(2_000_000n));
    expect(volume!.capacityBytes).toBeGreaterThanOrEqual(2_000_000n);
    expect(await real.sizeOf(String(volume!.asset.device))).toBe(volume!.capacityBytes);
  });

  it('undoes everything when mkfs fails: no device, no mount, no file, no record', async () => {
    const faulty = new FaultyOs(real);
    faulty.failNext('mkfs');
    const claim = testClaim({ size: '4Mi' });
    const result = await plugin(faulty).provision(provisionOptionsFor(claim, testClass(loopProvisioner, { basePath: base })));
    expect(result.error?.message).toMatch(/injected failure: mkfs/);
    expect(await loopsUnder(dir)).toEqual([]);
    expect(await mountsUnder(dir)).toEqual([]);
    expect((await fs.readdir(base)).filter((f) => f.endsWith('.img'))).toEqual([]);
    expect(await assets.count()).toBe(0);
  });

  it('recovers from its own record after a crash half way (device attached, not mounted)', async () => {
    const claim = testClaim({ size: '4Mi' });
    const options = provisionOptionsFor(claim, testClass(loopProvisioner, { basePath: base }));
    const faulty = new FaultyOs(real);
    faulty.failNext('mount');
    faulty.failNext('umount'); // the undo fails too: the record is all that is left
    faulty.failNext('losetupDetach');
    await plugin(faulty).provision(options);
    expect(await loopsUnder(dir)).toHaveLength(1);
    const [record] = await assets.list();
    expect(record.state).toBe('creating');
    expect(await plugin().deleteAsset(record)).toBe('deleted');
    expect(await loopsUnder(dir)).toEqual([]);
    expect(await assets.count()).toBe(0);
  });
});

describe('stowage.io/loop with a fake OS', () => {
  it('refuses impossible combinations before making anything', async () => {
    const fake = new FakeOs({ hostname: NODE });
    const cases: { spec: Record<string, unknown>; size?: string; params: Record<string, string>; problem: RegExp }[] = [
      { spec: { volumeMode: 'Block' }, params: { basePath: '/d', fsType: 'ext4' }, problem: /"fsType" \(ext4\) makes no sense for a claim with volumeMode Block/ },
      { spec: {}, params: { basePath: '/d', fsType: 'ntfs' }, problem: /"fsType" must be one of ext4, ext3, ext2, xfs/ },
      { spec: {}, params: { basePath: '/d', encrypt: 'yes' }, problem: /unknown parameter "encrypt"/ },
      { spec: { accessModes: ['ReadOnlyMany'] }, params: { basePath: '/d' }, problem: /access mode ReadOnlyMany/ },
      { spec: {}, size: '100Mi', params: { basePath: '/d', fsType: 'xfs' }, problem: /needs at least 300 MiB for xfs/ },
    ];
    for (const c of cases) {
      const result = await plugin(fake).provision(provisionOptionsFor(testClaim({ spec: c.spec, size: c.size }), testClass(loopProvisioner, c.params)));
      expect(result.error?.message, JSON.stringify(c.params)).toMatch(c.problem);
    }
    expect(fake.files.size + fake.loops.size).toBe(0);
    expect(await assets.count()).toBe(0);
  });

  const steps: OsOperation[] = ['truncate', 'losetupAttach', 'mkfs', 'mkdir', 'mount'];
  it.each(steps)('a failure in %s leaves nothing behind', async (op) => {
    const fake = new FakeOs({ hostname: NODE });
    const faulty = new FaultyOs(fake);
    faulty.failNext(op, 1, (args) => op !== 'mkdir' || String(args[0]).includes('/mounts/'));
    const result = await plugin(faulty).provision(provisionOptionsFor(testClaim({ size: '4Mi' }), testClass(loopProvisioner, { basePath: '/d' })));
    expect(result.error?.message).toContain(`injected failure: ${op}`);
    expect({ files: fake.files.size, loops: fake.loops.size, mounts: fake.mounts.size, records: await assets.count() }).toEqual({ files: 0, loops: 0, mounts: 0, records: 0 });
  });
});
