// The storageClassMap of the local-volume ConfigMap (`data.storageClassMap`), in the format
// of the upstream static provisioner (so an existing configuration carries over), plus
// Stowage's own optional keys. Pure: parses and validates text, does no I/O.
//
//   fast-disks:                       # StorageClass name
//     hostDir: /mnt/fast-disks        # discovery directory on the host (required)
//     mountDir: /mnt/fast-disks       # where the agent sees it (default: hostDir)
//     blockCleanerCommand: [fs-reset] # method name, or a command path + args (default fs-reset)
//     volumeMode: Filesystem          # Filesystem | Block (default Filesystem)
//     fsType: ext4                    # set on the PVs as spec.local.fsType when given; fs-reset's type (default ext4)
//     namePattern: "*"                # globs of entry names, comma-separated (default "*")
//     accessMode: ReadWriteOnce       # the PVs' access mode (default ReadWriteOnce)
//     selector: [ {matchExpressions: [...]} ]  # node selector terms added to the PVs' node affinity
//     requireMountPoints: true        # Stowage: plain directories are not offered (default true)
//     minSize: 1Gi                    # Stowage: smaller entries are ineligible (default none)
//     directoryCapacity: 20Gi         # Stowage: the capacity of each plain directory (default: a share of its filesystem)
//     parallelCleanups: 2             # Stowage: cleanups of this class at once on a node (default 2)
import { parseDocument } from 'yaml';
import { chooseCleanupMethod, defaultBlockCleanerCommand } from './cleanup-method';
import { isDNS1123Subdomain } from './names';
import { isNegative, parseQuantity, quantityToBytes } from './quantity';

/** One StorageClass entry of the storageClassMap (upstream static provisioner format). */
export interface LocalClassConfig {
  /** The StorageClass name (the key in storageClassMap). */
  className: string;
  /** Discovery directory on the host; PVs carry paths under it. */
  hostDir: string;
  /** Where the agent sees hostDir; equal to hostDir when the agent runs on the host. */
  mountDir: string;
  /** Block cleanup: a method name (dd-zero, blkdiscard, fs-reset, shred, hdparm) or a custom command (argv). */
  blockCleanerCommand: string[];
  /** "Filesystem" | "Block" default for entries that are not auto-detected. */
  volumeMode: 'Filesystem' | 'Block';
  /** Filesystem type for fs-reset and for Block volumes formatted by the agent. */
  fsType: string;
  /** fsType as the admin wrote it (upstream puts only that on the PVs' spec.local.fsType). */
  declaredFsType?: string;
  /** Globs of entry names to consider, comma-separated as upstream (default "*"). */
  namePattern: string;
  /** The access mode of the PVs (upstream accessMode; default ReadWriteOnce). */
  accessMode?: string;
  /** Node selector terms added to each PV's required node affinity (upstream selector). */
  selector?: NodeSelectorTermConfig[];
  /** Stowage keys: only mount points become Filesystem volumes (default true, as upstream). */
  requireMountPoints: boolean;
  /** Stowage keys: entries smaller than this are ineligible (bytes, decimal string; "0" = none). */
  minSizeBytes: string;
  /** Stowage keys: cleanups of this class that may run at once on a node. */
  parallelCleanups: number;
  /**
   * Stowage keys: the capacity (bytes, decimal string) of each plain directory that is not a
   * mount point; without it, the directories on one filesystem share its size equally.
   */
  directoryCapacityBytes?: string;
}

/** A node selector term as written in the config (checked in full when the PV is written). */
export interface NodeSelectorTermConfig {
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
  matchFields?: { key: string; operator: string; values?: string[] }[];
}

export const localAccessModes = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'] as const;

export interface ConfigFieldError {
  field: string;
  message: string;
}
export type StorageClassMapParse = { ok: true; classes: LocalClassConfig[] } | { ok: false; errors: ConfigFieldError[] };

export const maxStorageClassMapBytes = 256 * 1024;
export const maxClasses = 256;
export const maxPathLength = 4096;
export const maxParallelCleanups = 64;
export const defaultParallelCleanups = 2;
export const defaultFsType = 'ext4';
/** Where the bootstrapper mounts discovery directories inside the agent's container (seed 003). */
export const bootstrapMountRoot = '/mnt/local-storage';

const knownKeys = [
  'hostDir',
  'mountDir',
  'blockCleanerCommand',
  'volumeMode',
  'fsType',
  'namePattern',
  'accessMode',
  'selector',
  'requireMountPoints',
  'minSize',
  'parallelCleanups',
  'directoryCapacity',
] as const;
const FS_TYPE_RE = /^[a-z][a-z0-9]{0,15}$/;
const ROOT = 'storageClassMap';

/**
 * The bootstrapper's mountDir for a hostDir (seed 003): strip the leading "/", replace every
 * other "/" with "~", prefix "/mnt/local-storage/". `/mnt/ssds` -> `/mnt/local-storage/mnt~ssds`.
 */
export function mountDirFor(hostDir: string): string {
  const trimmed = hostDir.replace(/\/+$/, '');
  return `${bootstrapMountRoot}/${trimmed.replace(/^\/+/, '').replace(/\//g, '~')}`;
}

/** Why a path cannot be a discovery directory, or undefined when it can. Normalised absolute paths only. */
export function absolutePathProblem(p: string): string | undefined {
  if (p.length === 0) return 'must not be empty';
  if (p.length > maxPathLength) return `must be no more than ${maxPathLength} characters`;
  if (!p.startsWith('/')) return 'must be an absolute path';
  if (/[\0\n\r]/.test(p)) return 'must not contain NUL or line breaks';
  const parts = p.split('/').slice(1);
  if (parts.includes('..')) return 'must not contain ".."';
  if (p === '/') return 'must not be the root directory';
  if (parts.includes('.') || parts.includes('')) return 'must be a normalised path (no "//", "/./" or trailing "/")';
  return undefined;
}

/**
 * Whether `name` matches the pattern: comma-separated globs (`*`, `?`, `[...]`, `\` escapes,
 * as Go's filepath.Match for one path element), any of which may match, as upstream splits
 * namePattern on ",". Empty globs are skipped.
 */
export function matchNamePattern(pattern: string, name: string): boolean {
  return pattern.split(',').some((glob) => {
    if (glob === '') return false;
    const re = globToRegExp(glob);
    return re !== undefined && re.test(name);
  });
}

/** The glob as an anchored RegExp; undefined when the pattern is malformed. */
export function globToRegExp(pattern: string): RegExp | undefined {
  let out = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '\\') {
      if (i + 1 >= pattern.length) return undefined;
      out += escapeRe(pattern[++i]);
    } else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) return undefined;
      let body = pattern.slice(i + 1, end);
      let neg = false;
      if (body.startsWith('^') || body.startsWith('!')) {
        neg = true;
        body = body.slice(1);
      }
      if (body.length === 0) return undefined;
      out += `[${neg ? '^' : ''}${body.replace(/[\\\]^]/g, (m) => `\\${m}`)}]`;
      i = end;
    } else if (c === '/') return undefined;
    else out += escapeRe(c);
  }
  try {
    return new RegExp(`${out}$`, 'u');
  } catch {
    return undefined;
  }
}

const escapeRe = (c: string) => c.replace(/[.*+?^${}()|[\]\\/-]/g, (m) => `\\${m}`);

const under = (p: string, root: string) => p === root || p.startsWith(`${root}/`);

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (v instanceof Map) return 'a map';
  return `a ${typeof v}`;
}

/** Parses and validates the storageClassMap text; every error names its field. */
export function parseStorageClassMap(text: string): StorageClassMapParse {
  if (typeof text !== 'string') return { ok: false, errors: [{ field: ROOT, message: 'must be a string' }] };
  if (Buffer.byteLength(text, 'utf8') > maxStorageClassMapBytes) {
    return { ok: false, errors: [{ field: ROOT, message: `must be no more than ${maxStorageClassMapBytes} bytes` }] };
  }
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false, version: '1.2' });
  if (doc.errors.length > 0) {
    return { ok: false, errors: [{ field: ROOT, message: `invalid YAML: ${doc.errors[0].message.split('\n')[0]}` }] };
  }
  let root: unknown;
  try {
    // Maps stay Maps: a key such as "__proto__" is data, never an object's prototype.
    root = doc.toJS({ mapAsMap: true, maxAliasCount: 50 });
  } catch (e) {
    return { ok: false, errors: [{ field: ROOT, message: `invalid YAML: ${(e as Error).message}` }] };
  }
  if (root === null || root === undefined) return { ok: true, classes: [] };
  if (!(root instanceof Map)) return { ok: false, errors: [{ field: ROOT, message: `must be a map of StorageClass name to settings, not ${describe(root)}` }] };
  if (root.size > maxClasses) return { ok: false, errors: [{ field: ROOT, message: `must have no more than ${maxClasses} classes` }] };

  const errors: ConfigFieldError[] = [];
  const classes: LocalClassConfig[] = [];
  for (const [rawName, rawValue] of root) {
    if (typeof rawName !== 'string') {
      errors.push({ field: ROOT, message: `class names must be strings, not ${describe(rawName)}` });
      continue;
    }
    const field = `${ROOT}.${rawName}`;
    const nameErrs = isDNS1123Subdomain(rawName);
    if (nameErrs.length > 0) {
      errors.push({ field, message: `invalid StorageClass name: ${nameErrs.join('; ')}` });
      continue;
    }
    const cls = parseClass(rawName, rawValue, field, errors);
    if (cls) classes.push(cls);
  }
  checkOverlaps(classes, errors);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, classes };
}

function parseClass(className: string, value: unknown, field: string, errors: ConfigFieldError[]): LocalClassConfig | undefined {
  if (!(value instanceof Map)) {
    errors.push({ field, message: `must be a map of settings (hostDir, ...), not ${describe(value)}` });
    return undefined;
  }
  const before = errors.length;
  const err = (key: string, message: string) => errors.push({ field: `${field}.${key}`, message });
  for (const k of value.keys()) {
    if (typeof k !== 'string' || !(knownKeys as readonly string[]).includes(k)) {
      errors.push({ field: `${field}.${String(k)}`, message: `unknown key; supported keys: ${knownKeys.join(', ')}` });
    }
  }
  const str = (key: string): string | undefined => {
    const v = value.get(key);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') {
      err(key, `must be a string, not ${describe(v)}`);
      return undefined;
    }
    return v;
  };

  const hostDir = str('hostDir');
  if (hostDir === undefined) {
    if (!value.has('hostDir') || value.get('hostDir') === null) err('hostDir', 'is required');
  } else {
    const p = absolutePathProblem(hostDir);
    if (p) err('hostDir', p);
  }
  const mountDirRaw = str('mountDir');
  if (mountDirRaw !== undefined) {
    const p = absolutePathProblem(mountDirRaw);
    if (p) err('mountDir', p);
  }

  const volumeMode = str('volumeMode') ?? 'Filesystem';
  if (volumeMode !== 'Filesystem' && volumeMode !== 'Block') err('volumeMode', `must be "Filesystem" or "Block", not "${volumeMode}"`);

  const fsType = str('fsType') ?? defaultFsType;
  if (!FS_TYPE_RE.test(fsType)) err('fsType', `must be a filesystem type such as ext4 or xfs (lower-case letters and digits), not "${fsType}"`);

  const namePattern = str('namePattern') ?? '*';
  if (namePattern.length === 0 || namePattern.length > 256) err('namePattern', 'must be 1..256 characters');
  else {
    const bad = namePattern.split(',').find((g) => g !== '' && !globToRegExp(g));
    if (bad !== undefined) err('namePattern', `is not a valid glob: "${bad}"`);
  }

  const accessMode = str('accessMode') ?? 'ReadWriteOnce';
  if (!(localAccessModes as readonly string[]).includes(accessMode)) {
    err('accessMode', `must be one of ${localAccessModes.join(', ')}, not "${accessMode}"`);
  }
  const selector = parseSelector(value.get('selector'), (m) => err('selector', m));

  let blockCleanerCommand: string[] = [...defaultBlockCleanerCommand];
  const bcc = value.get('blockCleanerCommand');
  if (bcc !== undefined && bcc !== null) {
    if (!Array.isArray(bcc) || bcc.length === 0 || bcc.length > 32) {
      err('blockCleanerCommand', 'must be a list of 1..32 strings (a method name, or a command path and its arguments)');
    } else if (!bcc.every((a) => typeof a === 'string' && a.length > 0 && a.length <= maxPathLength && !a.includes('\0'))) {
      err('blockCleanerCommand', 'every element must be a non-empty string without NUL');
    } else {
      const parsed = chooseCleanupMethod('Block', bcc as string[]);
      if (!parsed.ok) err('blockCleanerCommand', parsed.message);
      else blockCleanerCommand = [...(bcc as string[])];
    }
  }

  let requireMountPoints = true;
  const rmp = value.get('requireMountPoints');
  if (rmp !== undefined && rmp !== null) {
    if (typeof rmp !== 'boolean') err('requireMountPoints', `must be true or false, not ${describe(rmp)}`);
    else requireMountPoints = rmp;
  }

  let minSizeBytes = '0';
  const ms = value.get('minSize');
  if (ms !== undefined && ms !== null) {
    const q = typeof ms === 'string' || typeof ms === 'number' ? parseQuantity(ms) : undefined;
    if (!q) err('minSize', `must be a quantity such as 10Gi, not ${typeof ms === 'string' ? `"${ms}"` : describe(ms)}`);
    else if (isNegative(q)) err('minSize', 'must not be negative');
    else minSizeBytes = quantityToBytes(q).toString();
  }

  let directoryCapacityBytes: string | undefined;
  const dc = value.get('directoryCapacity');
  if (dc !== undefined && dc !== null) {
    const q = typeof dc === 'string' || typeof dc === 'number' ? parseQuantity(dc) : undefined;
    const bytes = q ? quantityToBytes(q) : undefined;
    if (bytes === undefined) err('directoryCapacity', `must be a quantity such as 20Gi, not ${typeof dc === 'string' ? `"${dc}"` : describe(dc)}`);
    else if (bytes <= 0n) err('directoryCapacity', 'must be greater than zero');
    else directoryCapacityBytes = bytes.toString();
  }

  let parallelCleanups = defaultParallelCleanups;
  const pc = value.get('parallelCleanups');
  if (pc !== undefined && pc !== null) {
    if (typeof pc !== 'number' || !Number.isInteger(pc) || pc < 1 || pc > maxParallelCleanups) {
      err('parallelCleanups', `must be a whole number 1..${maxParallelCleanups}`);
    } else parallelCleanups = pc;
  }

  if (errors.length > before || hostDir === undefined) return undefined;
  return {
    className,
    hostDir,
    mountDir: mountDirRaw ?? hostDir,
    blockCleanerCommand,
    volumeMode: volumeMode as 'Filesystem' | 'Block',
    fsType,
    ...(value.get('fsType') !== undefined && value.get('fsType') !== null ? { declaredFsType: fsType } : {}),
    namePattern,
    accessMode,
    selector,
    requireMountPoints,
    minSizeBytes,
    parallelCleanups,
    ...(directoryCapacityBytes ? { directoryCapacityBytes } : {}),
  };
}

const termKeys = ['matchExpressions', 'matchFields'];
const requirementKeys = ['key', 'operator', 'values'];

/** upstream's `selector`: a list of node selector terms (the PV write checks operators and values). */
function parseSelector(raw: unknown, err: (message: string) => void): NodeSelectorTermConfig[] {
  if (raw === undefined || raw === null) return [];
  const shape = 'must be a list of node selector terms ({matchExpressions: [{key, operator, values}], matchFields: [...]})';
  if (!Array.isArray(raw) || raw.length > 32) {
    err(`${shape}, at most 32`);
    return [];
  }
  const terms: NodeSelectorTermConfig[] = [];
  for (const t of raw) {
    if (!(t instanceof Map) || [...t.keys()].some((k) => !termKeys.includes(k as string))) {
      err(shape);
      return [];
    }
    const term: NodeSelectorTermConfig = {};
    for (const which of termKeys as ('matchExpressions' | 'matchFields')[]) {
      const list = t.get(which);
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list) || list.length > 32) {
        err(shape);
        return [];
      }
      const reqs = [];
      for (const r of list) {
        const ok =
          r instanceof Map &&
          [...r.keys()].every((k) => requirementKeys.includes(k as string)) &&
          typeof r.get('key') === 'string' &&
          typeof r.get('operator') === 'string' &&
          (r.get('values') === undefined || r.get('values') === null || (Array.isArray(r.get('values')) && (r.get('values') as unknown[]).every((v) => typeof v === 'string')));
        if (!ok) {
          err(shape);
          return [];
        }
        const values = r.get('values') as string[] | undefined | null;
        reqs.push({ key: r.get('key') as string, operator: r.get('operator') as string, ...(values ? { values: [...values] } : {}) });
      }
      term[which] = reqs;
    }
    terms.push(term);
  }
  return terms;
}

/** One disk must never belong to two classes: discovery directories may not nest or repeat. */
function checkOverlaps(classes: LocalClassConfig[], errors: ConfigFieldError[]): void {
  for (let i = 0; i < classes.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = classes[i];
      const b = classes[j];
      for (const key of ['hostDir', 'mountDir'] as const) {
        if (under(a[key], b[key]) || under(b[key], a[key])) {
          errors.push({
            field: `${ROOT}.${a.className}.${key}`,
            message: `${a[key]} overlaps ${b[key]} of class ${b.className}: discovery directories must not repeat or nest`,
          });
        }
      }
    }
  }
}
