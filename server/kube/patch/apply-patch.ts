// The three patch types kubectl and the clients send, chosen by Content-Type, applied to
// the object as stored. Server-side apply (application/apply-patch+yaml) is not served.
import jsonpatch, { type Operation } from 'fast-json-patch';
import { StowageError } from '../../domain/errors';
import type { KubeObject } from '../../resources/types';
import { jsonMergePatch } from './json-merge';
import { patchMetaFor } from './patch-meta';
import { strategicMergePatch, type JsonMap } from './strategic-merge';

export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
] as const;
export type PatchType = (typeof PATCH_TYPES)[number];

/** Upstream's limit on the operations of one JSON patch. */
const MAX_JSON_PATCH_OPERATIONS = 10_000;

/** The patch type of a Content-Type header, or a 415 UnsupportedMediaType. */
export function patchTypeOf(contentType: string | undefined): PatchType {
  const base = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if ((PATCH_TYPES as readonly string[]).includes(base)) return base as PatchType;
  throw new StowageError(
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.join(', ')}`,
  );
}

const MALFORMED_OPERATION = new Set([
  'SEQUENCE_NOT_AN_ARRAY',
  'OPERATION_NOT_AN_OBJECT',
  'OPERATION_OP_INVALID',
  'OPERATION_PATH_INVALID',
  'OPERATION_FROM_REQUIRED',
  'OPERATION_VALUE_REQUIRED',
  'OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED',
]);

function applyJsonPatch(current: KubeObject, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw new StowageError('BadRequest', 'a JSON patch must be a JSON array of operations');
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new StowageError(
      'RequestEntityTooLarge',
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
    );
  }
  try {
    return jsonpatch.applyPatch(structuredClone(current), ops as Operation[], true, true).newDocument;
  } catch (e) {
    const name = (e as { name?: string }).name ?? '';
    const message = (e as Error).message?.split('\n')[0] ?? String(e);
    if (MALFORMED_OPERATION.has(name)) throw new StowageError('BadRequest', message);
    throw new StowageError('Invalid', `the JSON patch could not be applied: ${message}`);
  }
}

/** The object after the patch; the caller validates and stores it. */
export function applyPatch(type: PatchType, current: KubeObject, patch: unknown): unknown {
  switch (type) {
    case 'application/json-patch+json':
      return applyJsonPatch(current, patch);
    case 'application/merge-patch+json':
      if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
        throw new StowageError('BadRequest', 'a merge patch must be a JSON object');
      }
      return jsonMergePatch(current, patch);
    case 'application/strategic-merge-patch+json':
      if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
        throw new StowageError('BadRequest', 'a strategic merge patch must be a JSON object');
      }
      return strategicMergePatch(current as JsonMap, patch as JsonMap, patchMetaFor(current.kind));
  }
}
