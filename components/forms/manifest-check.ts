// Checks a manifest in the browser before sending it: YAML that does not parse never
// reaches the server. Pure.
import { LineCounter, parseAllDocuments } from 'yaml';
import type { FieldCause } from '../format/format';
import { locateFieldPath } from './yaml-paths';
import type { LineMark } from './yaml-editor';

export interface ManifestValue {
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown };
  [field: string]: unknown;
}

export type YamlCheck = { ok: true; value: ManifestValue } | { ok: false; message: string; line?: number };

export function checkYaml(text: string): YamlCheck {
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [];
  const real = list.filter((d) => d.contents !== null || d.errors.length > 0);
  for (const d of real) {
    const e = d.errors[0];
    if (e) {
      const pos = e.linePos?.[0];
      const where = pos ? ` at line ${pos.line}, column ${pos.col}` : '';
      return { ok: false, message: `Invalid YAML${where}: ${e.message.split('\n')[0]}`, line: pos?.line };
    }
  }
  if (real.length === 0) return { ok: false, message: 'The manifest is empty' };
  if (real.length > 1) return { ok: false, message: 'The manifest holds several documents; give one object at a time' };
  const value = real[0].toJS() as unknown;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, message: 'The manifest must be a mapping with apiVersion, kind and metadata', line: 1 };
  }
  return { ok: true, value: value as ManifestValue };
}

export interface LocatedCause extends FieldCause {
  line?: number;
}

/** Each server field error with the line of the YAML it names (when found). */
export function locateCauses(text: string, causes: FieldCause[]): LocatedCause[] {
  return causes.map((c) => ({ ...c, line: c.field ? locateFieldPath(text, c.field)?.line : undefined }));
}

export function marksOf(located: LocatedCause[]): LineMark[] {
  return located.filter((c) => c.line !== undefined).map((c) => ({ line: c.line!, message: c.message, field: c.field }));
}
