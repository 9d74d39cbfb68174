// Seeding and checking through the same tRPC API the dashboard uses, as the admin
// (bearer token from the admin kubeconfig).
import { stringify } from 'yaml';
import { e2eEnv, SESSION_COOKIE } from './env';

interface TrpcResponse<T> {
  result?: { data: T };
  error?: { message: string; data?: { code?: string } };
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

async function call<T>(proc: string, input: unknown, type: 'query' | 'mutation'): Promise<T> {
  const base = `${e2eEnv('url')}/api/trpc/${proc}`;
  const headers = { authorization: `Bearer ${e2eEnv('adminToken')}`, 'content-type': 'application/json' };
  const res =
    type === 'query'
      ? await fetch(`${base}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers })
      : await fetch(base, { method: 'POST', headers, body: JSON.stringify(input) });
  const body = (await res.json()) as TrpcResponse<T>;
  if (body.error) throw new ApiError(body.error.message, body.error.data?.code);
  return body.result!.data;
}

/** Signs in as the dashboard does and returns the session cookie's value. */
export async function signInSession(name: string, password: string): Promise<string> {
  const res = await fetch(`${e2eEnv('url')}/api/trpc/auth.signIn`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, password }),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
  if (!res.ok || !cookie) throw new Error(`sign-in as ${name} failed: HTTP ${res.status} ${await res.text()}`);
  return cookie.slice(SESSION_COOKIE.length + 1).split(';')[0];
}

export type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; [k: string]: unknown }; [k: string]: unknown };

export function createObject<T = Obj>(obj: object, namespace?: string): Promise<T> {
  return call<T>('objects.create', { manifest: stringify(obj), namespace }, 'mutation');
}

export function updateObject<T = Obj>(obj: Obj): Promise<T> {
  return call<T>('objects.update', { manifest: stringify(obj), kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name }, 'mutation');
}

export function getObject<T = Obj>(kind: string, name: string, namespace?: string): Promise<T> {
  return call<T>('objects.get', { kind, name, namespace }, 'query');
}

/** The object, or undefined when it does not exist. */
export async function findObject<T = Obj>(kind: string, name: string, namespace?: string): Promise<T | undefined> {
  try {
    return await getObject<T>(kind, name, namespace);
  } catch (e) {
    if (e instanceof ApiError && e.code === 'NOT_FOUND') return undefined;
    throw e;
  }
}

export function deleteObject(kind: string, name: string, namespace?: string): Promise<{ deleted: boolean }> {
  return call<{ deleted: boolean }>('objects.delete', { kind, name, namespace }, 'mutation');
}

/** Makes `name` the one default StorageClass (on), or takes its mark away (off), as the dashboard does. */
export function setDefaultClass(name: string, on: boolean): Promise<{ defaults: string[] }> {
  return call<{ defaults: string[] }>('lists.setDefaultClass', { name, on }, 'mutation');
}

/** Makes `name` its driver's one default VolumeSnapshotClass (on), as the class's page does. */
export function setDefaultSnapshotClass(name: string, on: boolean): Promise<{ defaults: string[] }> {
  return call<{ defaults: string[] }>('snapshots.setDefaultClass', { name, on }, 'mutation');
}

/** The names of the StorageClasses marked default. */
export async function defaultClasses(): Promise<string[]> {
  const page = await call<{ items: Obj[] }>('lists.page', { kind: 'StorageClass', limit: 500 }, 'query');
  const isDefault = (o: Obj) => {
    const a = (o.metadata.annotations ?? {}) as Record<string, string>;
    return a['storageclass.kubernetes.io/is-default-class'] === 'true' || a['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
  };
  return page.items.filter(isDefault).map((o) => o.metadata.name);
}

/** The names of the objects of a kind (the first 500, by name). */
export async function objectNames(kind: string): Promise<string[]> {
  const page = await call<{ items: Obj[] }>('lists.page', { kind, limit: 500 }, 'query');
  return page.items.map((o) => o.metadata.name);
}
