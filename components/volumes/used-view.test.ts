import { describe, expect, test } from 'vitest';
import type { KubeObject } from '@/server/resources/types';
import { usedOfRow, usedView } from './used-view';

describe('usedView', () => {
  test.each([
    { name: 'unknown: nothing', used: undefined, capacity: '1Gi', want: undefined },
    { name: 'garbled bytes: nothing', used: { bytes: '12x', partial: false }, capacity: '1Gi', want: undefined },
    { name: '412 MiB of 1 GiB', used: { bytes: String(412 * 2 ** 20), partial: false }, capacity: '1Gi', want: { text: '412 MiB of 1 GiB', percent: 40.23 } },
    { name: 'a partial walk is a lower bound', used: { bytes: '1536', partial: true }, capacity: '1Ki', want: { text: 'at least 1.5 KiB of 1 KiB', percent: 100 } },
    { name: 'no capacity: used alone, no bar', used: { bytes: '0', partial: false }, capacity: undefined, want: { text: '0 B' } },
  ])('$name', ({ used, capacity, want }) => {
    const got = usedView(used, capacity);
    if (!want) return expect(got).toBeUndefined();
    expect(got?.text).toBe(want.text);
    expect(got?.percent).toBe(want.percent);
  });
});

describe('usedOfRow', () => {
  const pv = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'v', annotations: { 'stowage.io/used-bytes': '1048576', 'stowage.io/used-bytes-time': '2026-11-25T00:00:00Z' } }, spec: { capacity: { storage: '4Mi' } } } as KubeObject;
  const pvc = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'a' }, spec: { resources: { requests: { storage: '2Mi' } } }, status: { phase: 'Bound', capacity: { storage: '4Mi' } } } as KubeObject;
  test.each<{ name: string; obj: KubeObject; used: Record<string, { bytes: string; partial: boolean }> | undefined; want: string | undefined }>([
    { name: 'a volume reads its own annotation', obj: pv, used: undefined, want: '1 MiB of 4 MiB' },
    { name: "a claim reads its page's map, of its provisioned capacity", obj: pvc, used: { 'a/c': { bytes: '2097152', partial: false } }, want: '2 MiB of 4 MiB' },
    { name: 'a claim missing from the map: empty', obj: pvc, used: {}, want: undefined },
  ])('$name', ({ obj, used, want }) => {
    expect(usedOfRow(obj, used)?.text).toBe(want);
  });
});
