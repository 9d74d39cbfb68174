// Which changes the resource quota controller hears: every quota change; a claim change
// only in a namespace with a quota, and only when it moves the claim's usage (created,
// deleted, its class or requested storage changed), as upstream's replenishment. Until its
// first list is in, every change counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resourceQuotaSpec } from '../../server/controllers/resource-quota/resource-quota';
import type { ChangeEvent } from '../../server/store/change-feed';
import type { KubeObject } from '../../server/resources/types';
import { openTestStore, type TestStore } from '../db';

let t: TestStore;

beforeAll(async () => {
  t = await openTestStore();
  for (const name of ['limited', 'free']) await t.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await t.store.create({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { namespace: 'limited', name: 'q' }, spec: { hard: { 'requests.storage': '10Gi' } } });
});
afterAll(async () => {
  await t?.close();
});

let rv = 1000n;
const claim = (namespace: string, name: string, storage = '1Gi', storageClassName = 'fast', annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { namespace, name, annotations },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, storageClassName },
});
const change = (type: ChangeEvent['type'], object: KubeObject): ChangeEvent => ({
  type,
  rv: ++rv,
  kind: object.kind,
  namespace: object.metadata.namespace ?? '',
  name: object.metadata.name ?? '',
  object,
});

describe('the resource quota controller hears', () => {
  it('every change before its first list, then only what can move a quota', async () => {
    const spec = resourceQuotaSpec({ store: t.store });
    const keysFor = spec.watch.keysFor;
    expect(keysFor(change('MODIFIED', claim('free', 'early')))).toEqual(['ns/free']);
    expect(await spec.listKeys()).toEqual(['ns/limited']);

    const rows: [string, ChangeEvent, string[]][] = [
      ['a claim in a namespace without a quota', change('ADDED', claim('free', 'a')), []],
      ['a new claim where a quota is', change('ADDED', claim('limited', 'c')), ['ns/limited']],
      ['the same claim annotated (its usage unchanged)', change('MODIFIED', claim('limited', 'c', '1Gi', 'fast', { note: 'x' })), []],
      ['the same claim asking for more', change('MODIFIED', claim('limited', 'c', '2Gi')), ['ns/limited']],
      ['the same claim in another class', change('MODIFIED', claim('limited', 'c', '2Gi', 'slow')), ['ns/limited']],
      ['the same claim deleted', change('DELETED', claim('limited', 'c', '2Gi', 'slow')), ['ns/limited']],
      ['a claim first seen modified', change('MODIFIED', claim('limited', 'd')), ['ns/limited']],
      ['a quota made where there was none', change('ADDED', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { namespace: 'free', name: 'late' } }), ['ns/free']],
      ['then a claim there', change('MODIFIED', claim('free', 'a', '3Gi')), ['ns/free']],
      ['a cluster-scoped change', change('ADDED', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }), []],
    ];
    for (const [what, e, keys] of rows) expect(keysFor(e), what).toEqual(keys);
  });
});
