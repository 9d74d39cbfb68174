// Which changes the resource quota controller hears: every quota change; a claim change
// only in a namespace with a quota, and only when it moves the claim's usage (created,
// deleted, its class or requested storage changed), as upstream's replenishment; another
// counted kind's object when it comes or goes there (a snapshot also when its restoreSize
// changes). Until its first list is in, every change counts.
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
const snapshot = (namespace: string, name: string, restoreSize?: string): KubeObject => ({
  apiVersion: 'snapshot.storage.k8s.io/v1',
  kind: 'VolumeSnapshot',
  metadata: { namespace, name },
  spec: { source: { persistentVolumeClaimName: 'c' } },
  ...(restoreSize ? { status: { restoreSize } } : {}),
});
const change = (type: ChangeEvent['type'], object: KubeObject): ChangeEvent => ({
  type,
  rv: ++rv,
  kind: object.kind,
  namespace: object.metadata.namespace ?? '',
  name: object.metadata.name ?? '',
  object,
}) as ChangeEvent;

describe('the resource quota controller hears', () => {
  it('every change before its first list, then only what can move a quota', async () => {
    const spec = resourceQuotaSpec({ store: t.store });
    const keysFor = spec.watch.keysFor;
    expect(spec.watch.kinds).toEqual(expect.arrayContaining(['ResourceQuota', 'PersistentVolumeClaim', 'VolumeSnapshot', 'ConfigMap', 'SnapshotSchedule']));
    expect(spec.watch.kinds).not.toContain('Event');
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
      ['a snapshot made where a quota is', change('ADDED', snapshot('limited', 's')), ['ns/limited']],
      ['the same snapshot given its restoreSize', change('MODIFIED', snapshot('limited', 's', '1Gi')), ['ns/limited']],
      ['the same snapshot changed otherwise', change('MODIFIED', { ...snapshot('limited', 's', '1Gi'), metadata: { namespace: 'limited', name: 's', labels: { a: 'b' } } }), []],
      ['the same snapshot deleted', change('DELETED', snapshot('limited', 's', '1Gi')), ['ns/limited']],
      ['a configmap made where a quota is', change('ADDED', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'limited', name: 'm' } }), ['ns/limited']],
      ['a configmap changed (its count unchanged)', change('MODIFIED', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'limited', name: 'm' }, data: { a: 'b' } }), []],
      ['a pod made in a namespace without a quota', change('ADDED', { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: 'other', name: 'p' } }), []],
    ];
    for (const [what, e, keys] of rows) expect(keysFor(e), what).toEqual(keys);
  });
});
