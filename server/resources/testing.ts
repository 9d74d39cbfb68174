// Test helpers: run a strategy the way the store does, without a store.
import type { FieldError } from '../domain/errors';
import type { KubeObject, Strategy } from './types';

/** Shape, defaults, prepare, validate: the errors a create would report. */
export function createErrors<T extends KubeObject>(strategy: Strategy<T>, input: unknown): FieldError[] {
  // The strategy's own shape check runs first; defaults and validation only see what passed it.
  const obj = structuredClone(input) as T;
  const shape = strategy.validateShape(obj);
  if (shape.length > 0) return shape;
  strategy.applyDefaults(obj);
  strategy.prepareForCreate(obj);
  return strategy.validate(obj);
}

/** The object a create would store; throws when it is invalid. */
export function created<T extends KubeObject>(strategy: Strategy<T>, input: unknown, meta: Partial<KubeObject['metadata']> = {}): T {
  const errs = createErrors(strategy, input);
  if (errs.length > 0) throw new Error(`invalid ${strategy.kind}: ${lines(errs).join('; ')}`);
  // Passed the kind's shape check just above.
  const obj = structuredClone(input) as T;
  strategy.applyDefaults(obj);
  strategy.prepareForCreate(obj);
  obj.metadata = { uid: 'uid-1', resourceVersion: '1', generation: 1, creationTimestamp: '2024-01-01T00:00:00Z', ...obj.metadata, ...meta };
  return obj;
}

/** The errors an update of the main resource would report. */
export function updateErrors<T extends KubeObject>(strategy: Strategy<T>, prev: T, input: unknown): FieldError[] {
  // Checked by the strategy's shape check before anything else reads it.
  const next = structuredClone(input) as T;
  const shape = strategy.validateShape(next);
  if (shape.length > 0) return shape;
  strategy.applyDefaults(next);
  strategy.prepareForUpdate(next, prev);
  return [...strategy.validate(next), ...strategy.validateUpdate(next, prev)];
}

/** The errors an update of the status subresource would report. */
export function statusUpdateErrors<T extends KubeObject>(strategy: Strategy<T>, prev: T, input: unknown): FieldError[] {
  // Checked by the strategy's shape check before anything else reads it.
  const next = structuredClone(input) as T;
  const shape = strategy.validateShape(next);
  if (shape.length > 0) return shape;
  strategy.applyDefaults(next);
  strategy.prepareForStatusUpdate(next, prev);
  return [...strategy.validate(next), ...strategy.validateUpdate(next, prev)];
}

/** `field: message` per error, for readable assertions. */
export function lines(errs: FieldError[]): string[] {
  return errs.map((e) => `${e.field}: ${e.message}`);
}

/** A deep copy of `base` with `patch` applied: objects merge, `undefined` deletes, the rest replaces. */
export function patched<T>(base: T, patch: unknown): T {
  const out = structuredClone(base);
  merge(out as Record<string, unknown>, patch);
  return out;
}

const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function merge(target: Record<string, unknown>, patch: unknown): void {
  for (const [k, v] of Object.entries(patch ?? {})) {
    const t = target[k];
    if (v === undefined) delete target[k];
    else if (isMap(v) && isMap(t)) merge(t, v);
    else target[k] = structuredClone(v);
  }
}
