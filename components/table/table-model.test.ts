import { describe, expect, test } from 'vitest';
import { strategyForKind } from '@/server/resources/registry';
import type { KubeObject } from '@/server/resources/types';
import { buildRow, chosenColumns, clampedNow, defaultColumnHeaders } from './table-model';

const pvStrategy = strategyForKind('PersistentVolume')!;
const pv = (created: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'a', creationTimestamp: created, labels: { tier: 'gold' } },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] },
  status: { phase: 'Available' },
});

describe('AGE never reads <invalid>', () => {
  test.each([
    { name: 'server clock 30s ahead', created: '2026-01-01T00:00:30Z', now: '2026-01-01T00:00:00Z', age: '0s' },
    { name: 'ordinary', created: '2026-01-01T00:00:00Z', now: '2026-01-01T00:01:00Z', age: '60s' },
  ])('$name', ({ created, now, age }) => {
    const cols = chosenColumns(pvStrategy, ['NAME', 'AGE']);
    expect(buildRow(pvStrategy, cols, pv(created), new Date(now)).cells).toEqual(['a', age]);
  });
  test('clampedNow keeps a later now', () => {
    const now = new Date('2026-02-01T00:00:00Z');
    expect(clampedNow(pv('2026-01-01T00:00:00Z'), now)).toBe(now);
  });
});

describe('columns', () => {
  test('defaults are kubectl\'s less the nearly always empty ones, with the dashboard\'s USED after CAPACITY and REPLICAS last', () => {
    expect(defaultColumnHeaders(pvStrategy)).toEqual(['NAME', 'CAPACITY', 'USED', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'AGE', 'REPLICAS']);
  });
  test('REPLICAS: a volume\'s from its own annotations, a claim\'s from its page\'s map, "—" when not replicated', () => {
    const now = new Date('2026-01-01T00:01:35Z');
    const ann = { 'replication.stowage.io/active-node': 'node-a', 'replication.stowage.io/epoch': '2', 'replication.stowage.io/replicas': JSON.stringify([{ node: 'node-b', state: 'Behind', lastSyncTime: '2026-01-01T00:00:00Z' }]) };
    const replicated = { ...pv('2026-01-01T00:00:00Z'), metadata: { name: 'a', annotations: ann } };
    const cols = chosenColumns(pvStrategy, ['NAME', 'REPLICAS']);
    expect(buildRow(pvStrategy, cols, replicated, now).cells).toEqual(['a', '1/2 · behind 95 s']);
    expect(buildRow(pvStrategy, cols, pv('2026-01-01T00:00:00Z'), now).cells).toEqual(['a', '—']);
    const pvcStrategy = strategyForKind('PersistentVolumeClaim')!;
    const claim: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'ns' }, spec: {} };
    const ccols = chosenColumns(pvcStrategy, ['NAME', 'REPLICAS']);
    expect(buildRow(pvcStrategy, ccols, claim, now, undefined, { 'ns/c': ann }).cells).toEqual(['c', '1/2 · behind 95 s']);
    expect(buildRow(pvcStrategy, ccols, claim, now, undefined, {}).cells).toEqual(['c', '—']);
  });
  test('a chosen label column reads the label; unknown headers are dropped; NAME stays first', () => {
    const cols = chosenColumns(pvStrategy, ['label:tier', 'NOPE', 'VOLUMEMODE', 'label:__proto__']);
    expect(cols.map((c) => c.header)).toEqual(['NAME', 'label:tier', 'VOLUMEMODE', 'label:__proto__']);
    expect(buildRow(pvStrategy, cols, pv('2026-01-01T00:00:00Z'), new Date()).cells).toEqual(['a', 'gold', '<unset>', '']);
  });
});
