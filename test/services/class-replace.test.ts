// "Replace in place" of a StorageClass on a real Postgres: one transaction deletes the
// class and creates the changed one under the same name; a stale version, an invalid
// class or a non-admin changes nothing; the default mark moves; a dry run checks it all.
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import type { Principal } from '../../server/domain/authorization';
import type { KubeObject } from '../../server/resources/types';
import { ClassReplaceService, replacementOf, replaceSteps } from '../../server/services/class-replace';
import { isKind } from '../../server/resources/of-kind';
import { openTestApp } from '../app';
import { sqlOf } from '../../server/store/sql-handle';

let app: Awaited<ReturnType<typeof openTestApp>>;
let svc: ClassReplaceService;
const admin: Principal = { type: 'user', id: 'a', name: 'admin', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: 'd', name: 'dev', role: 'developer', namespaces: ['default'] };
const viewer: Principal = { type: 'user', id: 'v', name: 'viewer', role: 'viewer', namespaces: [] };
const DEFAULT = 'storageclass.kubernetes.io/is-default-class';

let n = 0;
const unique = (p: string) => `${p}-${++n}`;

function sc(name: string, extra: Partial<KubeObject> & { annotations?: Record<string, string> } = {}): KubeObject {
  const { annotations, ...rest } = extra;
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name, ...(annotations ? { annotations } : {}) },
    provisioner: 'example.com/disks',
    parameters: { tier: 'gold' },
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'Immediate',
    ...rest,
  };
}

const get = (name: string) => app.store.tryGet('StorageClass', undefined, name);
const historyOf = (name: string) =>
  sqlOf(app.store).$queryRawUnsafe<{ action: string; actor: string; uid: string }[]>(
    `SELECT action, actor, uid FROM history WHERE kind = 'StorageClass' AND name = $1 ORDER BY rv`,
    name,
  );

beforeAll(async () => {
  app = await openTestApp();
  svc = new ClassReplaceService(app.store);
});
afterAll(async () => app?.close());

describe('replacementOf and replaceSteps (pure)', () => {
  it.each([
    { name: 'keeps the name, drops what the store sets', input: sc('a', { metadata: { name: 'a', uid: 'u', resourceVersion: '9', creationTimestamp: 'x', generation: 3 } }), makeDefault: false, want: { name: 'a' } },
    { name: 'no name given: takes the name', input: { ...sc('a'), metadata: {} }, makeDefault: false, want: { name: 'a' } },
    { name: 'the default mark only when asked', input: sc('a', { annotations: { [DEFAULT]: 'true', 'storageclass.beta.kubernetes.io/is-default-class': 'true', note: 'x' } }), makeDefault: false, want: { name: 'a', annotations: { note: 'x' } } },
    { name: 'made default', input: sc('a'), makeDefault: true, want: { name: 'a', annotations: { [DEFAULT]: 'true' } } },
  ])('$name', ({ input, makeDefault, want }) => {
    expect(replacementOf(input, 'a', makeDefault).metadata).toEqual(want);
  });

  it.each([
    { name: 'another name', input: sc('b'), message: /must keep the name a/ },
    { name: 'another kind', input: { ...sc('a'), kind: 'PersistentVolume' }, message: /must be a StorageClass/ },
  ])('refuses $name', ({ input, message }) => {
    expect(() => replacementOf(input, 'a', false)).toThrow(message);
  });

  it.each([
    { name: 'plain', original: sc('a'), makeDefault: false, others: [], want: ['delete class a (version 7)', 'create class a with the changes (claims and volumes naming a keep working)'] },
    { name: 'made default, moving the mark', original: sc('a'), makeDefault: true, others: ['b'], want: ['delete class a (version 7)', 'create class a with the changes (claims and volumes naming a keep working)', 'a becomes the default class', 'b stops being a default class'] },
    { name: 'a default that stays one', original: sc('a', { annotations: { [DEFAULT]: 'true' } }), makeDefault: true, others: [], want: ['delete class a (version 7)', 'create class a with the changes (claims and volumes naming a keep working)', 'a stays the default class'] },
    { name: 'a default that stops being one', original: sc('a', { annotations: { [DEFAULT]: 'true' } }), makeDefault: false, others: [], want: ['delete class a (version 7)', 'create class a with the changes (claims and volumes naming a keep working)', 'a stops being the default class'] },
  ])('steps: $name', ({ original, makeDefault, others, want }) => {
    const o = { ...original, metadata: { ...original.metadata, resourceVersion: '7' } };
    expect(replaceSteps(o, makeDefault, others)).toEqual([...want, 'all in one transaction: if any step fails, nothing is changed']);
  });
});

describe('replace in place', () => {
  test('deletes and creates under the same name in one transaction; the changed fields take', async () => {
    const name = unique('gold');
    const original = await app.store.create(sc(name));
    const changed = { ...sc(name), parameters: { tier: 'platinum' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' };
    const res = await svc.replaceInPlace(admin, { name, resourceVersion: original.metadata.resourceVersion!, replacement: changed, makeDefault: false });
    expect(res.dryRun).toBe(false);
    const now = (await get(name))!;
    expect(now).toMatchObject({ parameters: { tier: 'platinum' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' });
    expect(now.metadata.uid).not.toBe(original.metadata.uid);
    expect(now.metadata.uid).toBe(res.class.metadata.uid);
    const rows = await historyOf(name);
    expect(rows.map((r) => [r.action, r.actor])).toEqual([
      ['create', 'system'],
      ['delete', 'user:admin'],
      ['create', 'user:admin'],
    ]);
    // One transaction: the delete and the create are consecutive versions.
    const rvs = await sqlOf(app.store).$queryRawUnsafe<{ rv: string }[]>(`SELECT rv::text AS rv FROM history WHERE kind = 'StorageClass' AND name = $1 ORDER BY rv`, name);
    expect(BigInt(rvs[2].rv) - BigInt(rvs[1].rv)).toBe(1n);
  });

  test('a dry run checks it all and writes nothing', async () => {
    const name = unique('dry');
    const original = await app.store.create(sc(name));
    const res = await svc.replaceInPlace(admin, { name, resourceVersion: original.metadata.resourceVersion!, replacement: { ...sc(name), parameters: { tier: 'x' } }, makeDefault: false, dryRun: true });
    expect(res).toMatchObject({ dryRun: true, class: { parameters: { tier: 'x' } } });
    expect(await get(name)).toEqual(original);
    expect(await historyOf(name)).toHaveLength(1);
  });

  test('a stale version is a Conflict and nothing is written', async () => {
    const name = unique('stale');
    const original = await app.store.create(sc(name));
    const touched = await app.store.update({ ...original, metadata: { ...original.metadata, labels: { touched: 'yes' } } });
    for (const dryRun of [true, false]) {
      await expect(
        svc.replaceInPlace(admin, { name, resourceVersion: original.metadata.resourceVersion!, replacement: { ...sc(name), parameters: { tier: 'x' } }, makeDefault: false, dryRun }),
      ).rejects.toMatchObject({ code: 'Conflict', message: expect.stringMatching(/changed since the preview .*preview again/) });
    }
    expect(await get(name)).toEqual(touched);
  });

  test('an invalid class is refused by the kind’s validation, in the dry run as in the write, and nothing is written', async () => {
    const name = unique('bad');
    const original = await app.store.create(sc(name));
    for (const dryRun of [true, false]) {
      await expect(
        svc.replaceInPlace(admin, { name, resourceVersion: original.metadata.resourceVersion!, replacement: { ...sc(name), reclaimPolicy: 'Recycle' }, makeDefault: false, dryRun }),
      ).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining('reclaimPolicy') });
      // An in-tree provisioner's own parameter rules run too.
      await expect(
        svc.replaceInPlace(admin, { name, resourceVersion: original.metadata.resourceVersion!, replacement: { ...sc(name), provisioner: 'stowage.io/host-path', parameters: { basePath: 'relative/path' } }, makeDefault: false, dryRun }),
      ).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining('basePath') });
    }
    expect(await get(name)).toEqual(original);
    expect(await historyOf(name)).toHaveLength(1);
  });

  test('the admission a create runs is run, dry run included', async () => {
    const name = unique('admit');
    const original = await app.store.create(sc(name));
    const strict = new ClassReplaceService(app.store, async (o) => (isKind(o, 'StorageClass') && o.parameters?.tier === 'lead' ? [{ field: 'parameters.tier', reason: 'FieldValueInvalid', message: 'Invalid value: "lead": no such tier here' }] : []));
    for (const dryRun of [true, false]) {
      await expect(
        strict.replaceInPlace(admin, { name, resourceVersion: original.metadata.resourceVersion!, replacement: { ...sc(name), parameters: { tier: 'lead' } }, makeDefault: false, dryRun }),
      ).rejects.toMatchObject({ code: 'Invalid', message: expect.stringContaining('no such tier here') });
    }
    expect(await get(name)).toEqual(original);
  });

  test('non-admins are refused before anything is read; nothing is written', async () => {
    const name = unique('mine');
    const original = await app.store.create(sc(name));
    for (const p of [dev, viewer, { ...dev, role: 'developer' as const, namespaces: [] }]) {
      expect(() => svc.authorize(p, name)).toThrow(/forbidden/);
      await expect(
        svc.replaceInPlace(p, { name, resourceVersion: original.metadata.resourceVersion!, replacement: { ...sc(name), parameters: { tier: 'x' } }, makeDefault: true }),
      ).rejects.toMatchObject({ code: 'Forbidden' });
    }
    expect(await get(name)).toEqual(original);
  });

  test('the default mark moves: made default, every other default stops being one; a default replaced without it loses it', async () => {
    const a = unique('def-a');
    const b = unique('def-b');
    await app.store.create(sc(a, { annotations: { [DEFAULT]: 'true' } }));
    const bOrig = await app.store.create(sc(b));
    const res = await svc.replaceInPlace(admin, { name: b, resourceVersion: bOrig.metadata.resourceVersion!, replacement: { ...sc(b), parameters: { tier: 'new' } }, makeDefault: true });
    expect(res.steps).toContain(`${a} stops being a default class`);
    expect((await get(b))!.metadata.annotations).toEqual({ [DEFAULT]: 'true' });
    expect((await get(a))!.metadata.annotations?.[DEFAULT]).toBeUndefined();
    const defaults = (await app.store.list('StorageClass')).items.filter((c) => c.metadata.annotations?.[DEFAULT] === 'true').map((c) => c.metadata.name);
    expect(defaults).toEqual([b]);

    const bNow = (await get(b))!;
    const off = await svc.replaceInPlace(admin, { name: b, resourceVersion: bNow.metadata.resourceVersion!, replacement: { ...sc(b), parameters: { tier: 'newer' } }, makeDefault: false });
    expect(off.steps).toContain(`${b} stops being the default class`);
    expect((await get(b))!.metadata.annotations).toBeUndefined();
  });

  test('a class that is gone is NotFound', async () => {
    await expect(svc.replaceInPlace(admin, { name: 'never-was', resourceVersion: '1', replacement: sc('never-was'), makeDefault: false })).rejects.toMatchObject({ code: 'NotFound' });
    expect(await get('never-was')).toBeUndefined();
  });
});
