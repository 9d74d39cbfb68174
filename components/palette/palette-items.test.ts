import { describe, expect, test } from 'vitest';
import { HOME_PAGE } from '../shell/navigation';
import { filterItems, groupRows, moveActive, nameScore, paletteItems, rankHits, type ObjectHit, type PaletteContext } from './palette-items';

const ADMIN: PaletteContext = {
  pages: [
    HOME_PAGE,
    { route: '/volumes', title: 'Volumes', description: 'All volumes' },
    { route: '/claims', title: 'Claims', description: 'All claims' },
  ],
  mayCreateClaim: true,
  mayCreateVolume: true,
  mayCreateAny: true,
  scheme: 'light',
};
const DEVELOPER: PaletteContext = { ...ADMIN, pages: [HOME_PAGE, { route: '/claims', title: 'Claims', description: 'All claims' }], mayCreateVolume: false };
const VIEWER: PaletteContext = { ...DEVELOPER, mayCreateClaim: false, mayCreateAny: false, scheme: 'dark' };

describe('paletteItems', () => {
  test('an admin also gets the other pages and the class form', () => {
    const c: PaletteContext = { ...ADMIN, pages: [...ADMIN.pages, { route: '/reclaim', title: 'Reclaim', description: 'Released storage' }], mayCreateClass: true };
    const ids = paletteItems(c).map((i) => i.id);
    expect(ids).toContain('page-/reclaim');
    expect(ids).toContain('create-class');
    expect(paletteItems(c).find((i) => i.id === 'create-volume')?.run).toEqual({ type: 'navigate', href: '/new/volume' });
  });

  test.each([
    { who: 'an admin', c: ADMIN, want: ['page-home', 'page-/volumes', 'page-/claims', 'create-claim', 'create-volume', 'create-yaml', 'theme', 'shortcuts', 'sign-out'] },
    { who: 'a developer', c: DEVELOPER, want: ['page-home', 'page-/claims', 'create-claim', 'create-yaml', 'theme', 'shortcuts', 'sign-out'] },
    { who: 'a viewer', c: VIEWER, want: ['page-home', 'page-/claims', 'theme', 'shortcuts', 'sign-out'] },
  ])('$who gets only what they may use', ({ c, want }) => {
    expect(paletteItems(c).map((i) => i.id)).toEqual(want);
  });

  test('the theme action offers the other theme', () => {
    expect(paletteItems(ADMIN).find((i) => i.id === 'theme')?.run).toEqual({ type: 'theme', scheme: 'dark' });
    expect(paletteItems(VIEWER).find((i) => i.id === 'theme')?.label).toBe('Switch to the light theme');
  });
});

describe('filterItems', () => {
  const items = paletteItems(ADMIN);
  test.each([
    { query: '', want: items.map((i) => i.id) },
    { query: '   ', want: items.map((i) => i.id) },
    { query: 'create claim', want: ['create-claim'] },
    { query: 'CLAIM', want: ['page-/claims', 'create-claim'] },
    { query: 'claims', want: ['page-/claims'] },
    { query: 'pvc', want: ['create-claim'] },
    { query: 'dark', want: ['theme'] },
    { query: 'logout', want: ['sign-out'] },
    { query: 'create', want: ['create-claim', 'create-volume', 'create-yaml'] },
    { query: 'vol', want: ['page-/volumes', 'create-volume'] },
    { query: 'zzz', want: [] },
  ])('"$query"', ({ query, want }) => {
    expect(filterItems(query, items).map((i) => i.id)).toEqual(want);
  });
});

describe('nameScore', () => {
  test.each([
    { q: 'data', name: 'data', want: 0 },
    { q: 'Data', name: 'data', want: 0 },
    { q: 'data', name: 'data-1', want: 1 },
    { q: 'logs', name: 'app-logs', want: 2 },
    { q: 'logs', name: 'app.logs', want: 2 },
    { q: 'ogs', name: 'app-logs', want: 3 },
    { q: 'team-a', name: 'data', want: 4 },
    { q: '', name: 'data', want: 4 },
  ])('"$q" in $name -> $want', ({ q, name, want }) => {
    expect(nameScore(q, name)).toBe(want);
  });
});

describe('rankHits', () => {
  const hit = (kind: string, kindOrder: number, name: string, namespace?: string): ObjectHit => ({ kind, kindOrder, name, namespace });
  test('exact names first, then prefixes, words, substrings; kind order and length break ties', () => {
    const ranked = rankHits('db', [
      hit('PersistentVolumeClaim', 1, 'old-db-backup', 'a'),
      hit('PersistentVolumeClaim', 1, 'mydb', 'a'),
      hit('PersistentVolumeClaim', 1, 'db', 'b'),
      hit('PersistentVolume', 0, 'db-data-long'),
      hit('PersistentVolumeClaim', 1, 'db-data', 'a'),
      hit('PersistentVolume', 0, 'db-data'),
      hit('Namespace', 5, 'team', undefined),
      hit('PersistentVolumeClaim', 1, 'db', 'a'),
    ]);
    expect(ranked.map((h) => `${h.kind}:${h.namespace ?? ''}/${h.name}`)).toEqual([
      'PersistentVolumeClaim:a/db',
      'PersistentVolumeClaim:b/db',
      'PersistentVolume:/db-data',
      'PersistentVolume:/db-data-long',
      'PersistentVolumeClaim:a/db-data',
      'PersistentVolumeClaim:a/old-db-backup',
      'PersistentVolumeClaim:a/mydb',
      'Namespace:/team',
    ]);
  });
  test('no hits, no rows', () => {
    expect(rankHits('x', [])).toEqual([]);
  });
});

describe('moveActive', () => {
  test.each([
    { active: -1, delta: 1, count: 3, want: 0 },
    { active: -1, delta: -1, count: 3, want: 2 },
    { active: 0, delta: 1, count: 3, want: 1 },
    { active: 2, delta: 1, count: 3, want: 0 },
    { active: 0, delta: -1, count: 3, want: 2 },
    { active: 1, delta: 1, count: 0, want: -1 },
  ])('$active + $delta of $count -> $want', ({ active, delta, count, want }) => {
    expect(moveActive(active, delta, count)).toBe(want);
  });
});

describe('groupRows', () => {
  test('each group once, in order of first appearance, rows kept in order within it', () => {
    const rows = [
      { group: 'Pages', id: 'pods' },
      { group: 'Actions', id: 'theme' },
      { group: 'Pages', id: 'home' },
      { group: 'Objects', id: 'x' },
      { group: 'Actions', id: 'help' },
    ];
    expect(groupRows(rows).map((g) => `${g.name}:${g.rows.map((r) => r.id).join(',')}`)).toEqual(['Pages:pods,home', 'Actions:theme,help', 'Objects:x']);
  });
  test('the filter of "d" interleaves pages and actions; grouped, each heading appears once', () => {
    const grouped = groupRows(filterItems('d', paletteItems(ADMIN)));
    expect(grouped.map((g) => g.name)).toEqual(['Actions', 'Pages']);
  });
});
