import { describe, expect, test } from 'vitest';
import { annReplicationActiveNode, annReplicationEpoch, annReplicationReplicas } from '@/server/domain/well-known/annotations';
import { readReplication } from '@/server/domain/replication';
import { progressPercent, replicaCardRows, replicaLine, replicaSummaryOf, replicasNeedingAttention } from './replica-view';

const now = new Date('2026-11-28T12:00:00Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000).toISOString();
const ann = (replicas: unknown, active = 'node-a', epoch = '3') => ({
  [annReplicationActiveNode]: active,
  [annReplicationEpoch]: epoch,
  [annReplicationReplicas]: typeof replicas === 'string' ? replicas : JSON.stringify(replicas),
});

describe('replicaSummaryOf', () => {
  test.each<{ name: string; annotations: Record<string, string> | undefined; text: string; tone: string }>([
    { name: 'no annotations: not replicated', annotations: undefined, text: '—', tone: 'none' },
    { name: 'other annotations only: not replicated', annotations: { 'stowage.io/used-bytes': '1' }, text: '—', tone: 'none' },
    { name: 'empty active node: not replicated', annotations: ann([], ''), text: '—', tone: 'none' },
    { name: 'one replica in sync: 2/2 in sync', annotations: ann([{ node: 'node-b', state: 'InSync', lastSyncTime: ago(10) }]), text: '2/2 in sync', tone: 'ok' },
    { name: 'two in sync: 3/3 in sync', annotations: ann([{ node: 'node-b', state: 'InSync' }, { node: 'node-c', state: 'InSync' }]), text: '3/3 in sync', tone: 'ok' },
    { name: 'a replica behind: 1/2 · behind 95 s', annotations: ann([{ node: 'node-b', state: 'Behind', lastSyncTime: ago(95) }]), text: '1/2 · behind 95 s', tone: 'warn' },
    { name: 'the worst of two behind counts', annotations: ann([{ node: 'node-b', state: 'Behind', lastSyncTime: ago(95) }, { node: 'node-c', state: 'Behind', lastSyncTime: ago(300) }]), text: '1/3 · behind 300 s', tone: 'warn' },
    { name: 'behind with no sync time: behind, no number', annotations: ann([{ node: 'node-b', state: 'Behind' }]), text: '1/2 · behind', tone: 'warn' },
    { name: 'an unreachable replica', annotations: ann([{ node: 'node-b', state: 'Unreachable', lastSyncTime: ago(50) }]), text: '1/2 · unreachable', tone: 'warn' },
    { name: 'rebuilding with progress: the share done', annotations: ann([{ node: 'node-b', state: 'Rebuilding', progress: { doneBytes: '400', totalBytes: '1000' } }]), text: 'rebuilding 40 %', tone: 'busy' },
    { name: 'rebuilding without progress', annotations: ann([{ node: 'node-b', state: 'Rebuilding' }]), text: 'rebuilding', tone: 'busy' },
    { name: 'behind wins over rebuilding', annotations: ann([{ node: 'node-b', state: 'Rebuilding' }, { node: 'node-c', state: 'Behind', lastSyncTime: ago(70) }]), text: '1/3 · behind 70 s', tone: 'warn' },
    { name: 'a fenced copy does not count', annotations: ann([{ node: 'node-b', state: 'InSync' }, { node: 'node-c', state: 'Fenced' }]), text: '2/2 in sync', tone: 'ok' },
    { name: 'only fenced copies: no replica', annotations: ann([{ node: 'node-c', state: 'Fenced' }]), text: '1/1 · no replica', tone: 'warn' },
    { name: 'garbled JSON: no replica', annotations: ann('{not json'), text: '1/1 · no replica', tone: 'warn' },
    { name: 'not an array: no replica', annotations: ann('{"node":"x"}'), text: '1/1 · no replica', tone: 'warn' },
    { name: 'unknown states and non-objects are dropped', annotations: ann([null, 7, 'x', { node: 'b', state: 'Exploded' }, { node: 1, state: 'InSync' }, { node: 'node-b', state: 'InSync' }]), text: '2/2 in sync', tone: 'ok' },
  ])('$name', ({ annotations, text, tone }) => {
    const got = replicaSummaryOf(annotations, now);
    expect(got.text).toBe(text);
    expect(got.tone).toBe(tone);
  });

  test('the tooltip names the active node, its epoch and each replica', () => {
    const got = replicaSummaryOf(ann([{ node: 'node-b', state: 'Behind', lastSyncTime: ago(95) }, { node: 'node-c', state: 'Fenced' }]), now);
    expect(got.lines).toEqual(['node-a: active (epoch 3)', 'node-b: behind 95 s', 'node-c: fenced (stale copy, never served)']);
  });

  test('a hostile epoch reads as 0', () => {
    expect(replicaSummaryOf(ann([{ node: 'node-b', state: 'InSync' }], 'node-a', '-7'), now).lines[0]).toBe('node-a: active (epoch 0)');
  });
});

describe('progressPercent', () => {
  test.each([
    { name: 'none', p: undefined, want: undefined },
    { name: 'half', p: { doneBytes: '50', totalBytes: '100' }, want: 50 },
    { name: 'rounds down', p: { doneBytes: '999', totalBytes: '1000' }, want: 99 },
    { name: 'done past the estimate: 100', p: { doneBytes: '2000', totalBytes: '1000' }, want: 100 },
    { name: 'zero total: unknown', p: { doneBytes: '0', totalBytes: '0' }, want: undefined },
    { name: 'garbled: unknown', p: { doneBytes: '1e9', totalBytes: '100' }, want: undefined },
    { name: 'negative: unknown', p: { doneBytes: '-5', totalBytes: '100' }, want: undefined },
    { name: 'huge numbers stay exact', p: { doneBytes: '5000000000000000000', totalBytes: '10000000000000000000' }, want: 50 },
  ])('$name', ({ p, want }) => {
    expect(progressPercent(p)).toBe(want);
  });
});

describe('replicaLine', () => {
  test.each([
    { name: 'in sync with its age', r: { node: 'b', state: 'InSync' as const, lastSyncTime: ago(12) }, want: 'b: in sync (12 s behind)' },
    { name: 'unreachable with its last sync', r: { node: 'b', state: 'Unreachable' as const, lastSyncTime: ago(40) }, want: 'b: unreachable, last sync 40 s ago' },
    { name: 'a garbled time is left out', r: { node: 'b', state: 'Behind' as const, lastSyncTime: 'yesterday' }, want: 'b: behind' },
    { name: 'a sync time in the future is 0 s', r: { node: 'b', state: 'InSync' as const, lastSyncTime: ago(-60) }, want: 'b: in sync (0 s behind)' },
  ])('$name', ({ r, want }) => {
    expect(replicaLine(r, now)).toBe(want);
  });
});

describe('replicasNeedingAttention', () => {
  const pv = (name: string, replicas: unknown) => ({ metadata: { name, annotations: ann(replicas) } });
  test('only Behind and Unreachable replicas, worst first, unreplicated volumes skipped', () => {
    const got = replicasNeedingAttention(
      [
        { metadata: { name: 'plain' } },
        pv('v1', [{ node: 'b', state: 'InSync' }, { node: 'c', state: 'Behind', lastSyncTime: ago(90) }]),
        pv('v2', [{ node: 'b', state: 'Unreachable', lastSyncTime: ago(400) }, { node: 'c', state: 'Rebuilding' }]),
        pv('v3', [{ node: 'd', state: 'Unreachable' }]),
        pv('v4', '{garbled'),
      ],
      now,
    );
    expect(got).toEqual([
      { volume: 'v3', node: 'd', state: 'Unreachable' },
      { volume: 'v2', node: 'b', state: 'Unreachable', behindSeconds: 400 },
      { volume: 'v1', node: 'c', state: 'Behind', behindSeconds: 90 },
    ]);
  });
  test('bounded by the limit', () => {
    const many = Array.from({ length: 30 }, (_, i) => pv(`v${i}`, [{ node: 'b', state: 'Behind', lastSyncTime: ago(i) }]));
    expect(replicasNeedingAttention(many, now, 5)).toHaveLength(5);
  });
});

describe('replicaCardRows', () => {
  test.each([
    { name: 'in sync: the window since its last sync', replica: { node: 'node-b', state: 'InSync', lastSyncTime: ago(12) }, want: { node: 'node-b', state: 'InSync', badge: 'in sync', tone: 'ok', behindSeconds: 12 } },
    { name: 'behind: the window, warned', replica: { node: 'node-b', state: 'Behind', lastSyncTime: ago(95) }, want: { node: 'node-b', state: 'Behind', badge: 'behind', tone: 'warn', behindSeconds: 95 } },
    { name: 'rebuilding: its share done, no window yet', replica: { node: 'node-b', state: 'Rebuilding', progress: { doneBytes: '1', totalBytes: '4' } }, want: { node: 'node-b', state: 'Rebuilding', badge: 'rebuilding', tone: 'busy', percent: 25 } },
    { name: 'rebuilding with garbled progress: no bar', replica: { node: 'node-b', state: 'Rebuilding', progress: { doneBytes: 'x', totalBytes: '4' } }, want: { node: 'node-b', state: 'Rebuilding', badge: 'rebuilding', tone: 'busy' } },
    { name: 'unreachable with its error', replica: { node: 'node-b', state: 'Unreachable', lastSyncTime: ago(300), error: 'connection refused' }, want: { node: 'node-b', state: 'Unreachable', badge: 'unreachable', tone: 'warn', behindSeconds: 300, error: 'connection refused' } },
    { name: 'fenced: no window (never served)', replica: { node: 'node-c', state: 'Fenced', lastSyncTime: ago(900) }, want: { node: 'node-c', state: 'Fenced', badge: 'fenced', tone: 'none' } },
    { name: 'a long node name and error are bounded', replica: { node: 'n'.repeat(300), state: 'Behind', error: 'e'.repeat(1000) }, want: { node: 'n'.repeat(63), state: 'Behind', badge: 'behind', tone: 'warn', error: 'e'.repeat(300) } },
  ])('$name', ({ replica, want }) => {
    const view = readReplication(ann([replica]))!;
    expect(replicaCardRows(view, now)).toEqual([want]);
  });
});
