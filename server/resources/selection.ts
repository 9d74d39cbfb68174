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

/** Parses and checks a field selector against what the kind supports. */
export function compileFieldSelector(s: Strategy, text: string | undefined): FieldRequirement[] {
  if (!text) return [];
  const reqs = parseFieldSelector(text);
  for (const r of reqs) {
    if (r.field !== 'metadata.name' && r.field !== 'metadata.namespace' && !s.fieldSelectors[r.field]) {
      throw new StowageError('BadRequest', `field label not supported: ${r.field}`);
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

