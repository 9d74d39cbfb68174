import { describe, expect, it } from 'vitest';
import { allowedCount, withPreviewRefusals, claimNameError, lastUsedText, refusalLines, splitRefusals } from './reclaim-actions';

describe('allowedCount', () => {
  const row = (allowed: boolean, reason?: string) => ({ actions: { delete: { allowed, reason } } });
  it.each([
    { name: 'none selected', rows: [], want: { allowed: 0, firstRefusal: undefined } },
    { name: 'all allowed', rows: [row(true), row(true)], want: { allowed: 2, firstRefusal: undefined } },
    { name: 'one refused says why', rows: [row(true), row(false, 'bound'), row(false, 'in use')], want: { allowed: 1, firstRefusal: 'bound' } },
  ])('$name', ({ rows, want }) => {
    expect(allowedCount(rows, 'delete')).toEqual(want);
  });
});

describe('claimNameError', () => {
  it.each([
    { text: 'default/data', want: undefined },
    { text: ' team-a/db.0 ', want: undefined },
    { text: '', want: 'Name the claim as namespace/name' },
    { text: 'data', want: 'Write namespace/name in lower case, e.g. default/data' },
    { text: 'Default/Data', want: 'Write namespace/name in lower case, e.g. default/data' },
    { text: '../../etc', want: 'Write namespace/name in lower case, e.g. default/data' },
  ])('"$text"', ({ text, want }) => {
    expect(claimNameError(text)).toBe(want);
  });
});

describe('lastUsedText', () => {
  it.each([
    { used: true, days: 0, want: 'last used today' },
    { used: true, days: 1, want: 'last used 1 day ago' },
    { used: true, days: 12, want: 'last used 12 days ago' },
    { used: false, days: 40, want: 'no recorded use (created 40 days ago)' },
  ])('used $used, $days days', ({ used, days, want }) => {
    expect(lastUsedText({ used, days })).toBe(want);
  });
});

describe('withPreviewRefusals', () => {
  const row = (name: string, allowed: boolean, reason?: string) => ({ kind: 'PersistentVolume' as const, name, action: 'delete' as const, resourceVersion: '1', allowed, changes: [], ...(reason ? { reason } : {}) });
  it.each([
    { name: 'two left alone by the preview, one applied', rows: [row('a', true), row('b', false, 'Bound'), row('c', false, 'in use')], applied: { done: ['a'], skipped: [] }, want: { done: 1, skipped: ['b', 'c'] } },
    { name: 'nothing refused: the apply result as it is', rows: [row('a', true)], applied: { done: [], skipped: [{ name: 'a', reason: 'conflict' }] }, want: { done: 0, skipped: ['a'] } },
  ])('$name', ({ rows, applied, want }) => {
    const r = withPreviewRefusals(applied, rows);
    expect(r.done).toHaveLength(want.done);
    expect(r.skipped.map((s) => s.name)).toEqual(want.skipped);
  });
});

describe('refusals: said once when every row shares them', () => {
  const ORDER = ['make-available', 'pre-bind', 'recycle', 'delete'] as const;
  const ok = { allowed: true };
  const no = (reason: string) => ({ allowed: false, reason });
  it.each([
    { name: 'all allowed', actions: { 'make-available': ok, 'pre-bind': ok, recycle: ok, delete: ok }, want: [] },
    { name: 'all refused for one reason', actions: { 'make-available': no('admins only'), 'pre-bind': no('admins only'), recycle: no('admins only'), delete: no('admins only') }, want: ['No action: admins only'] },
    {
      name: 'some refused',
      actions: { 'make-available': ok, 'pre-bind': no('not Released'), recycle: ok, delete: no('in use') },
      want: ['Pre-bind to claim: not Released', 'Delete: in use'],
    },
  ])('$name', ({ actions, want }) => expect(refusalLines(actions, ORDER)).toEqual(want));

  it.each([
    { name: 'the same long sentence on every row is shared', rows: [['Delete: long'], ['Delete: long'], ['Delete: long']], shared: ['Delete: long'], own: [[], [], []] },
    { name: 'a row of its own keeps what differs', rows: [['Delete: long', 'Recycle: local only'], ['Delete: long']], shared: ['Delete: long'], own: [['Recycle: local only'], []] },
    { name: 'one row shares nothing', rows: [['Delete: long']], shared: [], own: [['Delete: long']] },
    { name: 'a row without refusals: nothing shared', rows: [['Delete: long'], []], shared: [], own: [['Delete: long'], []] },
  ])('$name', ({ rows, shared, own }) => expect(splitRefusals(rows)).toEqual({ shared, own }));
});
