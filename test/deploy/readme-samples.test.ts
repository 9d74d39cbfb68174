// The README's `kubectl api-resources` sample lists every resource the API serves, with its
// short names, group version and scope: a kind added later must show up there too.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REVIEW_RESOURCES } from '../../server/kube/router';
import { strategies } from '../../server/resources/registry';

const readme = readFileSync(path.resolve(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
const sample = readme.split('$ kubectl api-resources\n')[1].split('\n$ ')[0].split('\n').slice(1);
const rows = new Map(
  sample.map((line) => {
    const cells = line.trim().split(/\s+/);
    // SHORTNAMES may be empty: NAME [SHORTNAMES] APIVERSION NAMESPACED KIND
    const [name, ...rest] = cells;
    const [kind, namespaced, version] = [rest.pop(), rest.pop(), rest.pop()];
    return [name, { shortNames: rest[0] ?? '', version, namespaced, kind }];
  }),
);

describe("the README's kubectl api-resources sample", () => {
  it.each(strategies.map((s) => [s.plural, s] as const))('lists %s', (plural, s) => {
    expect(rows.get(plural)).toEqual({
      shortNames: (s.shortNames ?? []).join(','),
      version: s.group ? `${s.group}/${s.version}` : s.version,
      namespaced: String(s.namespaced),
      kind: s.kind,
    });
  });
  it('lists the reviews and nothing that is not served', () => {
    const served = new Set([...strategies.map((s) => s.plural), ...REVIEW_RESOURCES.map((r) => r.plural)]);
    expect([...rows.keys()].filter((n) => !served.has(n))).toEqual([]);
    for (const r of REVIEW_RESOURCES) expect(rows.has(r.plural), r.plural).toBe(true);
  });
});
