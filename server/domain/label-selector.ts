// Label selectors as Kubernetes has them (k8s.io/apimachinery pkg/labels/selector.go,
// pkg/apis/meta/v1/helpers.go LabelSelectorAsSelector, and meta/v1/validation
// ValidateLabelSelector): the string syntax of `?labelSelector=` / `kubectl -l`, the
// structured `matchLabels` + `matchExpressions` form, matching and printing, with
// upstream's error messages.
import { type FieldError, StowageError } from './errors';
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTypeInvalid,
  goQuote,
  isQualifiedName,
  isValidLabelValue,
  validateLabels,
} from './names';

export type Requirement = {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | '=' | '==' | '!=' | 'Gt' | 'Lt';
  values: string[];
};
type Operator = Requirement['operator'];

/**
 * All requirements must match (no requirements = everything). `nothing: true` is upstream's
 * labels.Nothing() (what a nil structured selector means): it matches no object at all.
 */
export type Selector = { requirements: Requirement[]; nothing?: true };

/** The structured form as a claim's spec.selector carries it (validation requires key and operator). */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key?: string; operator?: string; values?: string[] }[];
}

/** Shared and frozen: copy before changing. */
export const EVERYTHING: Selector = Object.freeze({ requirements: Object.freeze([]) as unknown as Requirement[] });
export const NOTHING: Selector = Object.freeze({
  requirements: Object.freeze([]) as unknown as Requirement[],
  nothing: true as const,
});

// Upstream selection.Operator spellings, used in messages and in the string syntax.
const UPSTREAM_NAME: Record<Operator, string> = {
  In: 'in',
  NotIn: 'notin',
  '=': '=',
  '==': '==',
  '!=': '!=',
  Gt: 'gt',
  Lt: 'lt',
  Exists: 'exists',
  DoesNotExist: '!',
};
const SUPPORTED = Object.values(UPSTREAM_NAME);
const BINARY = SUPPORTED.slice(0, 7).join(', ');

const INT64 = /^[+-]?[0-9]+$/;
const parseInt64 = (s: string): bigint | undefined => {
  if (!INT64.test(s)) return undefined;
  const v = BigInt(s);
  return v >= -(2n ** 63n) && v < 2n ** 63n ? v : undefined;
};

/** Go's utilerrors aggregate message: one error as is, several as "[a, b]" without repeats. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/**
 * Upstream labels.NewRequirement checks, as "field: body" messages (empty = valid).
 * `values` null stands for a Go nil slice (printed as null).
 */
function requirementErrors(key: string, op: string, values: string[] | null): string[] {
  const errs: string[] = [];
  const vals = values ?? [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) errs.push(`key: ${fieldInvalid('key', key, keyErrs.join('; ')).message}`);
  const invalidValues = (detail: string) => errs.push(`values: ${fieldInvalid('values', values, detail).message}`);
  switch (op) {
    case 'In':
    case 'NotIn':
      if (vals.length === 0) invalidValues("for 'in', 'notin' operators, values set can't be empty");
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) invalidValues('exact-match compatibility requires one single value');
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (vals.length !== 0) invalidValues('values set must be empty for exists and does not exist');
      break;
    case 'Gt':
    case 'Lt':
      if (vals.length !== 1) invalidValues("for 'Gt', 'Lt' operators, exactly one value is required");
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(`values[${i}]: ${fieldInvalid('', v, "for 'Gt', 'Lt' operators, the value must be an integer").message}`);
        }
      });
      break;
    default:
      errs.push(`operator: ${fieldNotSupported('operator', op, SUPPORTED).message}`);
  }
  vals.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length) errs.push(`values[${i}][${key}]: ${fieldInvalid('', v, valueErrs.join('; ')).message}`);
  });
  return errs;
}

function newRequirement(key: string, operator: Operator, values: string[] | null): Requirement {
  const errs = requirementErrors(key, operator, values);
  if (errs.length) throw new Error(aggregate(errs));
  return { key, operator, values: values ? [...values] : [] };
}

/** Upstream sorts requirements by key (sort.Sort; stable here). */
const byKey = (reqs: Requirement[]) => [...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

// ---------------------------------------------------------------------------
// The string syntax

type Token = 'error' | 'end' | ')' | ',' | '!' | '==' | '=' | '>' | 'in' | '<' | '!=' | 'notin' | '(' | 'id';
type Item = { tok: Token; lit: string };
const KEYWORDS = new Set<string>([')', ',', '!', '==', '=', '>', 'in', '<', '!=', 'notin', '(']);
const isWhitespace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string) => '=!(),><'.includes(c) && c !== '';

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos])) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'end', lit: '' });
      return items;
    }
    if (isSpecial(s[pos])) {
      // The longest run of special characters that is an operator.
      let buffer = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos])) {
        buffer += s[pos];
        if (KEYWORDS.has(buffer)) last = { tok: buffer as Token, lit: buffer };
        else if (last) break;
        pos++;
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
    } else {
      const start = pos;
      while (pos < s.length && !isSpecial(s[pos]) && !isWhitespace(s[pos])) pos++;
      const word = s.slice(start, pos);
      items.push({ tok: KEYWORDS.has(word) ? (word as Token) : 'id', lit: word });
    }
  }
}

const TOKEN_OPERATOR: Partial<Record<Token, Operator>> = {
  in: 'In',
  notin: 'NotIn',
  '=': '=',
  '==': '==',
  '!=': '!=',
  '>': 'Gt',
  '<': 'Lt',
};

class Parser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  /** In value context the keywords 'in' and 'notin' are plain identifiers. */
  private peek(values = true): Item {
    const item = this.items[this.position];
    return values && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'id', lit: item.lit } : item;
  }

  private next(values = true): Item {
    const item = this.peek(values);
    this.position++;
    return item;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.peek();
      if (tok === 'end') return reqs;
      if (tok !== 'id' && tok !== '!') throw new Error(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        reqs.push(this.requirement());
      } catch (e) {
        throw new Error(`unable to parse requirement: ${(e as Error).message}`, { cause: e });
      }
      const after = this.next();
      if (after.tok === 'end') return reqs;
      if (after.tok !== ',') throw new Error(`found '${after.lit}', expected: ',' or 'end of string'`);
      const following = this.peek();
      if (following.tok !== 'id' && following.tok !== '!') {
        throw new Error(`found '${following.lit}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): Requirement {
    let negated = false;
    let item = this.next();
    if (item.tok === '!') {
      negated = true;
      item = this.next();
    }
    if (item.tok !== 'id') throw new Error(`found '${item.lit}', expected: identifier`);
    const key = item.lit;
    const keyErrs = isQualifiedName(key);
    // Upstream reports this one with a nil field path.
    if (keyErrs.length) throw new Error(`<nil>: ${fieldInvalid('', key, keyErrs.join('; ')).message}`);
    const ahead = this.peek().tok;
    if (negated) return newRequirement(key, 'DoesNotExist', []);
    if (ahead === 'end' || ahead === ',') return newRequirement(key, 'Exists', []);

    const op = this.next(false);
    const operator = TOKEN_OPERATOR[op.tok];
    if (!operator) throw new Error(`found '${op.lit}', expected: ${BINARY}`);
    const values = operator === 'In' || operator === 'NotIn' ? this.valueSet() : this.exactValue();
    return newRequirement(key, operator, [...values].sort());
  }

  private valueSet(): Set<string> {
    const open = this.next();
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const first = this.peek();
    if (first.tok === ')') {
      this.next();
      return new Set(['']);
    }
    if (first.tok !== 'id' && first.tok !== ',') throw new Error(`found '${first.lit}', expected: ',', ')' or identifier`);
    const values = new Set<string>();
    for (;;) {
      const item = this.next();
      if (item.tok === 'id') {
        values.add(item.lit);
        const ahead = this.peek();
        if (ahead.tok === ')') break;
        if (ahead.tok !== ',') throw new Error(`found '${ahead.lit}', expected: ',' or ')'`);
      } else if (item.tok === ',') {
        // Empty entries: "(,a", "a,,b" and "a,)" all add the empty value.
        if (values.size === 0) values.add('');
        const ahead = this.peek().tok;
        if (ahead === ')') {
          values.add('');
          break;
        }
        if (ahead === ',') values.add('');
      } else {
        throw new Error(`found '${item.lit}', expected: ',', or identifier`);
      }
    }
    this.next(); // ')'
    return values;
  }

  private exactValue(): Set<string> {
    const ahead = this.peek().tok;
    if (ahead === 'end' || ahead === ',') return new Set(['']);
    const item = this.next();
    if (item.tok !== 'id') throw new Error(`found '${item.lit}', expected: identifier`);
    return new Set([item.lit]);
  }
}

/** Parses `?labelSelector=` syntax as upstream labels.Parse; throws BadRequest. */
export function parseLabelSelector(s: string): Selector {
  try {
    return { requirements: byKey(new Parser(lex(s)).parse()) };
  } catch (e) {
    throw new StowageError('BadRequest', (e as Error).message);
  }
}

// ---------------------------------------------------------------------------
// The structured form

const STRUCTURED: Record<string, Operator> = { In: 'In', NotIn: 'NotIn', Exists: 'Exists', DoesNotExist: 'DoesNotExist' };

/** Upstream LabelSelectorAsSelector: null/undefined -> NOTHING, empty -> EVERYTHING. Throws BadRequest. */
export function labelSelectorToSelector(ls: LabelSelector | null | undefined): Selector {
  if (ls === null || ls === undefined) return NOTHING;
  const labels = Object.entries(ls.matchLabels ?? {});
  const expressions = ls.matchExpressions ?? [];
  if (labels.length + expressions.length === 0) return EVERYTHING;
  try {
    const reqs = labels.map(([k, v]) => newRequirement(k, '=', [v]));
    for (const expr of expressions) {
      const op = expr.operator !== undefined && Object.hasOwn(STRUCTURED, expr.operator) ? STRUCTURED[expr.operator] : undefined;
      if (!op) throw new Error(`${goQuote(String(expr.operator))} is not a valid label selector operator`);
      // A missing key is Go's zero value "" (refused by the key check), not a crash on undefined.
      reqs.push(newRequirement(expr.key ?? '', op, expr.values?.length ? expr.values : null));
    }
    return { requirements: byKey(reqs) };
  } catch (e) {
    throw new StowageError('BadRequest', (e as Error).message);
  }
}

/** Upstream ValidateLabelSelector (metav1 validation) for a decoded JSON value. */
export function validateLabelSelector(ls: unknown, fieldPath: string): FieldError[] {
  if (ls === null || ls === undefined) return [];
  if (typeof ls !== 'object' || Array.isArray(ls)) return [fieldTypeInvalid(fieldPath, ls, 'must be an object')];
  const { matchLabels, matchExpressions } = ls as Record<string, unknown>;
  const errs = validateLabels(matchLabels, `${fieldPath}.matchLabels`);
  if (matchExpressions === undefined || matchExpressions === null) return errs;
  if (!Array.isArray(matchExpressions)) {
    return [...errs, fieldTypeInvalid(`${fieldPath}.matchExpressions`, matchExpressions, 'must be a list')];
  }
  matchExpressions.forEach((raw: unknown, i) => {
    const path = `${fieldPath}.matchExpressions[${i}]`;
    const expr = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const key = typeof expr.key === 'string' ? expr.key : '';
    const operator = typeof expr.operator === 'string' ? expr.operator : '';
    const values = Array.isArray(expr.values) ? expr.values.map(String) : [];
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) errs.push(fieldRequired(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) {
        errs.push(fieldForbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    } else {
      errs.push(fieldInvalid(`${path}.operator`, operator, 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(key)) errs.push(fieldInvalid(`${path}.key`, key, msg));
    values.forEach((v, j) => {
      for (const msg of isValidLabelValue(v)) errs.push(fieldInvalid(`${path}.values[${j}]`, v, msg));
    });
  });
  return errs;
}

// ---------------------------------------------------------------------------
// Matching and printing

function requirementMatches(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'In':
    case '=':
    case '==':
      return has && r.values.includes(value!);
    case 'NotIn':
    case '!=':
      return !has || !r.values.includes(value!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (!has || r.values.length !== 1) return false;
      const actual = parseInt64(value!);
      const bound = parseInt64(r.values[0]);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'Gt' ? actual > bound : actual < bound;
    }
    default:
      return false;
  }
}

export function matchesSelector(sel: Selector, labels: Record<string, string> | undefined): boolean {
  if (sel.nothing) return false;
  return sel.requirements.every((r) => requirementMatches(r, labels ?? {}));
}

const SYMBOL: Record<Operator, string> = {
  '=': '=',
  '==': '==',
  '!=': '!=',
  In: ' in ',
  NotIn: ' notin ',
  Gt: '>',
  Lt: '<',
  Exists: '',
  DoesNotExist: '',
};

function requirementToString(r: Requirement): string {
  if (r.operator === 'Exists') return r.key;
  if (r.operator === 'DoesNotExist') return `!${r.key}`;
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort().join(',');
  const set = r.operator === 'In' || r.operator === 'NotIn';
  return `${r.key}${SYMBOL[r.operator]}${set ? `(${values})` : values}`;
}

/** Upstream Selector.String(): the string syntax again ("" for NOTHING and EVERYTHING). */
export function selectorToString(sel: Selector): string {
  return sel.nothing ? '' : sel.requirements.map(requirementToString).join(',');
}
