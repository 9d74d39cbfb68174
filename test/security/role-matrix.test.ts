// The role matrix: every role x kind x verb (status subresources included), generated
// from ONE table (access-table.ts), through the Kubernetes REST API and through tRPC.
// Allowed requests succeed; refused ones are 403 / FORBIDDEN and change nothing (the
// global resourceVersion does not move: no controllers run here, so nothing else writes).
// Then the tenant rules the table cannot say: pre-binding, controller-owned annotations,
// claim status, and what the binder's explanation tells a developer.
import https from 'node:https';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AppContext } from '../../server/wiring/context';
import type { Principal } from '../../server/domain/authorization';
import type { PersistentVolumeClaim } from '../../server/resources/persistent-volume-claim/schema';
import { appRouter } from '../../server/trpc/root';
import { apiClient, type ApiResponse } from '../kube/api-client';
import { startKubeHarness, type KubeHarness } from '../kube/harness';
import { cases, collectionPath, fixture, INFO, MATRIX_TARGET, OTHER_NS, OWN_NS, type Case, type Kind, type Role } from './access-table';

let h: KubeHarness;
let api: ReturnType<typeof apiClient>;
const tokens = {} as Record<Role, string>;
const principals = {} as Record<Role, Principal>;
let seq = 0;

beforeAll(async () => {
  // It counts writes exactly: no protection controllers adding finalizers in the background.
  h = await startKubeHarness({ protection: false });
  api = apiClient(h);
  await h.app.users.create({ name: 'val', role: 'viewer' });
  tokens.admin = h.adminToken;
  tokens.developer = h.devToken;
  tokens.viewer = await h.app.users.createToken('val');
  for (const r of ['admin', 'developer', 'viewer'] as Role[]) principals[r] = (await h.app.users.authenticate(tokens[r]))!;
  await h.ts.store.create(fixture('BackupTarget', MATRIX_TARGET, ''));
}, 60_000);
afterAll(async () => h?.close());

const rv = async () => (await h.ts.store.currentResourceVersion()).toString();

function nsOf(c: Pick<Case, 'scope'>): string {
  return c.scope === 'own' ? OWN_NS : OTHER_NS;
}

/** The object a case acts on: made by the store beforehand (none for create, list, watch). */
async function target(c: Case): Promise<{ name: string; ns: string }> {
  const ns = nsOf(c);
  if (c.kind === 'Namespace' && c.role === 'developer' && c.scope === 'own') return { name: OWN_NS, ns };
  const name = `m-${++seq}`;
  if (!c.status && (c.verb === 'create' || c.verb === 'list' || c.verb === 'watch')) return { name, ns };
  await h.ts.store.create(fixture(c.kind, name, ns));
  return { name, ns };
}

/** Opens a watch and answers its status code as soon as the headers arrive. */
function watchStatus(path: string, token: string): Promise<number> {
  const url = new URL(h.url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: url.hostname, port: url.port, path, method: 'GET', headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' }, ca: h.caPem },
      (res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      },
    );
    req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
    req.end();
  });
}

async function rest(c: Case, name: string, ns: string): Promise<number> {
  const token = tokens[c.role];
  const coll = collectionPath(c.kind, ns);
  const item = `${coll}/${name}${c.status ? '/status' : ''}`;
  const stored = async () => (await h.ts.store.tryGet(c.kind, INFO[c.kind].namespaced ? ns : undefined, name))!;
  let r: ApiResponse;
  switch (c.verb) {
    case 'get':
      r = await api({ path: item, token });
      break;
    case 'list':
      r = await api({ path: coll, token });
      break;
    case 'watch':
      return watchStatus(`${coll}?watch=1&timeoutSeconds=5`, token);
    case 'create':
      r = await api({ method: 'POST', path: coll, token, body: fixture(c.kind, name, ns) });
      break;
    case 'update': {
      const o = await stored();
      o.metadata.labels = { ...(o.metadata.labels ?? {}), matrix: 'updated' };
      r = await api({ method: 'PUT', path: item, token, body: o });
      break;
    }
    case 'patch':
      r = await api({
        method: 'PATCH',
        path: item,
        token,
        body: c.status ? { status: {} } : { metadata: { labels: { matrix: 'patched' } } },
        headers: { 'Content-Type': 'application/merge-patch+json' },
      });
      break;
    case 'delete':
      r = await api({ method: 'DELETE', path: item, token });
      break;
  }
  if (r.status >= 400) expect(r.json?.kind, `${r.status} ${r.text}`).toBe('Status');
  return r.status;
}

const name = (c: Case) => `${c.role} ${c.verb} ${INFO[c.kind].plural}${c.status ? '/status' : ''} (${c.scope} namespace): ${c.want ? 'allowed' : 'refused'}`;
// A Namespace has no "other namespace" collection: its list and watch are covered by "own".
const restCases = cases().filter((c) => !(c.kind === 'Namespace' && c.scope === 'other' && (c.verb === 'list' || c.verb === 'watch')));

describe('the role matrix through the REST API', () => {
  test.each(restCases.map((c) => [name(c), c] as const))('%s', async (_n, c) => {
    const { name: n, ns } = await target(c);
    const storedBefore = await h.ts.store.tryGet(c.kind, INFO[c.kind].namespaced ? ns : undefined, n);
    const before = await rv();
    const status = await rest(c, n, ns);
    if (c.want) {
      expect(status, 'allowed').toBeGreaterThanOrEqual(200);
      expect(status, 'allowed').toBeLessThan(300);
    } else {
      expect(status, 'refused').toBe(403);
      expect(await rv(), 'a refused request writes nothing').toBe(before);
      expect(await h.ts.store.tryGet(c.kind, INFO[c.kind].namespaced ? ns : undefined, n)).toEqual(storedBefore);
    }
  });
});

function caller(role: Role) {
  const app = h.app as unknown as AppContext;
  return appRouter.createCaller({ app, principal: principals[role], setSessionCookie: () => {} });
}

const TRPC_VERBS = ['get', 'list', 'create', 'update', 'delete'] as const;
const trpcCases = cases({ verbs: TRPC_VERBS, status: false }).filter((c) => !(c.kind === 'Namespace' && c.scope === 'other' && c.verb === 'list'));

describe('the role matrix through tRPC', () => {
  test.each(trpcCases.map((c) => [name(c), c] as const))('%s', async (_n, c) => {
    const { name: n, ns } = await target(c);
    const namespace = INFO[c.kind].namespaced ? ns : undefined;
    const before = await rv();
    const t = caller(c.role).objects;
    const run = async () => {
      switch (c.verb) {
        case 'get':
          return t.get({ kind: c.kind, namespace, name: n });
        case 'list':
          return t.list({ kind: c.kind, namespace });
        case 'create':
          return t.create({ manifest: JSON.stringify(fixture(c.kind, n, ns)), namespace });
        case 'update': {
          const o = (await h.ts.store.tryGet(c.kind, namespace, n))!;
          o.metadata.labels = { matrix: 'updated' };
          return t.update({ manifest: JSON.stringify(o), kind: c.kind, namespace, name: n });
        }
        case 'delete':
          return t.delete({ kind: c.kind, namespace, name: n });
        default:
          throw new Error(`no tRPC call for the verb ${c.verb}`);
      }
    };
    const err = await run().then(
      () => undefined,
      (e: unknown) => e,
    );
    if (c.want) expect(err).toBeUndefined();
    else {
      expect(err).toBeInstanceOf(TRPCError);
      expect((err as TRPCError).code).toBe('FORBIDDEN');
      expect(await rv()).toBe(before);
    }
  });
});

describe('tenant rules on claims', () => {
  const claims = collectionPath('PersistentVolumeClaim', OWN_NS);
  const claim = (n: string, extra: { annotations?: Record<string, string>; volumeName?: string } = {}) => {
    // fixture of PersistentVolumeClaim is a claim with a spec.
    const c = fixture('PersistentVolumeClaim', n, OWN_NS) as PersistentVolumeClaim;
    if (extra.annotations) c.metadata.annotations = extra.annotations;
    if (extra.volumeName) c.spec!.volumeName = extra.volumeName;
    return c;
  };

  beforeAll(async () => {
    await h.ts.store.create(fixture('PersistentVolume', 'big-100g', ''));
  });

  test.each([
    { what: 'pre-binds with spec.volumeName', body: claim('pre-1', { volumeName: 'big-100g' }) },
    { what: 'sets pv.kubernetes.io/bind-completed', body: claim('pre-2', { annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } }) },
    { what: 'sets pv.kubernetes.io/bound-by-controller', body: claim('pre-3', { annotations: { 'pv.kubernetes.io/bound-by-controller': 'yes' } }) },
    { what: 'sets volume.kubernetes.io/storage-provisioner', body: claim('pre-4', { annotations: { 'volume.kubernetes.io/storage-provisioner': 'x.io/y' } }) },
    { what: 'sets the binding explanation', body: claim('pre-5', { annotations: { 'stowage.io/binding-explanation': '{}' } }) },
  ])('a developer may not create a claim that $what; an admin may', async ({ body }) => {
    const before = await rv();
    const dev = await api({ method: 'POST', path: claims, token: tokens.developer, body });
    expect(dev.status).toBe(403);
    expect(dev.json.message).toMatch(/controllers|pre-bind/);
    expect(await rv()).toBe(before);
    const dry = await api({ method: 'POST', path: `${claims}?dryRun=All`, token: tokens.developer, body });
    expect(dry.status).toBe(403);
    const admin = await api({ method: 'POST', path: claims, token: tokens.admin, body });
    expect(admin.status).toBe(201);
  });

  test('a developer may not name the node of a claim (placement sets selected-node from the pod); an admin may', async () => {
    const body = claim('sel-1', { annotations: { 'volume.kubernetes.io/selected-node': 'n1' } });
    const r = await api({ method: 'POST', path: claims, token: tokens.developer, body });
    expect(r.status).toBe(403);
    expect(r.json.message).toContain('volume.kubernetes.io/selected-node');
    const admin = await api({ method: 'POST', path: claims, token: tokens.admin, body });
    expect(admin.status).toBe(201);
  });

  test.each([
    { what: 'a merge patch naming a volume', patch: { spec: { volumeName: 'big-100g' } } },
    { what: 'a merge patch adding bind-completed', patch: { metadata: { annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } } } },
  ])('a developer may not pre-bind their existing claim by $what', async ({ patch }) => {
    await h.ts.store.create(claim(`own-${++seq}`));
    const n = `own-${seq}`;
    const stored = await h.ts.store.tryGet('PersistentVolumeClaim', OWN_NS, n);
    const before = await rv();
    const r = await api({ method: 'PATCH', path: `${claims}/${n}`, token: tokens.developer, body: patch, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(r.status).toBe(403);
    expect(await rv()).toBe(before);
    expect(await h.ts.store.tryGet('PersistentVolumeClaim', OWN_NS, n)).toEqual(stored);
  });

  test('a developer may not write claim status (capacity 100Ti is not kept); an admin may', async () => {
    await h.ts.store.create(claim('status-1'));
    const o = (await h.ts.store.tryGet('PersistentVolumeClaim', OWN_NS, 'status-1'))!;
    o.status = { phase: 'Bound', capacity: { storage: '100Ti' }, accessModes: ['ReadWriteOnce'] };
    const before = await rv();
    const dev = await api({ method: 'PUT', path: `${claims}/status-1/status`, token: tokens.developer, body: o });
    expect(dev.status).toBe(403);
    expect(await rv()).toBe(before);
    expect((await h.ts.store.tryGet('PersistentVolumeClaim', OWN_NS, 'status-1'))!.status?.capacity).toBeUndefined();
    const admin = await api({ method: 'PUT', path: `${claims}/status-1/status`, token: tokens.admin, body: o });
    expect(admin.status).toBe(200);
    expect(admin.json.status.capacity.storage).toBe('100Ti');
  });

  test("the binder's explanation tells a developer counts and reasons, never other namespaces' claims or volume names", async () => {
    const explanation = {
      evaluatedAt: '2026-11-23T10:00:00Z',
      // The volume it asks for is its own spec.volumeName (an admin pre-bound it): the developer sees that anyway.
      summary: 'The claim asks for volume "asked-for", which is bound to another claim (team-b/claim-later).',
      candidates: [
        { name: 'big-100g', reasons: ['is reserved for claim team-b/claim-later (spec.claimRef)'] },
        { name: 'pv-secret-name', reasons: ['capacity 1Gi is less than the requested 2Gi'] },
      ],
    };
    const c = claim('explained', { volumeName: 'asked-for', annotations: { 'stowage.io/binding-explanation': JSON.stringify(explanation) } });
    expect((await api({ method: 'POST', path: claims, token: tokens.admin, body: c })).status).toBe(201);
    const o = (await h.ts.store.tryGet('PersistentVolumeClaim', OWN_NS, 'explained'))!;
    o.status = { phase: 'Pending', conditions: [{ type: 'Bindable', status: 'False', reason: 'VolumeBoundToOtherClaim', message: explanation.summary, lastTransitionTime: explanation.evaluatedAt }] };
    expect((await api({ method: 'PUT', path: `${claims}/explained/status`, token: tokens.admin, body: o })).status).toBe(200);

    const reads = [
      (await api({ path: `${claims}/explained`, token: tokens.developer })).text,
      (await api({ path: claims, token: tokens.developer })).text,
      (await api({ path: '/api/v1/persistentvolumeclaims', token: tokens.developer })).text,
      JSON.stringify(await caller('developer').objects.get({ kind: 'PersistentVolumeClaim', namespace: OWN_NS, name: 'explained' })),
    ];
    for (const text of reads) {
      expect(text).toContain('explained');
      expect(text).not.toMatch(/team-b|claim-later|pv-secret-name/);
    }
    const shown = JSON.parse((await api({ path: `${claims}/explained`, token: tokens.developer })).json.metadata.annotations['stowage.io/binding-explanation']);
    expect(shown.candidates.map((x: { reasons: string[] }) => x.reasons)).toEqual([['is reserved for another claim (spec.claimRef)'], ['capacity 1Gi is less than the requested 2Gi']]);
    // A viewer (who may list every volume and claim) and an admin see it whole.
    expect((await api({ path: `${claims}/explained`, token: tokens.viewer })).text).toMatch(/team-b\/claim-later/);

    // Round trip: the developer edits the claim as shown; the stored explanation is kept.
    const asShown = (await api({ path: `${claims}/explained`, token: tokens.developer })).json;
    asShown.metadata.labels = { edited: 'yes' };
    const put = await api({ method: 'PUT', path: `${claims}/explained`, token: tokens.developer, body: asShown });
    expect(put.status, put.text).toBe(200);
    const after = (await h.ts.store.tryGet('PersistentVolumeClaim', OWN_NS, 'explained'))!;
    expect(after.metadata.labels).toEqual({ edited: 'yes' });
    expect(JSON.parse(after.metadata.annotations!['stowage.io/binding-explanation'])).toEqual(explanation);
  });

  test('a list across namespaces shows a developer only their own claims', async () => {
    await h.ts.store.create(fixture('PersistentVolumeClaim', 'elsewhere', OTHER_NS));
    const r = await api({ path: '/api/v1/persistentvolumeclaims', token: tokens.developer });
    expect(r.status).toBe(200);
    const namespaces = new Set(r.json.items.map((o: { metadata: { namespace: string } }) => o.metadata.namespace));
    expect([...namespaces]).toEqual([OWN_NS]);
  });
});

export type { Kind };
