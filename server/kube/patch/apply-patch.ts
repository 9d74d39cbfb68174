// The three patch types kubectl and the clients send, chosen by Content-Type, applied to
// the object as stored. Server-side apply (application/apply-patch+yaml) is handled apart
// (server-side-apply.ts): it needs the field manager and may create the object.
import { StowageError } from '../../domain/errors';
import type { KubeObject } from '../../resources/types';
import { jsonMergePatch } from './json-merge';
import { applyJsonPatch, parseJsonPatch } from './json-patch';
import { patchMetaFor } from './patch-meta';
import { strategicMergePatch, type JsonMap } from './strategic-merge';

export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;
export type PatchType = (typeof PATCH_TYPES)[number];

/** Upstream's limit on the operations of one JSON patch. */
const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * The patch type of a Content-Type header, or a 415 UnsupportedMediaType. A kind served as
 * a custom resource takes no strategic merge patch (as upstream's apiserver for CRs).
 */
export function patchTypeOf(contentType: string | undefined, customResource = false): PatchType {
  const base = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const accepted = customResource ? PATCH_TYPES.filter((t) => t !== 'application/strategic-merge-patch+json') : PATCH_TYPES;
  if ((accepted as readonly string[]).includes(base)) return base as PatchType;
  throw new StowageError(
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

function applyJsonPatchBody(current: KubeObject, body: unknown): unknown {
  if (Array.isArray(body) && body.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new StowageError(
      'RequestEntityTooLarge',
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${body.length}`,
    );
  }
  return applyJsonPatch(current, parseJsonPatch(body));
}

/** The object after the patch; the caller validates and stores it. */
export function applyPatch(type: PatchType, current: KubeObject, patch: unknown): unknown {
  switch (type) {
    case 'application/json-patch+json':
      return applyJsonPatchBody(current, patch);
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
    case 'application/apply-patch+yaml':
      throw new StowageError('BadRequest', 'an apply patch needs its field manager (server-side apply)');
  }
}
