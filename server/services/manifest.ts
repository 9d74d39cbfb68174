// Turns text a person typed (YAML or JSON) into one object, with clear errors.
import { parseAllDocuments } from 'yaml';
import { StowageError } from '../domain/errors';
import { strategyForKind } from '../resources/registry';
import type { KubeObject } from '../resources/types';

export const MAX_MANIFEST_BYTES = 1024 * 1024;

export function parseManifest(text: string): KubeObject {
  if (Buffer.byteLength(text, 'utf8') > MAX_MANIFEST_BYTES) {
    throw new StowageError('RequestEntityTooLarge', `the manifest is larger than ${MAX_MANIFEST_BYTES} bytes`);
  }
  const docs = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true }).filter(
    (d) => !('contents' in d) || d.contents !== null || d.errors.length > 0,
  );
  if (docs.length === 0) throw new StowageError('BadRequest', 'the manifest is empty');
  if (docs.length > 1) throw new StowageError('BadRequest', 'the manifest holds several documents; give one object at a time');
  const doc = docs[0];
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const where = e.linePos?.[0] ? ` at line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '';
    throw new StowageError('BadRequest', `invalid YAML${where}: ${e.message.split('\n')[0]}`);
  }
  const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
  return checkObjectHeader(value);
}

/** The object must be a mapping with a known kind and its apiVersion. */
export function checkObjectHeader(value: unknown, expectedKind?: string): KubeObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new StowageError('BadRequest', 'the manifest must be a mapping with apiVersion, kind and metadata');
  }
  const o = value as KubeObject;
  if (typeof o.kind !== 'string' || o.kind === '') {
    throw new StowageError('BadRequest', "Object 'Kind' is missing in the manifest");
  }
  const s = strategyForKind(o.kind);
  if (!s) throw new StowageError('BadRequest', `no kind "${o.kind}" is known to Stowage`);
  if (expectedKind && o.kind !== expectedKind) {
    throw new StowageError('BadRequest', `the manifest is a ${o.kind}, but a ${expectedKind} was expected`);
  }
  if (o.apiVersion !== s.apiVersion) {
    throw new StowageError('BadRequest', `no kind "${o.kind}" is registered for version "${String(o.apiVersion ?? '')}"; use apiVersion: ${s.apiVersion}`);
  }
  if (o.metadata !== undefined && (o.metadata === null || typeof o.metadata !== 'object' || Array.isArray(o.metadata))) {
    throw new StowageError('BadRequest', 'metadata must be a mapping');
  }
  o.metadata ??= {};
  return o;
}
