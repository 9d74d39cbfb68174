import { describe, expect, test } from 'vitest';
import { checksToRun, formatHealth, parseHealthRequest, type CheckResult, type HealthRequest } from './health';

const READY = ['ping', 'database', 'shutdown'];
const req = (r: Partial<HealthRequest>): HealthRequest => ({ endpoint: 'readyz', verbose: false, exclude: [], ...r });
const all = (ok: boolean, names = READY): CheckResult[] => names.map((name) => ({ name, ok }));
const failing = (bad: string): CheckResult[] => READY.map((name) => ({ name, ok: name !== bad }));

describe('formatHealth', () => {
  test.each([
    { name: 'all pass: ok', r: req({}), results: all(true), status: 200, body: 'ok' },
    {
      name: 'all pass, verbose: a line per check, then passed',
      r: req({ verbose: true }),
      results: all(true),
      status: 200,
      body: '[+]ping ok\n[+]database ok\n[+]shutdown ok\nreadyz check passed\n',
    },
    {
      name: 'one fails: 500, every line, the reason withheld',
      r: req({}),
      results: failing('database'),
      status: 500,
      body: '[+]ping ok\n[-]database failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n',
    },
    {
      name: 'one fails, verbose: the same 500',
      r: req({ verbose: true }),
      results: failing('shutdown'),
      status: 500,
      body: '[+]ping ok\n[+]database ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n',
    },
    {
      name: 'a check without a result failed (it did not answer)',
      r: req({}),
      results: all(true, ['ping', 'shutdown']),
      status: 500,
      body: '[+]ping ok\n[-]database failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n',
    },
    {
      name: 'the failing check excluded: ok',
      r: req({ exclude: ['database'] }),
      results: all(true, ['ping', 'shutdown']),
      status: 200,
      body: 'ok',
    },
    {
      name: 'excluded, verbose: shown as excluded',
      r: req({ exclude: ['database'], verbose: true }),
      results: all(true, ['ping', 'shutdown']),
      status: 200,
      body: '[+]ping ok\n[+]database excluded: ok\n[+]shutdown ok\nreadyz check passed\n',
    },
    {
      name: 'excluding an unknown check: a warning line',
      r: req({ exclude: ['etcd'], verbose: true }),
      results: all(true),
      status: 200,
      body: '[+]ping ok\n[+]database ok\n[+]shutdown ok\nwarn: some health checks cannot be excluded: no matches for "etcd"\nreadyz check passed\n',
    },
    {
      name: 'livez names itself',
      r: req({ endpoint: 'livez', verbose: true }),
      installed: ['ping'],
      results: all(true, ['ping']),
      status: 200,
      body: '[+]ping ok\nlivez check passed\n',
    },
    {
      name: 'healthz names itself when failing',
      r: req({ endpoint: 'healthz' }),
      results: failing('database'),
      status: 500,
      body: '[+]ping ok\n[-]database failed: reason withheld\n[+]shutdown ok\nhealthz check failed\n',
    },
    { name: 'one check passing: ok', r: req({ check: 'database' }), results: all(true, ['database']), status: 200, body: 'ok' },
    {
      name: 'one check failing: 500, the reason withheld',
      r: req({ check: 'database' }),
      results: all(false, ['database']),
      status: 500,
      body: 'internal server error: reason withheld\n',
    },
    { name: 'an unknown check: 404', r: req({ check: 'etcd' }), results: [], status: 404, body: '404 page not found\n' },
  ] as { name: string; r: HealthRequest; installed?: string[]; results: CheckResult[]; status: number; body: string }[])('$name', ({ r, installed, results, status, body }) => {
    expect(formatHealth(r, installed ?? READY, results)).toEqual({ status, body });
  });
});

describe('checksToRun', () => {
  test.each([
    { name: 'all installed', r: req({}), want: READY },
    { name: 'without the excluded', r: req({ exclude: ['database'] }), want: ['ping', 'shutdown'] },
    { name: 'one check', r: req({ check: 'shutdown' }), want: ['shutdown'] },
    { name: 'an unknown check: none (404)', r: req({ check: 'etcd' }), want: undefined },
  ])('$name', ({ r, want }) => {
    expect(checksToRun(r, READY)).toEqual(want);
  });
});

describe('parseHealthRequest', () => {
  test.each([
    { name: '/livez', path: '/livez', q: '', want: { endpoint: 'livez', check: undefined, verbose: false, exclude: [] } },
    { name: 'a trailing slash', path: '/readyz/', q: '', want: { endpoint: 'readyz', check: undefined, verbose: false, exclude: [] } },
    { name: 'verbose without a value', path: '/readyz', q: 'verbose', want: { endpoint: 'readyz', check: undefined, verbose: true, exclude: [] } },
    {
      name: 'excludes, repeated or comma-separated',
      path: '/healthz',
      q: 'exclude=a&exclude=b,c',
      want: { endpoint: 'healthz', check: undefined, verbose: false, exclude: ['a', 'b', 'c'] },
    },
    { name: 'one check', path: '/readyz/database', q: '', want: { endpoint: 'readyz', check: 'database', verbose: false, exclude: [] } },
    { name: 'not a health path', path: '/api', q: '', want: undefined },
    { name: 'too deep', path: '/readyz/a/b', q: '', want: undefined },
    { name: 'a prefix only', path: '/readyzz', q: '', want: undefined },
  ])('$name', ({ path, q, want }) => {
    expect(parseHealthRequest(path, new URLSearchParams(q))).toEqual(want);
  });
});
