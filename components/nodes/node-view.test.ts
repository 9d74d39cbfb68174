import { describe, expect, test } from 'vitest';
import type { NodeCopy } from '@/server/domain/node-copies';
import { copyText, pageCount, poolsPerNode } from './node-view';

describe('copyText', () => {
  const cases: { name: string; c: NodeCopy; want: string }[] = [
    { name: 'a pinned volume', c: { role: 'only' }, want: 'only copy' },
    { name: 'active with two replicas', c: { role: 'active', replicas: 2 }, want: 'active copy · 2 replicas' },
    { name: 'active with one replica', c: { role: 'active', replicas: 1 }, want: 'active copy · 1 replica' },
    { name: 'active, replicas not made yet', c: { role: 'active', replicas: 0 }, want: 'active copy · no replica yet' },
    { name: 'replica in sync', c: { role: 'replica', state: 'InSync', behindSeconds: 1 }, want: 'in sync' },
    { name: 'replica behind', c: { role: 'replica', state: 'Behind', behindSeconds: 300 }, want: '5 min behind' },
    { name: 'replica rebuilding with progress', c: { role: 'replica', state: 'Rebuilding', progress: { doneBytes: String(400 * 1024 ** 2), totalBytes: String(1024 ** 3) } }, want: 'rebuilding 39% (400 MiB of 1 GiB)' },
    { name: 'replica rebuilding, nothing measured', c: { role: 'replica', state: 'Rebuilding', progress: { doneBytes: '0', totalBytes: '0' } }, want: 'rebuilding' },
    { name: 'replica on an unreachable node', c: { role: 'replica', state: 'Unreachable', behindSeconds: 30 }, want: 'unreachable · 30 s behind' },
    { name: 'replica never synced', c: { role: 'replica', state: 'Behind' }, want: 'no transfer yet' },
    { name: 'fenced copy', c: { role: 'replica', state: 'Fenced' }, want: 'fenced: an old copy, not used' },
  ];
  test.each(cases)('$name', ({ c, want }) => expect(copyText(c)).toBe(want));
});

describe('pageCount', () => {
  test.each([
    ['nothing: one page', 0, 50, 1],
    ['fewer than a page', 7, 50, 1],
    ['exactly a page', 50, 50, 1],
    ['one over', 51, 50, 2],
    ['ten thousand', 10_000, 50, 200],
    ['garbage total', Number.NaN, 50, 1],
  ])('%s', (_n, total, size, want) => expect(pageCount(total, size)).toBe(want));
});

describe('poolsPerNode', () => {
  const cap = (node?: string): { metadata: { labels?: Record<string, string> } } => ({ metadata: { labels: node ? { 'pool.stowage.io/node': node } : {} } });
  test.each([
    ['none', [], []],
    ['one node, two classes', [cap('n1'), cap('n1')], [['n1', 2]]],
    ['two nodes; an unlabelled object is not a pool', [cap('n1'), cap('n2'), cap()], [['n1', 1], ['n2', 1]]],
  ])('%s', (_n, items, want) => expect([...poolsPerNode(items, 'pool.stowage.io/node')]).toEqual(want));
});
