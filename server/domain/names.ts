// Name, label and annotation rules of Kubernetes (k8s.io/apimachinery pkg/util/validation,
// pkg/api/validate/content, pkg/api/validation objectmeta.go and generic.go), with upstream's
// messages, and helpers that build FieldErrors whose message is upstream's ErrorBody().
import type { FieldError } from './errors';

// ---------------------------------------------------------------------------
// FieldError builders (message = upstream field.Error.ErrorBody())

/** Go's strconv.Quote (the %q verb). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const escaped = GO_ESCAPES[ch];
    if (escaped) out += escaped;
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\ufffd';
    else if (ch === ' ' || /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch)) out += ch;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

const GO_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** Go's json.Marshal: sorted object keys, and <, >, &, U+2028, U+2029 escaped. */
export function goJSON(value: unknown): string {
  const sorted = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sorted);
    if (v && typeof v === 'object') {
      return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted((v as Record<string, unknown>)[k])]));
    }
    return v;
  };
  const text = JSON.stringify(sorted(value)) ?? 'null';
  return text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return goJSON(value);
}

const withDetail = (body: string, detail: string) => (detail ? `${body}: ${detail}` : body);

export function fieldInvalid(field: string, value: unknown, detail: string): FieldError {
  return { field, reason: 'FieldValueInvalid', message: withDetail(`Invalid value: ${renderValue(value)}`, detail) };
}

export function fieldTypeInvalid(field: string, value: unknown, detail: string): FieldError {
  return { field, reason: 'FieldValueTypeInvalid', message: withDetail(`Invalid value: ${renderValue(value)}`, detail) };
}

export function fieldRequired(field: string, detail: string): FieldError {
  return { field, reason: 'FieldValueRequired', message: withDetail('Required value', detail) };
}

export function fieldForbidden(field: string, detail: string): FieldError {
  return { field, reason: 'FieldValueForbidden', message: withDetail('Forbidden', detail) };
}

export function fieldTooLong(field: string, maxBytes: number): FieldError {
  const detail = `may not be more than ${maxBytes} ${maxBytes === 1 ? 'byte' : 'bytes'}`;
  return { field, reason: 'FieldValueTooLong', message: `Too long: ${detail}` };
}

export function fieldNotSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  return { field, reason: 'FieldValueNotSupported', message: withDetail(`Unsupported value: ${renderValue(value)}`, detail) };
}

// ---------------------------------------------------------------------------
// String formats

/**
 * Length in bytes, as Go's len(string): the UTF-8 encoding's, a lone surrogate counted as
 * the replacement character it is encoded as (3 bytes), without encoding the string.
 */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4; // a surrogate pair: one code point beyond the BMP
      i++;
    } else n += 3;
  }
  return n;
}

/** Upstream RegexError: "<msg> (e.g. 'a' or 'b', regex used for validation is '<re>')". */
function regexError(msg: string, re: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${re}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join('or ')}regex used for validation is '${re}')`;
}

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

const LABEL_KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_KEY_RE = new RegExp(`^${LABEL_KEY_FMT}$`);
const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

// util/validation counts "characters"; the newer content package (label keys and values)
// counts "bytes". Both measure bytes.
const maxCharsError = (n: number) => `must be no more than ${n} characters`;
const maxBytesError = (n: number) => `must be no more than ${n} bytes`;

export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 63) errs.push(maxCharsError(63));
  if (!DNS1123_LABEL_RE.test(value)) {
    // A valid subdomain of valid length that is not a label must contain dots.
    if (DNS1123_SUBDOMAIN_RE.test(value)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(value: string): string[] {
  return dns1123Subdomain(value, maxCharsError);
}

function dns1123Subdomain(value: string, tooLong: (n: number) => string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 253) errs.push(tooLong(253));
  if (!DNS1123_SUBDOMAIN_RE.test(value)) errs.push(regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** A label key (also annotation keys, finalizer names): `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const [prefix] = parts;
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123Subdomain(prefix, maxBytesError).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (utf8Length(name) > 63) errs.push(`name part ${maxBytesError(63)}`);
  if (!LABEL_KEY_RE.test(name)) errs.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > 63) errs.push(maxBytesError(63));
  if (!LABEL_VALUE_RE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

// ---------------------------------------------------------------------------
// Object names (upstream ValidateNameFunc)

/** generateName prefixes may end in '-': upstream replaces the LAST TWO characters by 'a'. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

export function nameIsDNSSubdomain(name: string, prefix: boolean): string[] {
  return isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
}

export function nameIsDNSLabel(name: string, prefix: boolean): string[] {
  return isDNS1123Label(prefix ? maskTrailingDash(name) : name);
}

// ---------------------------------------------------------------------------
// ObjectMeta maps and lists

export const TOTAL_ANNOTATION_SIZE_LIMIT_BYTES = 256 * 1024;
const FINALIZER_ORPHAN = 'orphan';
const FINALIZER_FOREGROUND = 'foregroundDeletion';

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The string entries of a map, and type errors for anything else (JSON decoding, upstream). */
function stringMap(value: unknown, fieldPath: string): { entries: [string, string][]; errs: FieldError[] } {
  if (value === undefined || value === null) return { entries: [], errs: [] };
  if (!isPlainObject(value)) return { entries: [], errs: [fieldTypeInvalid(fieldPath, value, 'must be an object of strings')] };
  const entries: [string, string][] = [];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string') entries.push([k, v]);
    else errs.push(fieldTypeInvalid(`${fieldPath}[${k}]`, v, 'must be a string'));
  }
  return { entries, errs };
}

/** Upstream ValidateLabels: every key a qualified name, every value a label value. */
export function validateLabels(labels: unknown, fieldPath: string): FieldError[] {
  const { entries, errs } = stringMap(labels, fieldPath);
  for (const [k, v] of entries) {
    for (const msg of isQualifiedName(k)) errs.push(fieldInvalid(fieldPath, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(fieldInvalid(fieldPath, v, msg));
  }
  return errs;
}

/** Upstream ValidateAnnotations: keys are qualified names (case-insensitive), total size <= 256 KiB. */
export function validateAnnotations(annotations: unknown, fieldPath: string): FieldError[] {
  const { entries, errs } = stringMap(annotations, fieldPath);
  let size = 0;
  for (const [k, v] of entries) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(fieldInvalid(fieldPath, k, msg));
    size += utf8Length(k) + utf8Length(v);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_BYTES) errs.push(fieldTooLong(fieldPath, TOTAL_ANNOTATION_SIZE_LIMIT_BYTES));
  return errs;
}

/**
 * Upstream ValidateFinalizers: each a qualified name; 'orphan' and 'foregroundDeletion' not
 * both. Duplicates are allowed, as upstream (errors name the list, not the item).
 */
export function validateFinalizers(finalizers: unknown, fieldPath: string): FieldError[] {
  if (finalizers === undefined || finalizers === null) return [];
  if (!Array.isArray(finalizers)) return [fieldTypeInvalid(fieldPath, finalizers, 'must be a list of strings')];
  const errs: FieldError[] = [];
  finalizers.forEach((f: unknown, i) => {
    if (typeof f !== 'string') errs.push(fieldTypeInvalid(`${fieldPath}[${i}]`, f, 'must be a string'));
    else for (const msg of isQualifiedName(f)) errs.push(fieldInvalid(fieldPath, f, msg));
  });
  if (finalizers.includes(FINALIZER_ORPHAN) && finalizers.includes(FINALIZER_FOREGROUND)) {
    errs.push(
      fieldInvalid(fieldPath, finalizers, `finalizer ${FINALIZER_ORPHAN} and ${FINALIZER_FOREGROUND} cannot be both set`),
    );
  }
  return errs;
}
