// The first check of every write: the body is a JSON object within the limits of every
// value from outside, and of its kind's shape. The store runs it on every write; the
// objects service runs it before any role-specific rule reads the body, so that every
// role gets the same answer (422 Invalid) for a body of the wrong shape. Pure: no I/O.
import { invalid, StowageError } from '../domain/errors';
import { inspectUntrusted } from '../domain/untrusted';
import type { KubeObject, Strategy } from './types';

/** Throws the Status (400 or 422) for a body that is not an object of `s`'s shape. */
export function checkShape(s: Strategy, obj: unknown): asserts obj is KubeObject {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw new StowageError('BadRequest', `the body of a ${s.kind} must be a JSON object`);
  }
  const problem = inspectUntrusted(obj);
  if (problem) {
    const name = (obj as KubeObject).metadata?.name;
    throw invalid(s.kind, typeof name === 'string' && !name.includes('\0') ? name : undefined, [
      { field: problem.path || '<root>', reason: 'FieldValueInvalid', message: `Invalid value: ${problem.message}` },
    ]);
  }
  const errors = s.validateShape(obj);
  if (errors.length > 0) {
    const name = (obj as KubeObject).metadata?.name;
    throw invalid(s.kind, typeof name === 'string' ? name : undefined, errors);
  }
}
