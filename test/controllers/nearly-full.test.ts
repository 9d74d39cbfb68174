// "Claim nearly full" on a real Postgres with the controller running: usage reports past
// the threshold write one Warning event per crossing on the claim, the home page lists the
// claim (a developer: their namespaces' only), and the threshold is an administrator's
// setting with the environment's default.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Principal } from '../../server/domain/authorization';
import { Manager } from '../../server/controllers/runtime/manager';
import { nearlyFullSpec, syncNearlyFull, type NearlyFullDeps } from '../../server/controllers/volume-usage/nearly-full';
import type { ReconcileContext } from '../../server/controllers/runtime/controller';
import { EventRecorder } from '../../server/services/event-recorder';
import { logger } from '../../server/services/logger';
import { SettingsService } from '../../server/services/settings';
import { CapacityService } from '../../server/services/capacity';
import { openTestApp } from '../app';
import { claim, ensureNamespaces, eventsAbout, volume, waitFor } from './fixtures';

let app: Awaited<ReturnType<typeof openTestApp>>;
let controllers: Manager;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['team-a'] };
const Mi = 1024 * 1024;

async function bound(ns: string, name: string, pvName: string, size: string) {
  const c = await app.store.create(claim(ns, name, size, { storageClassName: 'manual', volumeName: pvName }));
  await app.store.update({ ...c, status: { phase: 'Bound', capacity: { storage: size } } }, { subresource: 'status' });
  const v = await app.store.create(volume(pvName, size, { storageClassName: 'manual', claimRef: { namespace: ns, name, uid: c.metadata.uid } }));
  await app.store.update({ ...v, status: { phase: 'Bound' } }, { subresource: 'status' });
}

/** A usage report, as an agent's or a plugin's write leaves it on the volume. */
async function report(pvName: string, bytes: number) {
  const v = await app.store.get('PersistentVolume', undefined, pvName);
  const annotations = { ...v.metadata.annotations, 'stowage.io/used-bytes': String(bytes), 'stowage.io/used-bytes-time': new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') };
  await app.store.update({ ...v, metadata: { ...v.metadata, annotations } });
}

const marked = async (pvName: string) => (await app.store.get('PersistentVolume', undefined, pvName)).metadata.annotations?.['stowage.io/nearly-full'] !== undefined;
const warnings = async (ns: string, name: string) =>
  (await eventsAbout(app, claim(ns, name, '1Mi'))).filter((e) => e.reason === 'VolumeNearlyFull').reduce((n, e) => n + (e.count ?? 1), 0);

const deps = (): NearlyFullDeps => ({ store: app.store, settings: app.settings, events: new EventRecorder(app.store, 'stowage-volume-usage', logger) });
const ctx: ReconcileContext = { controller: 'test', signal: new AbortController().signal, log: logger, enqueue: () => {}, isQueued: () => false, wrote: () => {} };

beforeAll(async () => {
  app = await openTestApp();
  await ensureNamespaces(app, 'team-a', 'team-b');
  await bound('team-a', 'data', 'pv-data', '100Mi');
  await bound('team-b', 'logs', 'pv-logs', '100Mi');
  controllers = new Manager({
    store: app.store,
    log: logger,
    specs: () => [nearlyFullSpec(deps(), { resyncMs: 500 })],
    leaderElection: false,
  });
  await controllers.start();
});
afterAll(async () => {
  await controllers?.stop();
  await app?.close();
});

describe('claim nearly full', () => {
  test('one Warning per crossing, with used and capacity; none while it stays past the mark', async () => {
    await report('pv-data', 50 * Mi);
    await report('pv-data', 91 * Mi);
    await waitFor('the claim warned and the volume marked', async () => (await marked('pv-data')) && (await warnings('team-a', 'data')) === 1);
    const [e] = (await eventsAbout(app, claim('team-a', 'data', '1Mi'))).filter((x) => x.reason === 'VolumeNearlyFull');
    expect(e).toMatchObject({ type: 'Warning', message: 'volume is 91% full: 91Mi used of 100Mi (warning at 90%); expand the claim or free space' });
    // More reports past the mark: each look at the volume finds nothing to do.
    for (const used of [95, 99]) {
      await report('pv-data', used * Mi);
      expect(await syncNearlyFull(deps(), ctx, 'pv-data')).toBe('unchanged');
    }
    expect(await warnings('team-a', 'data')).toBe(1);
    // Below the mark the crossing is forgotten; the next one warns again.
    await report('pv-data', 10 * Mi);
    await waitFor('the mark cleared', async () => !(await marked('pv-data')));
    await report('pv-data', 92 * Mi);
    await waitFor('a second warning', async () => (await warnings('team-a', 'data')) === 2);
  });

  test('the home page lists nearly-full claims: everyone\'s for an admin, theirs for a developer', async () => {
    await report('pv-logs', 97 * Mi);
    const all = await app.capacity.claimsNearlyFull(admin);
    expect(all.thresholdPercent).toBe(90);
    expect(all.claims.map((c) => `${c.namespace}/${c.name} ${c.percent}%`)).toEqual(['team-b/logs 97%', 'team-a/data 92%']);
    expect(all.claims[0]).toMatchObject({ volume: 'pv-logs', usedBytes: String(97 * Mi), capacityBytes: String(100 * Mi) });
    const mine = await app.capacity.claimsNearlyFull(dev);
    expect(mine.claims.map((c) => `${c.namespace}/${c.name}`)).toEqual(['team-a/data']);
    expect(mine.claims[0].volume).toBeUndefined();
  });

  test('the threshold is an administrator\'s setting; a developer may read it, not change it', async () => {
    await expect(app.settings.update(dev, { nearlyFullPercent: 50 })).rejects.toThrow(/for administrators/);
    await expect(app.settings.update(admin, { nearlyFullPercent: 0 })).rejects.toThrow(/1 to 100/);
    expect(await app.settings.update(admin, { nearlyFullPercent: 95 })).toMatchObject({ nearlyFullPercent: 95, nearlyFullSource: 'setting', updatedBy: 'user:admin' });
    expect((await app.settings.get(dev)).nearlyFullPercent).toBe(95);
    // The home list follows at once (a fresh service has no cached value).
    const fresh = new CapacityService(app.store, new SettingsService(app.store));
    expect((await fresh.claimsNearlyFull(admin)).claims.map((c) => c.name)).toEqual(['logs']);
    // The controller forgets data's crossing at its next look (92% is below 95%).
    await waitFor('data no longer marked under a 95% threshold', async () => !(await marked('pv-data')));
    expect(await marked('pv-logs')).toBe(true);
    expect(await app.settings.update(admin, { nearlyFullPercent: null })).toMatchObject({ nearlyFullPercent: 90, nearlyFullSource: 'default' });
    // The environment's default stands when nothing is set.
    expect((await new SettingsService(app.store, 75).get(dev)).nearlyFullPercent).toBe(75);
  });
});
