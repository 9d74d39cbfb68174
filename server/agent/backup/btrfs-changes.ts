// What changed between two read-only snapshots of one btrfs subvolume, from
// `btrfs send --no-data -p parent root | btrfs receive --dump`: per file, the byte ranges
// whose data changed; and the paths whose whole subtree must be read again (anything made,
// renamed or linked there). The parser is pure; any line it does not understand makes the
// whole answer "unknown" (the caller then reads everything).
import { spawn } from 'node:child_process';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface BtrfsChanges {
  /** The parent's UUID the stream was made against. */
  parentUuid?: string;
  /** Changed byte ranges per path (relative to the subvolume root). `end` is exclusive. */
  ranges: Map<string, { start: number; end: number }[]>;
  /** Paths whose subtree is new to this snapshot (made, renamed into, linked): read whole. */
  fresh: Set<string>;
}

/** `\ooo` octal bytes and `\c` escapes of btrfs-progs' dump, back to the name. */
export function unescapeDumpPath(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length) {
      const oct = /^[0-7]{3}/.exec(s.slice(i + 1, i + 4));
      if (oct) {
        bytes.push(parseInt(oct[0], 8));
        i += 3;
      } else {
        bytes.push(...Buffer.from(s[i + 1], 'utf8'));
        i += 1;
      }
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

const METADATA_OPS = new Set(['chown', 'chmod', 'utimes', 'set_xattr', 'remove_xattr', 'unlink', 'rmdir', 'fileattr']);
const FRESH_OPS = new Set(['mkfile', 'mkdir', 'mknod', 'mkfifo', 'mksock', 'symlink']);

/** Parses the dump; undefined when any line is not understood. */
export function parseSendDump(text: string): BtrfsChanges | undefined {
  const out: BtrfsChanges = { ranges: new Map(), fresh: new Set() };
  let prefix: string | undefined;
  const rel = (p: string): string | undefined => {
    const u = unescapeDumpPath(p);
    if (prefix === undefined) return undefined;
    if (u === prefix || u === `${prefix}/`) return '';
    if (!u.startsWith(`${prefix}/`)) return undefined;
    return u.slice(prefix.length + 1).replace(/\/$/, '');
  };
  const addRange = (p: string, start: number, len: number) => {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(len) || start < 0 || len < 0) return false;
    const list = out.ranges.get(p) ?? [];
    list.push({ start, end: start + len });
    out.ranges.set(p, list);
    return true;
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const tokens = line.match(/(?:\\.|[^\s\\])+/g);
    if (!tokens || tokens.length < 2) return undefined;
    const [op, rawPath, ...rest] = tokens;
    const kv = new Map<string, string>();
    for (const t of rest) {
      const eq = t.indexOf('=');
      if (eq > 0) kv.set(t.slice(0, eq), t.slice(eq + 1));
    }
    if (op === 'snapshot' || op === 'subvol') {
      if (prefix !== undefined) return undefined;
      prefix = unescapeDumpPath(rawPath).replace(/\/$/, '');
      out.parentUuid = kv.get('parent_uuid');
      if (op === 'subvol') return undefined; // a full stream: nothing to compare with
      continue;
    }
    const p = rel(rawPath);
    if (p === undefined) return undefined;
    if (METADATA_OPS.has(op)) continue;
    if (FRESH_OPS.has(op)) {
      out.fresh.add(p);
      continue;
    }
    if (op === 'rename') {
      // rename <old> dest=<new>
      const dest = kv.get('dest');
      const d = dest === undefined ? undefined : rel(dest);
      if (d === undefined) return undefined;
      out.fresh.add(d);
      continue;
    }
    if (op === 'link') {
      // link <new name> dest=<existing name, relative>: the new name is read whole
      out.fresh.add(p);
      continue;
    }
    if (op === 'update_extent' || op === 'write' || op === 'clone' || op === 'encoded_write' || op === 'fallocate') {
      const offset = Number(kv.get('offset'));
      const len = Number(kv.get('len') ?? kv.get('unencoded_file_len'));
      if (!addRange(p, offset, len)) return undefined;
      continue;
    }
    if (op === 'truncate') {
      const size = Number(kv.get('size'));
      if (!addRange(p, size, Number.MAX_SAFE_INTEGER - size)) return undefined;
      continue;
    }
    return undefined;
  }
  if (prefix === undefined) return undefined;
  return out;
}

/** Whether `p` or one of its ancestors is fresh. */
export function underFresh(fresh: Set<string>, p: string): boolean {
  if (fresh.has('')) return true;
  let at = p;
  for (;;) {
    if (fresh.has(at)) return true;
    const slash = at.lastIndexOf('/');
    if (slash < 0) return false;
    at = at.slice(0, slash);
  }
}

export function overlaps(ranges: { start: number; end: number }[] | undefined, start: number, end: number): boolean {
  if (!ranges) return false;
  for (const r of ranges) if (r.start < end && start < r.end) return true;
  return false;
}

/** A read-only btrfs subvolume's UUID, or undefined when `dir` is not one. */
export async function readOnlySubvolumeUuid(dir: string): Promise<string | undefined> {
  try {
    const ro = (await run('btrfs', ['property', 'get', '-ts', dir, 'ro'])).stdout.trim();
    if (ro !== 'ro=true') return undefined;
    const show = (await run('btrfs', ['subvolume', 'show', dir], { maxBuffer: 1 << 20 })).stdout;
    return /^\s*UUID:\s*([0-9a-f-]{36})\s*$/m.exec(show)?.[1];
  } catch {
    return undefined;
  }
}

/** The subvolume UUID (of any subvolume, read-only or not), or undefined. */
export async function subvolumeUuid(dir: string): Promise<string | undefined> {
  try {
    const show = (await run('btrfs', ['subvolume', 'show', dir], { maxBuffer: 1 << 20 })).stdout;
    return /^\s*UUID:\s*([0-9a-f-]{36})\s*$/m.exec(show)?.[1];
  } catch {
    return undefined;
  }
}

/** Runs send --no-data | receive --dump and parses it; undefined on any failure. */
export async function btrfsChanges(parent: string, root: string, signal?: AbortSignal): Promise<BtrfsChanges | undefined> {
  return new Promise((resolve) => {
    const send = spawn('btrfs', ['send', '--no-data', '-q', '-p', parent, root], { stdio: ['ignore', 'pipe', 'pipe'], signal });
    const recv = spawn('btrfs', ['receive', '--dump'], { stdio: ['pipe', 'pipe', 'pipe'], signal });
    send.stdout.pipe(recv.stdin);
    const parts: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    recv.stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size > 256 << 20) tooBig = true;
      else parts.push(b);
    });
    let codes = 0;
    let failed = false;
    const done = (code: number | null) => {
      if (code !== 0) failed = true;
      if (++codes < 2) return;
      resolve(failed || tooBig ? undefined : parseSendDump(Buffer.concat(parts).toString('utf8')));
    };
    send.on('error', () => (failed = true));
    recv.on('error', () => (failed = true));
    recv.stdin.on('error', () => (failed = true));
    send.on('close', done);
    recv.on('close', done);
  });
}
