// Inputs for every tRPC procedure, read from its own zod input schema: a plausible input
// (every optional field present, strings a value the field could hold) and the paths of
// all its string fields, so the fuzz can put a hostile string into each field of each
// procedure while the rest of the input still passes validation.
import fc from 'fast-check';
import { appRouter } from '../../server/trpc/root';

export type ProcedureType = 'query' | 'mutation' | 'subscription';
export interface Procedure {
  path: string;
  type: ProcedureType;
  /** A plausible input (undefined for a procedure without one). */
  sample: unknown;
}
/** A place in an input: keys of maps and indexes of lists. */
export type InputPath = (string | number)[];

interface ZodDef {
  type: string;
  shape?: Record<string, { _zod: { def: ZodDef } }>;
  innerType?: { _zod: { def: ZodDef } };
  element?: { _zod: { def: ZodDef } };
  options?: { _zod: { def: ZodDef } }[];
  in?: { _zod: { def: ZodDef } };
  entries?: Record<string, string>;
  values?: unknown[];
  checks?: { _zod: { def: { check: string; value?: unknown; minimum?: number } } }[];
}

/** A value a string field of this name could hold, so that the rest of an input is valid. */
const PLAUSIBLE: Record<string, string> = {
  kind: 'PersistentVolumeClaim',
  namespace: 'team-a',
  name: 'fz-a',
  pv: 'fz-a',
  node: 'node-a',
  key: 'app',
  value: 'a',
  labelSelector: 'app=a',
  fieldSelector: 'metadata.name=fz-a',
  text: 'fz',
  resourceVersion: '1',
  lastEventId: '1',
  jobId: '1',
  actor: 'admin',
  action: 'create',
  from: '2026-01-01T00:00:00Z',
  to: '2026-12-31T00:00:00Z',
  cursor: '',
  target: 'fz-b',
  claim: 'fz-a',
  password: 'not-the-password',
  phase: 'Bound',
  storageClass: 'fast',
  volumeMode: 'Filesystem',
  nodeName: 'node-a',
  volumeName: 'fz-a',
  claimNamespace: 'team-a',
  names: 'fz-a',
  kinds: 'PersistentVolumeClaim',
  manifest: 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: fz-sample\n',
};

/** A claim, for the procedures that take a whole object (the claim form's checks). */
const SAMPLE_CLAIM = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'fz-a', namespace: 'team-a', labels: { app: 'a' } },
  spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', volumeMode: 'Filesystem', resources: { requests: { storage: '1Gi' } }, selector: { matchLabels: { app: 'a' } } },
};

function sampleOf(def: ZodDef, field: string): unknown {
  switch (def.type) {
    case 'object':
      return Object.fromEntries(Object.entries(def.shape ?? {}).map(([k, v]) => [k, sampleOf(v._zod.def, k)]));
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'nonoptional':
    case 'catch':
      return sampleOf(def.innerType!._zod.def, field);
    case 'pipe':
      return sampleOf(def.in!._zod.def, field);
    case 'array':
      return [sampleOf(def.element!._zod.def, field)];
    case 'union':
      return sampleOf(def.options![0]._zod.def, field);
    case 'enum':
      return Object.values(def.entries ?? {})[0];
    case 'literal':
      return def.values?.[0];
    case 'string':
      return PLAUSIBLE[field] ?? 'fz-a';
    case 'number':
    case 'int': {
      const min = def.checks?.map((c) => c._zod.def).find((c) => c.check === 'greater_than')?.value;
      return typeof min === 'number' ? Math.max(min, 1) : 1;
    }
    case 'boolean':
      return false;
    case 'record':
      return field === 'claim' ? structuredClone(SAMPLE_CLAIM) : { a: 'b' };
    default:
      return undefined;
  }
}

/** Every query, mutation and subscription of the router, with a plausible input. */
export function procedures(): Procedure[] {
  const procs = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { type: ProcedureType; inputs?: { _zod: { def: ZodDef } }[] } }> } })._def.procedures;
  return Object.entries(procs).map(([path, p]) => {
    const inputs = p._def.inputs ?? [];
    return { path, type: p._def.type, sample: inputs.length ? sampleOf(inputs[0]._zod.def, '') : undefined };
  });
}

/** The paths of every string in a value (its string fields, list items and map values). */
export function stringPaths(v: unknown, at: InputPath = []): InputPath[] {
  if (typeof v === 'string') return [at];
  if (Array.isArray(v)) return v.flatMap((x, i) => stringPaths(x, [...at, i]));
  if (v !== null && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => stringPaths(x, [...at, k]));
  return [];
}

/** A copy of `v` with the value at `path` replaced. */
export function withValue(v: unknown, path: InputPath, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(v)) {
    const copy = [...v];
    copy[head as number] = withValue(copy[head as number], rest, value);
    return copy;
  }
  const copy = { ...(v as Record<string, unknown>) };
  copy[head as string] = withValue(copy[head as string], rest, value);
  return copy;
}

/** The input of a procedure with each string field independently kept or made hostile. */
export function hostileInput(sample: unknown, hostile: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const paths = stringPaths(sample);
  if (paths.length === 0) return fc.constant(sample);
  return fc
    .array(fc.option(hostile, { freq: 2 }), { minLength: paths.length, maxLength: paths.length })
    .map((values) => values.reduce<unknown>((input, s, i) => (s === null ? input : withValue(input, paths[i], s)), sample));
}
