import { describe, expect, test } from 'vitest';
import type { KubeObject } from '@/server/resources/types';
import { poolView } from './pool-view';

function cap(annotations: Record<string, string>, capacity = '0'): KubeObject {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name: 'pool-1', namespace: 'kube-system', annotations }, storageClassName: 'pooled', capacity };
}

describe('poolView', () => {
  test('a usable pool: used and allocated as shares of the total, and the room', () => {
    const v = poolView(cap({ 'pool.stowage.io/path': '/srv/pool', 'pool.stowage.io/total-bytes': '1000', 'pool.stowage.io/free-bytes': '750', 'pool.stowage.io/allocated-bytes': '500' }, '500'));
    expect(v).toEqual({ className: 'pooled', path: '/srv/pool', totalBytes: 1000n, usedBytes: 250n, allocatedBytes: 500n, roomBytes: 500n, usedPercent: 25, allocatedPercent: 50 });
  });
  test('an unusable pool: its reason, no figures', () => {
    expect(poolView(cap({ 'pool.stowage.io/path': '/srv/pool', 'pool.stowage.io/problem': 'the path does not exist on this node' }))).toEqual({
      className: 'pooled',
      path: '/srv/pool',
      problem: 'the path does not exist on this node',
    });
  });
  test('overcommitted: shares stop at 100', () => {
    const v = poolView(cap({ 'pool.stowage.io/total-bytes': '100', 'pool.stowage.io/free-bytes': '90', 'pool.stowage.io/allocated-bytes': '300' }));
    expect(v.allocatedPercent).toBe(100);
  });
  test('garbled figures are not trusted', () => {
    expect(poolView(cap({ 'pool.stowage.io/total-bytes': 'lots', 'pool.stowage.io/free-bytes': '1' }, '1Ki'))).toEqual({ className: 'pooled', path: '', roomBytes: 1024n });
  });
});
