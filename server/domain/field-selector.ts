// Field selectors (`?fieldSelector=spec.volumeName=pv1,status.phase!=Bound`) as Kubernetes'
// k8s.io/apimachinery pkg/fields/selector.go parses and matches them: terms split on
// unescaped commas, the first `!=`, `==` or `=` splits a term, values unescape `\\`, `\,`
// and `\=`. Which fields exist is the business of each kind, not of this parser.
import { StowageError } from './errors';

export type FieldRequirement = { field: string; operator: '=' | '==' | '!='; value: string };

/** Splits on commas that are not escaped; the escapes stay in the terms. */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const OPERATORS = ['!=', '==', '='] as const;

function splitTerm(term: string): [string, (typeof OPERATORS)[number], string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of OPERATORS) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

function unescapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw new Error(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Go prints the rune as a number here.
      throw new Error(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new Error('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Go sorts strings by bytes, which for UTF-8 is code point order. */
function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * Parses as upstream fields.ParseSelector; throws BadRequest on bad syntax. Terms come back
 * sorted by their text, as upstream; `==` comes back as `=` (upstream keeps no difference);
 * empty terms and the term "=" (empty field and value) are dropped, as upstream drops them.
 */
export function parseFieldSelector(s: string): FieldRequirement[] {
  const reqs: FieldRequirement[] = [];
  for (const part of splitTerms(s).sort(compareCodePoints)) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw new StowageError('BadRequest', `invalid selector: '${s}'; can't understand '${part}'`);
    const [field, op, raw] = split;
    let value: string;
    try {
      value = unescapeValue(raw);
    } catch (e) {
      throw new StowageError('BadRequest', (e as Error).message);
    }
    if (field === '' && value === '') continue;
    reqs.push({ field, operator: op === '!=' ? '!=' : '=', value });
  }
  return reqs;
}

/** All requirements hold; a field `get` does not know reads as "" (upstream Fields.Get). */
export function matchesFields(reqs: FieldRequirement[], get: (field: string) => string | undefined): boolean {
  return reqs.every((r) => {
    const actual = get(r.field) ?? '';
    return r.operator === '!=' ? actual !== r.value : actual === r.value;
  });
}

/** Upstream fields.EscapeValue. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Upstream Selector.String(). */
export function fieldSelectorToString(reqs: FieldRequirement[]): string {
  return reqs.map((r) => `${r.field}${r.operator === '!=' ? '!=' : '='}${escapeFieldValue(r.value)}`).join(',');
}
