import { describe, expect, test } from 'vitest';
import type { KubeObject } from '@/server/resources/types';
import { compareFor, matchesRequest, pageRequest, stateFromParams, stateToParams } from './list-state';
import { applyChange, keyOf, withPage, type Change, type Loaded } from './live-patch';
import { KINDS, phaseOf } from '../objects/kinds';

const pv = (name: string, phase = 'Available', labels: Record<string, string> = {}, size = '1Gi'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name, labels },
  spec: { capacity: { storage: size } },
  status: { phase },
});
const byName = compareFor({ key: 'name', dir: 'asc' });
const all = () => true;
const names = (l: Loaded) => l.rows.map((r) => (r ? r.metadata.name : '_'));

function loaded(list: (string | undefined)[]): Loaded {
  return { total: list.length, rows: list.map((n) => (n ? pv(n) : undefined)) };
}

describe('applyChange', () => {
  const cases: { name: string; start: (string | undefined)[]; change: Change; matches?: (o: KubeObject) => boolean; want: string[]; total: number }[] = [
    { name: 'ADDED sorts into place', start: ['a', 'c', 'e'], change: { type: 'ADDED', object: pv('d') }, want: ['a', 'c', 'd', 'e'], total: 4 },
    { name: 'ADDED after everything loaded goes last', start: ['a', 'b'], change: { type: 'ADDED', object: pv('z') }, want: ['a', 'b', 'z'], total: 3 },
    { name: 'ADDED past the loaded part sits after it', start: ['a', 'b', undefined, undefined], change: { type: 'ADDED', object: pv('x') }, want: ['a', 'b', 'x', '_', '_'], total: 5 },
    { name: 'ADDED that does not match the filters is left out', start: ['a'], change: { type: 'ADDED', object: pv('b') }, matches: () => false, want: ['a'], total: 1 },
    { name: 'MODIFIED replaces in place', start: ['a', 'b', 'c'], change: { type: 'MODIFIED', object: pv('b', 'Bound') }, want: ['a', 'b', 'c'], total: 3 },
    { name: 'MODIFIED out of the filter leaves', start: ['a', 'b', 'c'], change: { type: 'MODIFIED', object: pv('b', 'Bound') }, matches: (o) => phaseOf(o) !== 'Bound', want: ['a', 'c'], total: 2 },
    { name: 'DELETED removes', start: ['a', 'b', 'c'], change: { type: 'DELETED', object: pv('a') }, want: ['b', 'c'], total: 2 },
    { name: 'DELETED of a row not loaded shrinks the unloaded part', start: ['a', undefined, undefined], change: { type: 'DELETED', object: pv('q') }, want: ['a', '_'], total: 2 },
  ];
  test.each(cases)('$name', ({ start, change, matches, want, total }) => {
    const next = applyChange(loaded(start), change, matches ?? all, byName);
    expect(names(next)).toEqual(want);
    expect(next.total).toBe(total);
  });

  test('MODIFIED that changes the sort value moves the row', () => {
    const bySize = compareFor({ key: 'capacity', dir: 'asc' });
    const l: Loaded = { total: 3, rows: [pv('a', 'Available', {}, '1Gi'), pv('b', 'Available', {}, '2Gi'), pv('c', 'Available', {}, '3Gi')] };
    const next = applyChange(l, { type: 'MODIFIED', object: pv('a', 'Available', {}, '5Gi') }, all, bySize);
    expect(names(next)).toEqual(['b', 'c', 'a']);
  });
});

test('withPage puts a page at its offset and drops a moved duplicate', () => {
  const l = withPage({ total: 0, rows: [] }, 0, [pv('a'), pv('b')], 4);
  expect(names(l)).toEqual(['a', 'b', '_', '_']);
  const m = withPage(l, 2, [pv('b'), pv('c')], 4);
  expect(names(m)).toEqual(['a', '_', 'b', 'c']);
  expect(keyOf(pv('x'))).toBe('/x');
});

describe('list state in the URL', () => {
  const ui = KINDS.find((k) => k.kind === 'PersistentVolume')!;
  test('round-trips through the address bar', () => {
    const params = new URLSearchParams('q=fast&selector=tier%3Dgold&status=Released&sort=-capacity&cols=NAME,label:tier');
    const s = stateFromParams(params, ui);
    expect(s).toEqual({ text: 'fast', selector: 'tier=gold', namespace: null, status: 'Released', sort: { header: 'CAPACITY', dir: 'desc' }, columns: ['NAME', 'label:tier'] });
    expect(stateToParams(s)).toEqual({ q: 'fast', selector: 'tier=gold', status: 'Released', sort: '-capacity', cols: 'NAME,label:tier' });
    expect(pageRequest(s, ui)).toEqual({ kind: 'PersistentVolume', labelSelector: 'tier=gold', fields: { phase: ['Released'] }, text: 'fast', sort: { key: 'capacity', dir: 'desc' } });
  });
  test.each([{ sort: 'reclaim policy' }, { sort: '__proto__' }, { sort: '' }])('sort "$sort" the server cannot do falls back to NAME', ({ sort }) => {
    expect(stateFromParams(new URLSearchParams({ sort }), ui).sort).toEqual({ header: 'NAME', dir: 'asc' });
  });
  test('an invalid selector is not sent', () => {
    expect(pageRequest({ ...stateFromParams(new URLSearchParams('selector=a in ('), ui) }, ui).labelSelector).toBeUndefined();
  });
  test.each([
    { name: 'matching everything', req: {}, obj: pv('a'), want: true },
    { name: 'phase', req: { fields: { phase: ['Released'] } }, obj: pv('a'), want: false },
    { name: 'label', req: { labelSelector: 'tier=gold' }, obj: pv('a', 'Available', { tier: 'gold' }), want: true },
    { name: 'text in a label', req: { text: 'GOLD' }, obj: pv('a', 'Available', { tier: 'gold' }), want: true },
    { name: 'text missing', req: { text: 'silver' }, obj: pv('a'), want: false },
  ])('matchesRequest: $name', ({ req, obj, want }) => {
    expect(matchesRequest(obj, { kind: 'PersistentVolume', sort: { key: 'name', dir: 'asc' }, ...req })).toBe(want);
  });
});
