// Volume expansion end to end on real Postgres and real disks: a loop volume's file, loop
// device and ext4 filesystem really grow (the data on it stays), the claim walks through
// the resizer's stages, a failure is reported on the claim and retried; host-path growth is
// accounting only; the admission rules refuse what upstream refuses.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserPrincipal } from '../../server/domain/authorization';
import { createRealOs } from '../../server/provisioners/os';
import { ObjectService } from '../../server/services/objects';
import { openHarness, waitFor, type Harness } from './harness';
import { hostPathProvisioner, loopProvisioner } from '../../server/domain/well-known/provisioners';
import type { PersistentVolumeClaim } from '../../server/resources/persistent-volume-claim/schema';

const admin: UserPrincipal = { type: 'user', id: 'test-admin', name: 'admin', role: 'admin', namespaces: [] };
let h: Harness;
let objects: ObjectService;
beforeAll(async () => {
  h = await openHarness();
  objects = new ObjectService(h.ts.store);
  await h.start();
});
afterAll(async () => h?.close());

async function resize(name: string, size: string): Promise<PersistentVolumeClaim> {
  const c = (await h.claim(name))!;
  // update returns the claim it stored.
  return objects.update(admin, { ...c, spec: { ...c.spec, resources: { requests: { storage: size } } } });
}

async function reaches(name: string, size: string): Promise<PersistentVolumeClaim> {
  try {
    return await waitFor(`claim ${name} at ${size}`, async () => {
      const c = await h.claim(name);
      return c?.status?.capacity?.storage === size ? c : undefined;
    });
  } catch (e) {
    const events = (await h.events(name)).map((x) => `${x.reason}: ${x.message}`);
    throw new Error(`${String(e)}; claim status ${JSON.stringify((await h.claim(name))?.status)}; events: ${events.join(' | ')}`, { cause: e });
  }
}

describe('admission of a resize', () => {
  it("refuses growing a claim whose class does not allow expansion, with upstream's Forbidden message; refuses shrinking", async () => {
    await h.createClass('fixed', hostPathProvisioner, { basePath: h.base });
    await h.createClaim('fixed-size', 'fixed', { size: '1Mi' });
    await h.waitBound('fixed-size');
    const err = await resize('fixed-size', '2Mi').catch((e) => e);
    expect(err.code).toBe('Forbidden');
    expect(err.message).toBe(
      'persistentvolumeclaims "fixed-size" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
    const shrink = await resize('fixed-size', '512Ki').catch((e) => e);
    expect(shrink.code).toBe('Invalid');
    expect(JSON.stringify(shrink.details)).toContain('field can not be less than status.capacity');
    expect((await h.claim('fixed-size'))?.spec!.resources!.requests!.storage).toBe('1Mi');
  });

  it('refuses growing an unbound claim (its spec is immutable)', async () => {
    await h.createClass('elastic-missing', 'example.com/absent', {}, { allowVolumeExpansion: true });
    await h.createClaim('unbound', 'elastic-missing', { size: '1Mi' });
    const err = await resize('unbound', '2Mi').catch((e) => e);
    expect(err.code).toBe('Invalid');
    expect(JSON.stringify(err.details)).toContain('spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims');
  });
});

describe('stowage.io/host-path expansion', () => {
  it('records the new size on claim and volume and says it is accounting only', async () => {
    await h.createClass('hp-elastic', hostPathProvisioner, { basePath: h.base }, { allowVolumeExpansion: true });
    await h.createClaim('notes', 'hp-elastic', { size: '1Mi' });
    const { volume } = await h.waitBound('notes');
    await resize('notes', '3Mi');
    const c = await reaches('notes', '3Mi');
    expect(c.status!.allocatedResources).toEqual({ storage: '3Mi' });
    expect(c.status!.conditions ?? []).toEqual([]);
    expect((await h.volume(volume.metadata.name!))?.spec!.capacity!.storage).toBe('3Mi');
    const note = await waitFor('the accounting-only event', async () => {
      const evs = await h.events('notes', 'ExpansionAccountingOnly');
      return evs.length > 0 ? evs : undefined;
    });
    expect(note[0]?.message).toBe('stowage.io/host-path volumes are plain directories: the new size is accounting only, nothing limits the data to it');
    expect(await h.events('notes', 'VolumeResizeSuccessful')).toHaveLength(1);
  });
});

const loop = await createRealOs().loopSupport();
if (!loop.ok) console.log(`[skip] loop-volume expansion tests: ${loop.reason}`);

describe.skipIf(!loop.ok)('stowage.io/loop expansion', () => {
  it('grows the file, the loop device and the ext4 filesystem; the data stays; the claim shows each stage', async () => {
    await h.createClass('loop-elastic', loopProvisioner, { basePath: h.base, fsType: 'ext4' }, { allowVolumeExpansion: true });
    await h.createClaim('growing', 'loop-elastic', { size: '8Mi' });
    const { volume } = await h.waitBound('growing');
    const mount = volume.spec!.local!.path as string;
    const before = await fs.statfs(mount);
    await fs.writeFile(path.join(mount, 'kept.txt'), 'still here');

    await resize('growing', '32Mi');
    const c = await reaches('growing', '32Mi');
    expect(c.status!.allocatedResources).toEqual({ storage: '32Mi' });
    expect(c.status!.allocatedResourceStatuses).toBeUndefined();
    expect(c.status!.conditions ?? []).toEqual([]);
    const pv = (await h.volume(volume.metadata.name!))!;
    expect(pv.spec!.capacity!.storage).toBe('32Mi');

    const after = await fs.statfs(mount);
    const total = (s: typeof before) => s.blocks * s.bsize;
    expect(total(after)).toBeGreaterThan(3 * total(before));
    expect(await fs.readFile(path.join(mount, 'kept.txt'), 'utf8')).toBe('still here');
    // The last event follows the last status write.
    await waitFor('VolumeResizeSuccessful', async () => (await h.events('growing', 'VolumeResizeSuccessful')).length > 0);
    const reasons = (await h.events('growing')).map((e) => e.reason);
    for (const r of ['Resizing', 'FileSystemResizeRequired', 'FileSystemResizeSuccessful', 'VolumeResizeSuccessful']) expect(reasons).toContain(r);
  });

  it('a failed grow is reported on the claim (ControllerResizeError, VolumeResizeFailed) and retried until it works', async () => {
    await h.createClass('loop-elastic-2', loopProvisioner, { basePath: h.base, fsType: 'ext4' }, { allowVolumeExpansion: true });
    await h.createClaim('flaky', 'loop-elastic-2', { size: '8Mi' });
    await h.waitBound('flaky');
    h.os.failNext('losetupResize', 2);
    await resize('flaky', '16Mi');
    const failed = await waitFor('the failure on the claim', async () => {
      const evs = await h.events('flaky', 'VolumeResizeFailed');
      return evs.length > 0 ? evs[0] : undefined;
    });
    expect(failed.message).toMatch(/^resize volume "pvc-[^"]+" by resizer "stowage.io\/loop" failed: /);
    const c = await reaches('flaky', '16Mi');
    expect(c.status!.conditions ?? []).toEqual([]);
  });
});
