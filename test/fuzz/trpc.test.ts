// Property-based fuzzing of the dashboard's tRPC endpoint over HTTP, as every role:
// hostile inputs to every query and mutation (manifests in YAML and JSON, refs, selectors,
// and a hostile string in every string field of every procedure, read from its own input
// schema: procedure-inputs.ts), batches, wrong methods and content types (not the live
// subscription, which stays open by design). Properties: no 5xx; every error a typed tRPC
// error (a known code, its HTTP status, a message); after each batch the health probe
// answers, every stored object re-validates, and the prototypes are untouched.
import http from 'node:http';
import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AppContext } from '../../server/wiring/context';
import { startWebServer, type WebServer } from '../../server/http/web-server';
import { appRouter } from '../../server/trpc/root';
import { openTestApp } from '../app';
import { anyJson, enc, kubeObject, nastyString, ROLES, type FuzzRole } from './arbitraries';
import { hostileInput, procedures, stringPaths, withValue } from './procedure-inputs';
import { expectEverythingStoredValid, expectPrototypesUntouched, fuzzRuns } from './properties';

let app: AppContext;
let web: WebServer;
const tokens: Partial<Record<FuzzRole, string>> = {};
let agent: http.Agent;

beforeAll(async () => {
  app = await openTestApp();
  for (const ns of ['default', 'team-a', 'other']) await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await app.users.create({ name: 'admin', role: 'admin', password: 'correct-horse' });
  await app.users.create({ name: 'dev', role: 'developer', namespaces: ['team-a'] });
  await app.users.create({ name: 'viewer', role: 'viewer' });
  tokens.admin = await app.users.createToken('admin');
  tokens.developer = await app.users.createToken('dev');
  tokens.viewer = await app.users.createToken('viewer');
  web = await startWebServer({ app, host: '127.0.0.1', port: 0, dir: process.cwd(), pages: false });
  agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
});
afterAll(async () => {
  agent?.destroy();
  await web?.close();
  await app?.close();
});

const KINDS = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('PersistentVolume', 'PersistentVolumeClaim', 'StorageClass', 'Namespace', 'Event', 'Node') }, { weight: 1, arbitrary: nastyString });
const NS = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('default', 'team-a', 'other') }, { weight: 1, arbitrary: nastyString });
const NAME = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('fz-a', 'fz-b', 'existing') }, { weight: 1, arbitrary: nastyString });
const ref = fc.record({ kind: KINDS, namespace: NS, name: NAME }, { requiredKeys: ['kind', 'name'] });
const manifest = fc.oneof(
  { weight: 3, arbitrary: kubeObject.map((o) => safe(() => toYaml(o))) },
  kubeObject.map((o) => JSON.stringify(o)),
  fc.constantFrom('a: !!binary aGVsbG8=', '__proto__: {polluted: "1"}', 'kind: [', `${'['.repeat(2000)}`, 'apiVersion: v1\nkind: Namespace\nmetadata: {name: "a\\0b"}\n', '---\n---\n'),
  nastyString,
);

function safe(f: () => string): string {
  try {
    return f();
  } catch {
    return '';
  }
}

interface Call {
  path: string;
  type: 'query' | 'mutation';
  input: unknown;
}

/** The router's procedures the calls above do not build inputs for: [path, type]. */
const OTHER_PROCEDURES: [string, 'query' | 'mutation'][] = [];
for (const [path, proc] of Object.entries((appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: string } }> } })._def.procedures)) {
  const type = proc._def.type;
  if ((type === 'query' || type === 'mutation') && !path.startsWith('objects.') && !path.startsWith('auth.')) OTHER_PROCEDURES.push([path, type]);
}

/**
 * Every query and mutation with an input read from its own schema: each string field kept
 * plausible or made hostile, so a hostile string reaches every field while the rest of the
 * input passes validation (signing out would only end the fuzz session).
 */
const PLAIN_PROCEDURES = procedures().filter((p) => p.type !== 'subscription' && p.path !== 'auth.signOut');
const schemaCall: fc.Arbitrary<Call> = fc
  .constantFrom(...PLAIN_PROCEDURES)
  .chain((p) => hostileInput(p.sample, nastyString).map((input) => ({ path: p.path, type: p.type as Call['type'], input })));

const call: fc.Arbitrary<Call> = fc.oneof(
  { weight: 4, arbitrary: schemaCall },
  fc.record({ kind: KINDS, namespace: NS, labelSelector: nastyString, fieldSelector: fc.oneof(fc.constant('metadata.name=x'), nastyString) }, { requiredKeys: ['kind'] }).map((input) => ({ path: 'objects.list', type: 'query' as const, input })),
  ref.map((input) => ({ path: 'objects.get', type: 'query' as const, input })),
  ref.map((input) => ({ path: 'objects.events', type: 'query' as const, input })),
  fc.record({ manifest, namespace: NS, dryRun: fc.boolean() }, { requiredKeys: ['manifest'] }).map((input) => ({ path: 'objects.create', type: 'mutation' as const, input })),
  fc.tuple(ref, manifest).map(([r, m]) => ({ path: 'objects.update', type: 'mutation' as const, input: { ...r, manifest: m } })),
  ref.map((input) => ({ path: 'objects.delete', type: 'mutation' as const, input })),
  fc.constant({ path: 'objects.kinds', type: 'query' as const, input: undefined }),
  fc.constant({ path: 'auth.me', type: 'query' as const, input: undefined }),
  fc.record({ name: fc.oneof(fc.constant('nobody'), nastyString), password: nastyString }).map((input) => ({ path: 'auth.signIn', type: 'mutation' as const, input })),
  fc.tuple(fc.oneof(fc.constantFrom('objects.list', 'objects.get', 'objects.create', 'nope', 'auth'), nastyString), fc.constantFrom<'query' | 'mutation'>('query', 'mutation'), anyJson).map(([path, type, input]) => ({ path, type, input })),
  // Every other procedure of the router, with any JSON as its input (signing out would
  // only end the fuzz session; subscriptions are not plain calls).
  fc.tuple(fc.constantFrom(...OTHER_PROCEDURES), fc.oneof(anyJson, fc.dictionary(fc.constantFrom('kind', 'namespace', 'name', 'cursor', 'limit', 'offset', 'action', 'actor', 'volume', 'claim', 'names', 'days', 'fix', 'format', 'resourceVersion'), anyJson))).map(
    ([[path, type], input]) => ({ path, type, input }),
  ),
);

interface TrpcCase {
  role: FuzzRole;
  calls: Call[];
  batch: boolean;
  contentType: string;
  wrongMethod: boolean;
}

const trpcCase: fc.Arbitrary<TrpcCase> = fc.record({
  role: fc.oneof({ weight: 3, arbitrary: fc.constant<FuzzRole>('admin') }, { weight: 2, arbitrary: fc.constantFrom(...ROLES) }),
  calls: fc.array(call, { minLength: 1, maxLength: 3 }),
  batch: fc.boolean(),
  contentType: fc.oneof({ weight: 5, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '') }),
  wrongMethod: fc.boolean().map((b) => b && Math.random() < 0.1),
});

function send(c: TrpcCase): Promise<{ status: number; text: string; calls: Call[]; batch: boolean }> {
  const url = new URL(web.url);
  const calls = c.batch ? c.calls.filter((x) => x.type === c.calls[0].type) : [c.calls[0]];
  const type = calls[0].type;
  const method = (type === 'query') !== c.wrongMethod ? 'GET' : 'POST';
  const paths = calls.map((x) => enc(x.path)).join(',');
  const input = c.batch ? Object.fromEntries(calls.map((x, i) => [i, x.input])) : calls[0].input;
  const json = input === undefined ? undefined : JSON.stringify(input);
  let path = `/api/trpc/${paths}`;
  const params: string[] = [];
  if (c.batch) params.push('batch=1');
  if (method === 'GET' && json !== undefined) params.push(`input=${enc(json)}`);
  if (params.length) path += `?${params.join('&')}`;
  const headers: Record<string, string> = {};
  if (tokens[c.role]) headers.Authorization = `Bearer ${tokens[c.role]}`;
  const body = method === 'POST' && json !== undefined ? Buffer.from(json) : undefined;
  if (body) {
    if (c.contentType) headers['Content-Type'] = c.contentType;
    headers['Content-Length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method, headers, agent, timeout: 15_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), calls, batch: c.batch }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 15 s')));
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

const TRPC_CODES = new Set([
  'PARSE_ERROR',
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_SUPPORTED',
  'TIMEOUT',
  'CONFLICT',
  'PRECONDITION_FAILED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'UNPROCESSABLE_CONTENT',
  'TOO_MANY_REQUESTS',
  'CLIENT_CLOSED_REQUEST',
]);

function expectTypedErrors(text: string, what: string): void {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`${what}: an error whose body is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  for (const item of Array.isArray(body) ? body : [body]) {
    const err = (item as { error?: { message?: unknown; data?: { code?: unknown; httpStatus?: unknown } } }).error;
    if (!err) continue;
    expect(typeof err.message, what).toBe('string');
    expect(TRPC_CODES.has(String(err.data?.code)), `${what}: code ${String(err.data?.code)}`).toBe(true);
    expect(err.data?.httpStatus, what).toBeLessThan(500);
  }
}

/** Strings no input may carry into the store or a query: each must be refused with a 4xx. */
const BAD_STRINGS = ['\u0000', 'a\u0000b', '\uD800', 'x\uDC00y', '\\', '%', "'", 'a'.repeat(5000)];

describe('every string field of every procedure', () => {
  const cases = PLAIN_PROCEDURES.flatMap((p) =>
    stringPaths(p.sample).map((at) => ({ procedure: p.path, type: p.type as Call['type'], field: at.join('.'), sample: p.sample, at })),
  );

  test('the string fields are read from the schemas, nested ones included', () => {
    expect(new Set(cases.map((c) => c.procedure)).size).toBeGreaterThan(25);
    expect(cases.map((c) => `${c.procedure} ${c.field}`)).toEqual(
      expect.arrayContaining(['lists.page text', 'lists.page namespace', 'lists.page fields.phase.0', 'lists.page fields.storageClass.0', 'localVolumes.nodeDisks node', 'localVolumes.volumeHistory pv']),
    );
  });

  test.each(cases)('$procedure $field: NUL, lone surrogates and odd strings are 4xx, typed', async ({ type, procedure, sample, at }) => {
    for (const role of ['admin', 'developer'] as const) {
      for (const bad of BAD_STRINGS) {
        const input = withValue(sample, at, bad);
        const r = await send({ role, calls: [{ path: procedure, type, input }], batch: false, contentType: 'application/json', wrongMethod: false });
        const what = `${role} ${procedure} ${JSON.stringify(bad.slice(0, 10))}`;
        expect(r.status, `${what}: ${r.text.slice(0, 300)}`).toBeLessThan(500);
        if (r.status >= 400) expectTypedErrors(r.text, what);
      }
    }
  });
});

const RUNS = fuzzRuns(600);
const BATCH = 200;

describe('the tRPC endpoint under hostile calls', () => {
  test(`${RUNS} calls: no 5xx, every error typed, nothing invalid stored`, { timeout: Math.max(60_000, RUNS * 150) }, async () => {
    const codes = new Map<number, number>();
    for (let done = 0; done < RUNS; done += BATCH) {
      await fc.assert(
        fc.asyncProperty(trpcCase, async (c) => {
          const r = await send(c);
          codes.set(r.status, (codes.get(r.status) ?? 0) + 1);
          const what = `${c.role} ${r.calls.map((x) => x.path).join(',')}${r.batch ? ' (batch)' : ''}`;
          expect(r.status, `${what}: ${r.text.slice(0, 300)}`).toBeLessThan(500);
          if (r.status >= 400 || r.text.includes('"error"')) expectTypedErrors(r.text, what);
          expectPrototypesUntouched();
        }),
        { numRuns: Math.min(BATCH, RUNS - done), endOnFailure: true },
      );
      const health = await fetch(`${web.url}/healthz`);
      expect(health.status).toBe(200);
      await expectEverythingStoredValid(app.store);
      expectPrototypesUntouched();
    }
    console.log('tRPC fuzz answers by status code:', Object.fromEntries([...codes].sort(([a], [b]) => a - b)));
    expect([...codes.keys()].some((c) => c < 300)).toBe(true);
  });
});
