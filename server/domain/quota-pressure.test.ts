import { describe, expect, test } from 'vitest';
import { limitsNearFull } from './quota-pressure';

describe('limitsNearFull', () => {
  test.each([
    { name: 'under 80%: nothing', hard: { 'requests.storage': '10Gi' }, used: { 'requests.storage': '7Gi' }, want: [] },
    { name: 'exactly 80%: near full', hard: { 'requests.storage': '10Gi' }, used: { 'requests.storage': '8Gi' }, want: [['requests.storage', 0.8]] },
    { name: 'over the limit counts', hard: { persistentvolumeclaims: '2' }, used: { persistentvolumeclaims: '3' }, want: [['persistentvolumeclaims', 1.5]] },
    { name: 'mixed units compare in bytes', hard: { 'requests.storage': '1G' }, used: { 'requests.storage': '900Mi' }, want: [['requests.storage', 0.943]] },
    { name: 'per-class storage counts', hard: { 'fast.storageclass.storage.k8s.io/requests.storage': '5Gi' }, used: { 'fast.storageclass.storage.k8s.io/requests.storage': '5Gi' }, want: [['fast.storageclass.storage.k8s.io/requests.storage', 1]] },
    { name: 'non-storage resources are ignored', hard: { pods: '2', 'requests.cpu': '1' }, used: { pods: '2', 'requests.cpu': '1' }, want: [] },
    { name: 'missing used counts as zero', hard: { 'requests.storage': '10Gi' }, used: {}, want: [] },
    { name: 'a zero limit is full', hard: { persistentvolumeclaims: '0' }, used: {}, want: [['persistentvolumeclaims', 1]] },
    {
      name: 'fullest first',
      hard: { 'requests.storage': '10Gi', persistentvolumeclaims: '10' },
      used: { 'requests.storage': '9Gi', persistentvolumeclaims: '10' },
      want: [['persistentvolumeclaims', 1], ['requests.storage', 0.9]],
    },
  ])('$name', ({ hard, used, want }) => {
    expect(limitsNearFull(hard, used).map((l) => [l.resource, l.ratio])).toEqual(want);
  });
});
