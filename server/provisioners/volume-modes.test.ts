// What the node-local plugins make for a volume is its owner's only, on real directories and
// loop devices: a host-path snapshot is 0700 even of a volume whose class made it wider (0755), a
// restore takes its class's mode, a loop image (volume, snapshot, restore) is 0600.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../../test/db';
import { loopProvisioner } from '../domain/well-known/provisioners';
import { sqlOf } from '../store/sql-handle';
import { AssetStore } from '../store/provisioned-assets';
import { createHostPathPlugin } from './host-path';
import { createLoopPlugin } from './loop';
import { createRealOs } from './os';
import { provisionOptionsFor, type ProvisionerPlugin } from './plugin';
import { releaseAndWarn, testClaim, testClass } from './testing';

const NODE = 'node-a';
const real = createRealOs(NODE);
const loop = await real.loopSupport();
if (!loop.ok) console.log(`[skip] modes of ${loopProvisioner} images: ${loop.reason}`);

let ts: TestStore;
let assets: AssetStore;
let dir: string;

beforeAll(async () => {
  ts = await openTestStore();
  assets = new AssetStore(ts.store);
});
afterAll(async () => ts.close());
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-modes-'));
  await sqlOf(ts.store).$executeRawUnsafe('DELETE FROM provisioned_assets');
});
afterEach(() => releaseAndWarn(dir));

const modeOf = async (p: string) => (await fs.stat(p)).mode & 0o777;

/** A volume made by `p`, then a snapshot of it, then a restore of that snapshot (each with the class's parameters). */
async function volumeSnapshotRestore(p: ProvisionerPlugin, parameters: Record<string, string>, restoreParameters = parameters, volumeMode?: 'Block') {
  const claim = testClaim({ name: 'data', size: '8Mi', ...(volumeMode ? { spec: { volumeMode } } : {}) });
  const made = await p.provision(provisionOptionsFor(claim, testClass(p.name, parameters)));
  if (!made.volume) throw made.error;
  const pvName = `pvc-${claim.metadata.uid}`;
  const snap = await p.snapshots!.create({ contentName: 'snapcontent-1', pvName, sizeBytes: 8n << 20n });
  if (snap.state !== 'ready') throw new Error(`snapshot ${snap.state}`);
  const restoreClaim = testClaim({ name: 'back', size: '8Mi', ...(volumeMode ? { spec: { volumeMode } } : {}) });
  const restored = await p.provision({
    ...provisionOptionsFor(restoreClaim, testClass(p.name, restoreParameters)),
    source: { kind: 'snapshot', contentName: 'snapcontent-1', handle: snap.snapshot.handle },
  });
  if (!restored.volume) throw restored.error;
  return { volume: made.volume, snapshot: snap.snapshot.handle, restore: restored.volume };
}

describe('stowage.io/host-path', () => {
  it('a snapshot of a volume its class made 0755 is 0700; a restore takes its own class\'s mode (0700 by default)', async () => {
    const p = createHostPathPlugin({ os: real, assets, nodeName: NODE });
    const base = path.join(dir, 'volumes');
    const r = await volumeSnapshotRestore(p, { basePath: base, mode: '0755' }, { basePath: base });
    expect(await modeOf(String(r.volume.asset.path))).toBe(0o755);
    expect(await modeOf(r.snapshot)).toBe(0o700);
    expect(await modeOf(path.dirname(r.snapshot))).toBe(0o700);
    expect(await modeOf(String(r.restore.asset.path))).toBe(0o700);
  });
});

describe.skipIf(!loop.ok)('stowage.io/loop on real loop devices', () => {
  it('the image of a volume, of its snapshot and of a restore are 0600', async () => {
    const p = createLoopPlugin({ os: real, assets, nodeName: NODE });
    const r = await volumeSnapshotRestore(p, { basePath: path.join(dir, 'volumes') }, undefined, 'Block');
    expect(await modeOf(String(r.volume.asset.file))).toBe(0o600);
    expect(await modeOf(r.snapshot)).toBe(0o600);
    expect(await modeOf(String(r.restore.asset.file))).toBe(0o600);
  });

  it('an image left 0644 (made before this rule) is 0600 once its volume is made again', async () => {
    const p = createLoopPlugin({ os: real, assets, nodeName: NODE });
    const claim = testClaim({ name: 'data', size: '8Mi', spec: { volumeMode: 'Block' } });
    const options = provisionOptionsFor(claim, testClass(loopProvisioner, { basePath: path.join(dir, 'volumes') }));
    const made = await p.provision(options);
    if (!made.volume) throw made.error;
    const file = String(made.volume.asset.file);
    await fs.chmod(file, 0o644);
    await sqlOf(ts.store).$executeRawUnsafe("UPDATE provisioned_assets SET state = 'creating'");
    const again = await p.provision(options);
    if (!again.volume) throw again.error;
    expect(await modeOf(file)).toBe(0o600);
  });
});

