// Every role gets the same validation answer: a write whose `spec`, `metadata`, or
// `metadata.annotations` / `labels` has a hostile shape (a string, null, a list, a number,
// a `__proto__` key) is answered with the same 4xx Status (422 Invalid, or 400 for the
// limits every body passes) for a developer as for an admin, through every transport:
// REST PUT, POST, merge patch, strategic merge patch, JSON patch, server-side apply, and
// tRPC create / update (415 where a transport refuses the patch type itself, as a strategic
// merge patch of a custom resource). Never a 500; nothing hostile is stored.
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AppContext } from '../../server/wiring/context';
import type { Principal } from '../../server/domain/authorization';
import type { KubeObject } from '../../server/resources/types';
import { appRouter } from '../../server/trpc/root';
import { apiClient } from '../kube/api-client';
import { DEV_NAMESPACE, startKubeHarness, type KubeHarness } from '../kube/harness';

let h: KubeHarness;
let api: ReturnType<typeof apiClient>;
const principals = {} as Record<Role, Principal>;

type Role = 'admin' | 'developer';
const ROLES: readonly Role[] = ['admin', 'developer'];

/** The developer-writable kinds, each with a valid object in the developer's namespace. */
const KINDS: Record<string, { path: string; make(name: string, create?: boolean): KubeObject }> = {
  PersistentVolumeClaim: {
    path: `/api/v1/namespaces/${DEV_NAMESPACE}/persistentvolumeclaims`,
    // Bound (but not on create, where only an admin may pre-bind): what the controllers own
    // (the volume's name, their annotations) is carried over on a developer's write.
    make: (name, create) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: DEV_NAMESPACE, annotations: { team: 'a', ...(create ? {} : { 'pv.kubernetes.io/bind-completed': 'yes' }) } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...(create ? {} : { volumeName: 'pv-hostile' }) },
    }),
  },
  Pod: {
    path: `/api/v1/namespaces/${DEV_NAMESPACE}/pods`,
    make: (name) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: DEV_NAMESPACE, annotations: { team: 'a' } },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    }),
  },
  VolumeSnapshot: {
    path: `/apis/snapshot.storage.k8s.io/v1/namespaces/${DEV_NAMESPACE}/volumesnapshots`,
    make: (name) => ({
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshot',
      metadata: { name, namespace: DEV_NAMESPACE, annotations: { team: 'a' } },
      spec: { source: { persistentVolumeClaimName: 'subject' } },
    }),
  },
  SnapshotSchedule: {
    path: `/apis/snapshot.stowage.io/v1/namespaces/${DEV_NAMESPACE}/snapshotschedules`,
    make: (name) => ({
      apiVersion: 'snapshot.stowage.io/v1',
      kind: 'SnapshotSchedule',
      metadata: { name, namespace: DEV_NAMESPACE, annotations: { team: 'a' } },
      spec: { every: '6h', keep: 3, target: { claimName: 'subject' } },
    }),
  },
};

/** Hostile values as JSON text (a `__proto__` key cannot be written as an object literal). */
const SHAPES: Record<string, string> = {
  string: '"x"',
  null: 'null',
  list: '["a"]',
  number: '42',
  'a __proto__ key': '{"__proto__":{"polluted":"1"}}',
};

/** Where the hostile value goes: a path of keys in the object. */
const PLACES: Record<string, string[]> = {
  spec: ['spec'],
  'metadata.annotations': ['metadata', 'annotations'],
  'metadata.labels': ['metadata', 'labels'],
  metadata: ['metadata'],
};

const HOLE = '\u0000hostile\u0000';

/** The object as JSON text with the hostile value at `place`. */
function withHostile(obj: KubeObject, place: string[], value: string): string {
  const copy = structuredClone(obj) as Record<string, any>;
  let at = copy;
  for (const k of place.slice(0, -1)) at = at[k];
  at[place.at(-1)!] = HOLE;
  return JSON.stringify(copy).replace(JSON.stringify(HOLE), value);
}

/** A merge patch (or apply body) holding only the hostile value at `place`. */
function patchAt(place: string[], value: string): string {
  return place.reduceRight((inner, k) => `{${JSON.stringify(k)}:${inner}}`, value);
}

interface Answer {
  status: number;
  message: string;
}

const TRPC_STATUS: Record<string, number> = { BAD_REQUEST: 400, FORBIDDEN: 403, NOT_FOUND: 404, CONFLICT: 409, UNPROCESSABLE_CONTENT: 422 };

async function viaTrpc(role: Role, call: (t: ReturnType<typeof appRouter.createCaller>['objects']) => Promise<unknown>): Promise<Answer> {
  const t = appRouter.createCaller({ app: h.app as unknown as AppContext, principal: principals[role], setSessionCookie: () => {} }).objects;
  try {
    await call(t);
    return { status: 200, message: '' };
  } catch (e) {
    if (!(e instanceof TRPCError)) return { status: 599, message: String(e) };
    return { status: TRPC_STATUS[e.code] ?? 500, message: e.message };
  }
}

type Transport = (role: Role, kind: string, name: string, place: string[], value: string) => Promise<Answer>;

const token = (role: Role) => (role === 'admin' ? 'admin' : 'dev');

async function rest(role: Role, method: string, path: string, body: string, contentType = 'application/json'): Promise<Answer> {
  const res = await api({ method, path, token: token(role), body, headers: { 'Content-Type': contentType } });
  // A write that is allowed answers the object, shown as the role may see it: only refusals are compared.
  return { status: res.status, message: res.status < 300 ? '' : String(res.json?.message ?? res.text) };
}

const TRANSPORTS: Record<string, Transport> = {
  'REST PUT': (role, kind, name, place, value) => rest(role, 'PUT', `${KINDS[kind].path}/${name}`, withHostile(KINDS[kind].make(name), place, value)),
  'REST POST': (role, kind, name, place, value) => rest(role, 'POST', `${KINDS[kind].path}?dryRun=All`, withHostile(KINDS[kind].make(`${name}-new`, true), place, value)),
  'merge patch': (role, kind, name, place, value) => rest(role, 'PATCH', `${KINDS[kind].path}/${name}`, patchAt(place, value), 'application/merge-patch+json'),
  'strategic merge patch': (role, kind, name, place, value) =>
    rest(role, 'PATCH', `${KINDS[kind].path}/${name}`, patchAt(place, value), 'application/strategic-merge-patch+json'),
  'JSON patch': (role, kind, name, place, value) =>
    rest(role, 'PATCH', `${KINDS[kind].path}/${name}`, `[{"op":"add","path":"/${place.join('/')}","value":${value}}]`, 'application/json-patch+json'),
  'server-side apply': (role, kind, name, place, value) => {
    const o = KINDS[kind].make(name);
    const body = withHostile({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name, namespace: DEV_NAMESPACE } }, place, value);
    return rest(role, 'PATCH', `${KINDS[kind].path}/${name}?fieldManager=hostile&force=true`, body, 'application/apply-patch+yaml');
  },
  'tRPC create': (role, kind, name, place, value) =>
    viaTrpc(role, (t) => t.create({ manifest: withHostile(KINDS[kind].make(`${name}-new`, true), place, value), namespace: DEV_NAMESPACE, dryRun: true })),
  'tRPC update': (role, kind, name, place, value) =>
    viaTrpc(role, (t) => t.update({ manifest: withHostile(KINDS[kind].make(name), place, value), kind, namespace: DEV_NAMESPACE, name })),
};

beforeAll(async () => {
  h = await startKubeHarness({ protection: false });
  api = apiClient(h);
  principals.admin = (await h.app.users.authenticate(h.adminToken))!;
  principals.developer = (await h.app.users.authenticate(h.devToken))!;
}, 60_000);
afterAll(async () => h?.close());

function prototypeUntouched(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

const rows = Object.keys(KINDS).flatMap((kind) => Object.keys(TRANSPORTS).map((transport) => ({ kind, transport })));

describe('a hostile shape gets the same answer for every role', () => {
  test.each(rows)('$kind through $transport', async ({ kind, transport }) => {
    const name = `hostile-${kind.toLowerCase()}-${transport.replace(/\W+/g, '-').toLowerCase()}`;
    await h.ts.store.create(KINDS[kind].make(name));
    const failures: string[] = [];
    for (const [placeName, place] of Object.entries(PLACES)) {
      for (const [shapeName, value] of Object.entries(SHAPES)) {
        const answers = {} as Record<Role, Answer>;
        for (const role of ROLES) answers[role] = await TRANSPORTS[transport](role, kind, name, place, value);
        const what = `${placeName} = ${shapeName}: admin ${answers.admin.status} "${answers.admin.message}", developer ${answers.developer.status} "${answers.developer.message}"`;
        if (answers.developer.status >= 500 || answers.admin.status >= 500) failures.push(`a server error: ${what}`);
        // null removes a map (or the whole spec): a well-shaped write, which the role rules may then refuse.
        else if (shapeName === 'null') continue;
        else if (answers.developer.status !== answers.admin.status || answers.developer.message !== answers.admin.message) {
          failures.push(`different answers: ${what}`);
        } else if (![400, 415, 422].includes(answers.admin.status)) failures.push(`not refused as invalid: ${what}`);
      }
    }
    prototypeUntouched();
    expect(failures).toEqual([]);
    // What is stored is still of a valid shape.
    const stored = (await h.ts.store.tryGet(kind, DEV_NAMESPACE, name))!;
    expect(stored.metadata.name).toBe(name);
    for (const m of [stored.metadata.annotations, stored.metadata.labels]) if (m !== undefined) expect(typeof m === 'object' && !Array.isArray(m)).toBe(true);
  });
});
