// Which objects a list or watch selects: label and field selectors against one object,
// with the fields each kind lets a fieldSelector name. Pure; used by the store's lists
// and by the API's watches.
import { StowageError } from '../domain/errors';
import { matchesFields, parseFieldSelector, type FieldRequirement } from '../domain/field-selector';
import { matchesSelector, type Selector } from '../domain/label-selector';
import type { KubeObject, Strategy } from './types';

/** Field getter for one object: metadata.name/namespace plus the kind's selectable fields. */
export function fieldGetter(s: Strategy, o: KubeObject): (field: string) => string | undefined {
  return (field) => {
    if (field === 'metadata.name') return o.metadata.name ?? '';
    if (field === 'metadata.namespace') return s.namespaced ? (o.metadata.namespace ?? '') : '';
    const get = s.fieldSelectors[field];
    return get ? (get(o) ?? '') : undefined;
  };
}

/**
 * Upstream's answer to a field it cannot select on: kinds with their own field-label
 * conversion (Event, Namespace, Node, Secret: fields beyond metadata) say "field label not
 * supported"; the others use apimachinery's DefaultMetaV1FieldSelectorConversion, which
 * names the two it supports.
 */
export function unsupportedFieldLabel(s: Strategy, field: string): string {
  // Kinds that select on fields of their own (besides the legacy "name") register a
  // conversion upstream; the others fall back to the default one.
  const ownConversion = Object.keys(s.fieldSelectors).some((k) => k !== 'name');
  if (ownConversion) return `field label not supported: ${field}`;
  return `${JSON.stringify(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`;
}

/** Parses and checks a field selector against what the kind supports. */
export function compileFieldSelector(s: Strategy, text: string | undefined): FieldRequirement[] {
  if (!text) return [];
  const reqs = parseFieldSelector(text);
  for (const r of reqs) {
    if (r.field !== 'metadata.name' && r.field !== 'metadata.namespace' && !s.fieldSelectors[r.field]) {
      throw new StowageError('BadRequest', unsupportedFieldLabel(s, r.field));
    }
  }
  return reqs;
}

export function matchesListOptions(
  s: Strategy,
  o: KubeObject,
  selector: Selector,
  fields: FieldRequirement[],
): boolean {
  return matchesSelector(selector, o.metadata.labels) && matchesFields(fields, fieldGetter(s, o));
}

