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
  test('defaults are kubectl\'s less the nearly always empty ones, with the dashboard\'s USED after CAPACITY', () => {
    expect(defaultColumnHeaders(pvStrategy)).toEqual(['NAME', 'CAPACITY', 'USED', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'AGE']);
  });
  test('a chosen label column reads the label; unknown headers are dropped; NAME stays first', () => {
    const cols = chosenColumns(pvStrategy, ['label:tier', 'NOPE', 'VOLUMEMODE', 'label:__proto__']);
    expect(cols.map((c) => c.header)).toEqual(['NAME', 'label:tier', 'VOLUMEMODE', 'label:__proto__']);
    expect(buildRow(pvStrategy, cols, pv('2026-01-01T00:00:00Z'), new Date()).cells).toEqual(['a', 'gold', '<unset>', '']);
  });
});
