// Turns text a person typed (YAML or JSON) into one object, with clear errors. YAML is
// read with the core schema only: a tag outside it (`!!binary`, `!!set`, `!foo`) is
// refused rather than turned into a Buffer, Set or silently into a string, and the value
// must pass the limits every body passes (nesting depth, NUL, `__proto__`).
import { parseAllDocuments, type Document } from 'yaml';
import { StowageError } from '../domain/errors';
import { inspectUntrusted } from '../domain/untrusted';
import { strategyForKind } from '../resources/registry';
import type { KubeObject } from '../resources/types';

export const MAX_MANIFEST_BYTES = 1024 * 1024;

/** Refuses a decoded body that passes the limits of every input (400, naming the place). */
export function checkUntrusted(value: unknown, what = 'the request body'): void {
  const problem = inspectUntrusted(value);
  if (problem) {
    const where = problem.path ? ` at ${problem.path}` : '';
    throw new StowageError('BadRequest', `${what} is refused${where}: ${problem.message}`);
  }
}

function yamlDocuments(text: string): Document.Parsed[] {
  try {
    return parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true, resolveKnownTags: false, schema: 'core' }).filter(
      (d) => !('contents' in d) || d.contents !== null || d.errors.length > 0,
    );
  } catch (e) {
    // The parser itself gave up (e.g. nesting beyond its stack).
    throw new StowageError('BadRequest', `invalid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
}

function yamlValue(doc: Document.Parsed): unknown {
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) {
    const where = problem.linePos?.[0] ? ` at line ${problem.linePos[0].line}, column ${problem.linePos[0].col}` : '';
    const message = problem.code === 'TAG_RESOLVE_FAILED' ? `${problem.message.split(' at line')[0]} (only the YAML core schema's tags are accepted)` : problem.message;
    throw new StowageError('BadRequest', `invalid YAML${where}: ${message.split('\n')[0]}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (e) {
    throw new StowageError('BadRequest', `invalid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  checkUntrusted(value, 'the YAML');
  return value;
}

/** One YAML document as a plain value (maps, lists, strings, numbers, booleans, null). */
export function parseYamlValue(text: string): unknown {
  const docs = yamlDocuments(text);
  if (docs.length === 0) return null;
  if (docs.length > 1) throw new StowageError('BadRequest', 'the YAML holds several documents; one was expected');
  return yamlValue(docs[0]);
}

export function parseManifest(text: string): KubeObject {
  if (Buffer.byteLength(text, 'utf8') > MAX_MANIFEST_BYTES) {
    throw new StowageError('RequestEntityTooLarge', `the manifest is larger than ${MAX_MANIFEST_BYTES} bytes`);
  }
  const docs = yamlDocuments(text);
  if (docs.length === 0) throw new StowageError('BadRequest', 'the manifest is empty');
  if (docs.length > 1) throw new StowageError('BadRequest', 'the manifest holds several documents; give one object at a time');
  return checkObjectHeader(yamlValue(docs[0]));
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
