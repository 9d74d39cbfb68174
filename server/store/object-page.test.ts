// The list query builder: what SQL and parameters a page request becomes. Pure.
import { describe, expect, test } from 'vitest';
import { parseLabelSelector } from '../domain/label-selector';
import { buildPageQuery, buildWhere, MAX_PAGE_LIMIT, type PageQuery } from './object-page';

const base: PageQuery = { kind: 'PersistentVolume' };

describe('buildWhere', () => {
  const cases: { name: string; q: Partial<PageQuery>; sql: string; params: unknown[] }[] = [
    { name: 'kind only', q: {}, sql: 'kind = $1', params: ['PersistentVolume'] },
    { name: 'no visible namespaces selects nothing', q: { namespaces: [] }, sql: 'kind = $1 AND FALSE', params: ['PersistentVolume'] },
    { name: 'namespaces', q: { namespaces: ['a', 'b'] }, sql: 'kind = $1 AND namespace = ANY($2::text[])', params: ['PersistentVolume', ['a', 'b']] },
    {
      name: 'equality label',
      q: { labels: parseLabelSelector('tier=fast').requirements },
      sql: 'kind = $1 AND labels @> jsonb_build_object($2::text, $3::text)',
      params: ['PersistentVolume', 'tier', 'fast'],
    },
    {
      name: 'set label',
      q: { labels: parseLabelSelector('tier in (a,b)').requirements },
      sql: 'kind = $1 AND (labels ->> $2) = ANY($3::text[])',
      params: ['PersistentVolume', 'tier', ['a', 'b']],
    },
    {
      name: 'label exists and does not',
      q: { labels: parseLabelSelector('x,!y').requirements },
      sql: 'kind = $1 AND labels ? $2 AND NOT (labels ? $3)',
      params: ['PersistentVolume', 'x', 'y'],
    },
    {
      name: 'not-equal label keeps objects without it',
      q: { labels: parseLabelSelector('tier!=slow').requirements },
      sql: 'kind = $1 AND ((labels ->> $2) IS NULL OR NOT ((labels ->> $2) = ANY($3::text[])))',
      params: ['PersistentVolume', 'tier', ['slow']],
    },
    { name: 'phase filter', q: { fields: { phase: ['Released', 'Failed'] } }, sql: 'kind = $1 AND phase = ANY($2::text[])', params: ['PersistentVolume', ['Released', 'Failed']] },
    {
      name: 'empty class means no class',
      q: { fields: { storageClass: ['', 'fast'] } },
      sql: 'kind = $1 AND (storage_class = ANY($2::text[]) OR storage_class IS NULL)',
      params: ['PersistentVolume', ['fast']],
    },
    {
      name: 'text words are plain substrings, lower-cased, each a condition',
      q: { text: ' 50%_X  b\\ ' },
      sql: "kind = $1 AND strpos(lower(concat_ws(' ', name, namespace, labels::text, phase, storage_class)), $2) > 0 AND strpos(lower(concat_ws(' ', name, namespace, labels::text, phase, storage_class)), $3) > 0",
      params: ['PersistentVolume', '50%_x', 'b\\'],
    },
    {
      name: 'hostile key is a parameter, never SQL',
      q: { labels: [{ key: "x'); DROP TABLE objects; --", operator: 'Exists', values: [] }] },
      sql: 'kind = $1 AND labels ? $2',
      params: ['PersistentVolume', "x'); DROP TABLE objects; --"],
    },
  ];
  test.each(cases)('$name', ({ q, sql, params }) => {
    expect(buildWhere({ ...base, ...q })).toEqual({ sql, params });
  });
});

describe('buildPageQuery', () => {
  const cases: { name: string; q: Partial<PageQuery>; order: string; tail: unknown[] }[] = [
    { name: 'default: by name', q: {}, order: 'name COLLATE "C" ASC NULLS FIRST, namespace COLLATE "C" ASC', tail: [100, 0] },
    { name: 'capacity descending', q: { sort: { key: 'capacity', dir: 'desc' }, offset: 200, limit: 50 }, order: 'capacity_bytes DESC NULLS LAST, namespace COLLATE "C" DESC, name COLLATE "C" DESC', tail: [50, 200] },
    { name: 'age', q: { sort: { key: 'age', dir: 'asc' } }, order: 'created_at ASC NULLS FIRST, namespace COLLATE "C" ASC, name COLLATE "C" ASC', tail: [100, 0] },
    { name: 'claim by namespace then name', q: { sort: { key: 'claim', dir: 'asc' } }, order: 'claim_namespace COLLATE "C" ASC NULLS FIRST, claim_name COLLATE "C" ASC NULLS FIRST, namespace COLLATE "C" ASC, name COLLATE "C" ASC', tail: [100, 0] },
    { name: 'limit is bounded', q: { limit: 10_000, offset: -5 }, order: 'name COLLATE "C" ASC NULLS FIRST, namespace COLLATE "C" ASC', tail: [MAX_PAGE_LIMIT, 0] },
  ];
  test.each(cases)('$name', ({ q, order, tail }) => {
    const { sql, params } = buildPageQuery({ ...base, ...q });
    expect(sql).toContain(`ORDER BY ${order} LIMIT`);
    expect(params.slice(-2)).toEqual(tail);
  });
  test('an unknown sort key is a BadRequest', () => {
    expect(() => buildPageQuery({ ...base, sort: { key: 'object' as never, dir: 'asc' } })).toThrow(/cannot sort by/);
  });
});

test('a text search counts its matches in the page query; other pages count apart', () => {
  const searched = buildPageQuery({ ...base, text: 'pv' });
  expect(searched.counted).toBe(true);
  expect(searched.sql).toContain('count(*) OVER () AS total');
  const plain = buildPageQuery(base);
  expect(plain.counted).toBe(false);
  expect(plain.sql).not.toContain('OVER');
});
