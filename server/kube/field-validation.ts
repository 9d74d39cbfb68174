// `fieldValidation`: what to do with fields a kind does not have. Strict refuses them
// (400, as upstream's strict decoding); Warn (the default) and Ignore drop them, Warn
// with a Warning header per field.
import { StowageError } from '../domain/errors';
import type { KubeObject, Strategy } from '../resources/types';
import type { FieldValidation } from './query';

const UNKNOWN = /^unknown field "(.*)"$/;

/** Splits `spec.a[b.c][0].d` into ['spec', 'a', 'b.c', '0', 'd']. */
export function splitFieldPath(path: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === '.') {
      if (cur) out.push(cur);
      cur = '';
    } else if (c === '[') {
      if (cur) out.push(cur);
      cur = '';
      const end = path.indexOf(']', i);
      if (end < 0) {
        cur = path.slice(i + 1);
        break;
      }
      out.push(path.slice(i + 1, end));
      i = end;
    } else {
      cur += c;
    }
  }
  if (cur) out.push(cur);
  return out;
}

function deletePath(obj: unknown, segments: string[]): void {
  let node = obj as Record<string, unknown> | undefined;
  for (let i = 0; i < segments.length - 1; i++) {
    const next = node?.[segments[i]];
    if (next === null || typeof next !== 'object') return;
    node = next as Record<string, unknown>;
  }
  if (node && typeof node === 'object') delete node[segments[segments.length - 1]];
}

/**
 * Applies the directive to `obj` in place; returns the warnings to send. Other shape
 * errors are left for the store's validation to report with their field paths.
 */
export function applyFieldValidation(s: Strategy, obj: KubeObject, mode: FieldValidation): string[] {
  const unknown = s
    .validateShape(obj)
    .map((e) => UNKNOWN.exec(e.message)?.[1])
    .filter((f): f is string => f !== undefined);
  if (unknown.length === 0) return [];
  const messages = unknown.map((f) => `unknown field "${f}"`);
  if (mode === 'Strict') {
    throw new StowageError(
      'BadRequest',
      `${s.kind} in version "${s.version}" cannot be handled as a ${s.kind}: strict decoding error: ${messages.join(', ')}`,
    );
  }
  for (const f of unknown) deletePath(obj, splitFieldPath(f));
  return mode === 'Warn' ? messages : [];
}
