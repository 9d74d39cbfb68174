// What a reader may see of an object: secrets never leave the admin (seed 000,
// "Security considerations"). ONE function, `redactForReader`, shapes every object the
// services hand to a non-admin, whatever the path (get, list, Table, metadata-only,
// watch, tRPC), and reaches every copy of a secret: StorageClass parameters, the copy
// `kubectl apply` keeps in the last-applied annotation, other annotations, managedFields,
// Event messages, and credentials inside any string (connection strings, key=value).
// Names of Secrets (csi.storage.k8s.io/provisioner-secret-name ...) are references, not
// secrets: they stay visible, as upstream. Pure: no I/O.
import { annBindingExplanation, annLastAppliedConfiguration } from './well-known/annotations';

export const REDACTED = '(redacted)';
/** What replaces a credential inside a longer text. */
export const MASK = '***';

/** The words of a key: camelCase and any punctuation split, lower-cased. */
function wordsOf(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const SECRET_WORDS = new Set([
  'secret',
  'secrets',
  'password',
  'passwords',
  'passwd',
  'pwd',
  'passphrase',
  'token',
  'tokens',
  'credential',
  'credentials',
  'creds',
  'key',
  'keys',
  'apikey',
  'privatekey',
  'authorization',
  'cookie',
  'pass',
  'pin',
]);
const REFERENCE_TAILS = new Set(['name', 'namespace', 'ref']);

/**
 * A key that names a Secret object (upstream's `csi.storage.k8s.io/*-secret-name` and
 * `-namespace`, `adminSecretName`, `secretRef` ...): its value is a name, not a secret.
 */
export function isSecretReference(key: string): boolean {
  const w = wordsOf(key);
  return w.length >= 2 && w[w.length - 2] === 'secret' && REFERENCE_TAILS.has(w[w.length - 1]);
}

/**
 * A key whose value is (or may be) a secret: password, apiKey, x-api_keys, userKey, token,
 * and a key ending in `auth` (a docker config's `auth`, `basicAuth`; not `authMode`) ...
 */
export function isSecretKey(key: string): boolean {
  if (isSecretReference(key)) return false;
  const words = wordsOf(key);
  return words.some((w) => SECRET_WORDS.has(w)) || words[words.length - 1] === 'auth';
}

/** Kinds whose top-level `parameters` are a driver's, secrets possibly among them: classes of volumes and of snapshots. */
const KINDS_WITH_PARAMETERS: ReadonlySet<unknown> = new Set(['StorageClass', 'VolumeSnapshotClass']);

/** Kept for the dashboard: a StorageClass parameter whose value is hidden from non-admins. */
export const isSecretParameter = isSecretKey;

// The password of a URL runs to the last `@` before the host: `u:p@ss@db` hides `p@ss`.
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^\s:@/?#'"]*):([^\s/?#'"]+)@/gi;
const KEY_SEP = /(["']?)([A-Za-z_][A-Za-z0-9_.\-/]*)\1(\s*[=:]\s*)/g;
/** A value: quoted (to its closing quote) or one bare word. */
const VALUE = /"([^"]*)"|'([^']*)'|["']?([^\s"',;&}]+)/y;
/** A command-line flag and its value after a space: `--password hunter2`, `-token x`. */
const FLAG = /(^|\s)(--?)([A-Za-z][A-Za-z0-9_.-]*)(\s+)(["']?)([^\s"']+)\5/g;
/** HTTP authentication schemes: the credential is the word after the scheme. */
const AUTH_SCHEME = /^(bearer|basic|token|digest|negotiate|apikey)$/i;
const SCHEME_CREDENTIAL = /(\s+)([^\s"',;&}]+)/y;
/**
 * Key words that prose uses for names, not secrets: `supported keys: hostDir, mountDir`,
 * `merge key: name`. Unquoted and before a colon they introduce names; `key=v` and
 * `"key": "v"` still mask.
 */
const NAME_WORDS = new Set(['key', 'keys']);

/** Cheap first look: a text with none of these cannot hold a credential maskCredentials finds. */
const MAYBE_SECRET = /@|pass|secret|token|key|cred|pwd|pin|auth|cookie/i;

/** `--password hunter2` as `--password ***`. */
function maskFlags(text: string): string {
  if (!text.includes('-')) return text;
  return text.replace(FLAG, (m, lead: string, dashes: string, key: string, gap: string, q: string, value: string) => {
    if (!isSecretKey(key) || value.startsWith('-') || value === MASK || value === REDACTED) return m;
    return `${lead}${dashes}${key}${gap}${q}${MASK}${q}`;
  });
}

/**
 * A text with credentials masked: the password of a URL (`postgres://u:***@h`), the value
 * of any secret-named `key=value`, `key: value`, `"key":"value"` or `--key value` in it,
 * and the credential after an authentication scheme (`Authorization: Bearer ***`).
 */
export function maskCredentials(text: string): string {
  if (text.length < 3 || !/[@=:\s]/.test(text) || !MAYBE_SECRET.test(text)) return text;
  const url = text.includes('@') ? text.replace(URL_USERINFO, (_m, scheme, user) => `${scheme}${user}:${MASK}@`) : text;
  const out = maskFlags(url);
  // Each `key=` / `key:` is looked at in turn (a value is never taken for a key's end), and
  // the value after a secret-named key is masked.
  let result = '';
  let done = 0;
  KEY_SEP.lastIndex = 0;
  for (let m = KEY_SEP.exec(out); m; m = KEY_SEP.exec(out)) {
    const key = m[2];
    if (!isSecretKey(key)) continue;
    const colon = m[3].includes(':');
    if (!m[1] && colon && NAME_WORDS.has(key.toLowerCase())) continue;
    VALUE.lastIndex = m.index + m[0].length;
    const v = VALUE.exec(out);
    if (!v) continue;
    const quote = v[1] !== undefined ? '"' : v[2] !== undefined ? "'" : '';
    const value = v[1] ?? v[2] ?? v[3];
    if (value === MASK || value === REDACTED || value === '') continue;
    // `"name": value` is prose quoting a name ("class "x-secret": failed"); JSON quotes both.
    if (m[1] && colon && !quote) continue;
    let start = VALUE.lastIndex - v[0].length;
    let end = VALUE.lastIndex;
    if (!quote && AUTH_SCHEME.test(value)) {
      // `Authorization: Bearer TOKEN`: the scheme stays, the credential after it goes.
      SCHEME_CREDENTIAL.lastIndex = end;
      const c = SCHEME_CREDENTIAL.exec(out);
      if (c) {
        start = end + c[1].length;
        end = SCHEME_CREDENTIAL.lastIndex;
      }
    }
    result += `${out.slice(done, start)}${quote}${MASK}${quote}`;
    done = end;
    KEY_SEP.lastIndex = done;
  }
  return done === 0 ? out : result + out.slice(done);
}

/** A text with each of the given secret values masked (e.g. a plugin's error message). */
export function maskValues(text: string, values: Iterable<string>): string {
  let out = text;
  for (const v of values) if (v.length >= 3) out = out.split(v).join(MASK);
  return out;
}

/** The values of a string map whose keys name secrets (to mask them in messages). */
export function secretValues(map: Record<string, unknown> | undefined | null): string[] {
  return Object.entries(map ?? {})
    .filter(([k, v]) => typeof v === 'string' && isSecretKey(k))
    .map(([, v]) => v as string);
}

/** What a reader may see: set by the services from the principal's permissions. */
export interface Reader {
  /** Admins: everything passes unchanged. */
  secrets: boolean;
  /** May the reader see PersistentVolumes (their names in explanations)? */
  volumes: boolean;
  /** Namespaces whose claims the reader may see. */
  namespaces: 'all' | readonly string[];
}

/** A string map with secret-named values redacted and credentials masked in the rest. */
export function redactMap(map: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(map)) {
    const next = typeof v !== 'string' ? scrub(v) : isSecretKey(k) ? REDACTED : maskCredentials(v);
    if (next !== v) {
      out ??= { ...map };
      out[k] = next;
    }
  }
  return out ?? map;
}

/** Any JSON value with credentials masked in every string; same reference when unchanged. */
function scrub(v: unknown): unknown {
  if (typeof v === 'string') return maskCredentials(v);
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((x, i) => {
      const y = scrub(x);
      if (y !== x) (out ??= [...v])[i] = y;
    });
    return out ?? v;
  }
  if (v !== null && typeof v === 'object') {
    let out: Record<string, unknown> | undefined;
    for (const [k, x] of Object.entries(v)) {
      const y = scrub(x);
      if (y !== x) {
        out ??= { ...(v as Record<string, unknown>) };
        out[k] = y;
      }
    }
    return out ?? v;
  }
  return v;
}

const NAME = '[a-z0-9][-a-z0-9.]*';
const CLAIM_REF = new RegExp(`\\((${NAME})/${NAME}\\)|\\bclaim (?:named )?(${NAME})/${NAME}( \\(uid [^)]*\\))?`, 'g');

/** A binder text with claims of namespaces the reader may not see replaced by "another claim". */
export function hideForeignClaims(text: string, namespaces: Reader['namespaces']): string {
  if (namespaces === 'all' || !text.includes('/')) return text;
  return text.replace(CLAIM_REF, (m, parenNs: string | undefined, ns: string | undefined) => {
    if (namespaces.includes((parenNs ?? ns)!)) return m;
    return parenNs !== undefined ? '(another claim)' : 'another claim';
  });
}

/** A volume's labels in a matching reason (`labels {a=b} do not match the claim's selector ...`). */
const VOLUME_LABELS = /\blabels \{[^}]*\}/g;

/**
 * Why a volume does not fit a claim, as a reader may see it: claims of namespaces it may
 * not see become "another claim"; a reader who may not see volumes does not see their labels.
 */
export function redactReason(text: string, r: Reader): string {
  const shown = hideForeignClaims(text, r.namespaces);
  return r.volumes ? shown : shown.replace(VOLUME_LABELS, 'its labels');
}

/** The binder's explanation as a reader may see it: counts and reasons, no foreign names. */
export function redactExplanation(text: string, r: Reader): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return hideForeignClaims(maskCredentials(text), r.namespaces);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return REDACTED;
  const v = parsed as Record<string, unknown>;
  const out: Record<string, unknown> = { ...v };
  if (typeof v.summary === 'string') out.summary = hideForeignClaims(v.summary, r.namespaces);
  if (Array.isArray(v.candidates)) {
    out.candidates = v.candidates.map((c: { name?: unknown; reasons?: unknown } | null, i: number) => ({
      name: r.volumes ? String(c?.name ?? '') : `(volume ${i + 1})`,
      reasons: Array.isArray(c?.reasons) ? c.reasons.map((x: unknown) => redactReason(String(x), r)) : [],
    }));
  }
  return JSON.stringify(out);
}

function redactAnnotations(annotations: Record<string, unknown>, r: Reader): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(annotations)) {
    let next: unknown;
    if (typeof v !== 'string') next = REDACTED;
    else if (k === annLastAppliedConfiguration) next = redactLastApplied(v, r);
    else if (k === annBindingExplanation) next = redactExplanation(v, r);
    else if (isSecretKey(k)) next = REDACTED;
    else next = maskCredentials(v);
    if (next !== v) {
      out ??= { ...annotations };
      out[k] = next;
    }
  }
  return out ?? annotations;
}

/** The last-applied copy, parsed, redacted as the object it is, and written back. */
function redactLastApplied(text: string, r: Reader): string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return REDACTED;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return REDACTED;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- redaction walks objects of every kind as open JSON
  const red = redactForReader(r, v as Record<string, any>, 1);
  return red === v ? text : `${JSON.stringify(red)}\n`;
}

/** Maps of user-chosen keys inside specs whose secret-named values are redacted. */
const SPEC_MAPS: readonly (readonly string[])[] = [
  ['csi', 'volumeAttributes'],
  ['flexVolume', 'options'],
];

/**
 * An object as `r` may see it. Admins get it unchanged; anyone else a copy with every
 * secret redacted. The input is never changed; unchanged parts are shared.
 * Objects of every kind (and parsed request bodies) pass through: open JSON (parse boundary).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- redaction walks objects of every kind as open JSON
export function redactForReader<T extends Record<string, any>>(r: Reader, obj: T, depth = 0): T {
  if (r.secrets || obj === null || typeof obj !== 'object') return obj;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- redaction walks objects of every kind as open JSON
  const scrubbed = scrub(obj) as Record<string, any>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- redaction walks objects of every kind as open JSON
  let res: Record<string, any> = scrubbed;
  const own = () => (res === obj ? (res = { ...obj }) : res);
  const meta = obj.metadata;
  if (meta && typeof meta === 'object') {
    const shown = res.metadata;
    const annotations =
      meta.annotations && typeof meta.annotations === 'object' ? (depth < 2 ? redactAnnotations(meta.annotations, r) : REDACTED) : shown.annotations;
    // managedFields name the fields each manager set; they are for admins' tooling.
    if (annotations !== shown.annotations || 'managedFields' in shown) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- redaction walks objects of every kind as open JSON
      const m: Record<string, any> = { ...shown, annotations };
      if (annotations === undefined) delete m.annotations;
      delete m.managedFields;
      own().metadata = m;
    }
  }
  if (KINDS_WITH_PARAMETERS.has(obj.kind) && obj.parameters && typeof obj.parameters === 'object') {
    const p = redactMap(obj.parameters);
    if (p !== obj.parameters) own().parameters = p;
  }
  if (obj.kind === 'Secret') {
    own();
    delete res.data;
    delete res.stringData;
  }
  if (obj.kind === 'PersistentVolume' && obj.spec && typeof obj.spec === 'object') {
    for (const [outer, inner] of SPEC_MAPS) {
      const src = obj.spec[outer]?.[inner];
      if (!src || typeof src !== 'object') continue;
      const red = redactMap(src);
      if (red === src) continue;
      const spec = own().spec;
      res.spec = { ...spec, [outer]: { ...spec[outer], [inner]: red } };
    }
  }
  if (r.namespaces !== 'all') {
    if (obj.kind === 'PersistentVolumeClaim' && Array.isArray(res.status?.conditions)) {
      const conditions = res.status.conditions.map((c: { message?: unknown } | null) =>
        typeof c?.message === 'string' ? { ...c, message: hideForeignClaims(c.message, r.namespaces) } : c,
      );
      own().status = { ...res.status, conditions };
    }
    if (obj.kind === 'Event' && typeof res.message === 'string') {
      const message = hideForeignClaims(res.message, r.namespaces);
      if (message !== res.message) own().message = message;
    }
  }
  return res as T;
}

/**
 * On a write by a non-admin: annotations they sent back exactly as they were shown
 * (redacted) keep their stored value, so `kubectl edit` and `apply` of a redacted object
 * never store the redaction. Changes `next` in place.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- redaction walks objects of every kind as open JSON
export function restoreRedacted(r: Reader, next: Record<string, any>, prev: Record<string, any>): void {
  if (r.secrets) return;
  // managedFields are left out of what non-admins see: what they send back keeps the stored ones.
  if (next.metadata && prev.metadata?.managedFields && next.metadata.managedFields === undefined) {
    next.metadata.managedFields = prev.metadata.managedFields;
  }
  const sent = next.metadata?.annotations;
  const stored = prev.metadata?.annotations;
  if (!sent || !stored) return;
  const shown = redactAnnotations(stored, r);
  if (shown === stored) return;
  for (const [k, v] of Object.entries(sent)) {
    if (k in stored && v === shown[k] && v !== stored[k]) sent[k] = stored[k];
  }
}
