// The on-target format of backups (docs/backups-format.md): the layout under
// `<target>/stowage-backups/`, the manifest's zod schema (every manifest read is validated
// and bounded: it may come from another installation, or be damaged), chunk encoding
// (1-byte header: raw or deflate-raw), and the checks on ids and paths a hostile manifest
// could abuse.
import path from 'node:path';
import { z } from 'zod';
import { backupOriginSchema, dataFormatSchema } from '../../contracts/data-jobs';

export const DEFAULT_CHUNK_BYTES = 1 << 20;
export const MAX_CHUNK_BYTES = 8 << 20;
/** A manifest file larger than this is refused unread. */
export const MAX_MANIFEST_BYTES = 512 << 20;
const MAX_ENTRIES = 5_000_000;
const MAX_CHUNKS_PER_FILE = 1 << 24;

export const CHUNK_RAW = 0;
export const CHUNK_DEFLATE = 1;

/** The layout of one target. */
export function layout(targetRoot: string) {
  const base = path.join(targetRoot, 'stowage-backups');
  return {
    base,
    formatFile: path.join(base, 'format.json'),
    chunks: path.join(base, 'chunks'),
    backups: path.join(base, 'backups'),
    running: path.join(base, 'running'),
    trash: path.join(base, 'trash'),
    gcLock: path.join(base, 'gc.lock'),
  };
}
export type Layout = ReturnType<typeof layout>;

export const chunkIdPattern = /^[0-9a-f]{64}$/;
export function chunkPath(l: Layout, id: string): string {
  if (!chunkIdPattern.test(id)) throw new Error(`not a chunk id: ${JSON.stringify(id.slice(0, 80))}`);
  return path.join(l.chunks, id.slice(0, 2), id);
}

/** A backup id names files in the target: letters, digits, `-`, `_`, `.` (never `..`), at most 253. */
export const backupIdPattern = /^(?!\.)[A-Za-z0-9._-]{1,253}$/;
export function checkBackupId(id: string): string {
  if (typeof id !== 'string' || !backupIdPattern.test(id) || id.includes('..')) throw new Error(`not a valid backup id: ${JSON.stringify(String(id).slice(0, 80))}`);
  return id;
}
export const manifestPath = (l: Layout, id: string) => path.join(l.backups, `${checkBackupId(id)}.json`);
export const leasePath = (l: Layout, id: string) => path.join(l.running, `${checkBackupId(id)}.json`);
export const pendingPath = (l: Layout, id: string) => path.join(l.running, `${checkBackupId(id)}.manifest`);

/**
 * A relative path inside a restored tree: no empty, `.` or `..` component, not absolute,
 * no NUL, at most 4096 bytes. Returns the components.
 */
export function safeRelativePath(p: string): string[] {
  if (p.length === 0 || p.length > 4096 || p.startsWith('/') || p.includes('\0')) throw new Error(`unsafe path in manifest: ${JSON.stringify(p.slice(0, 200))}`);
  const parts = p.split('/');
  for (const c of parts) if (c === '' || c === '.' || c === '..' || Buffer.byteLength(c) > 255) throw new Error(`unsafe path in manifest: ${JSON.stringify(p.slice(0, 200))}`);
  return parts;
}

const decimal = z.string().regex(/^\d{1,20}$/);
const signedDecimal = z.string().regex(/^-?\d{1,24}$/);
/** null: an all-zero chunk (a hole), not stored. */
const chunkRef = z.string().regex(chunkIdPattern).nullable();

const common = {
  mode: z.number().int().min(0).max(0o7777),
  uid: z.number().int().min(0).max(2 ** 32 - 1),
  gid: z.number().int().min(0).max(2 ** 32 - 1),
  /** Modification time, nanoseconds since the epoch. */
  mtimeNs: signedDecimal,
  /** The inode number at backup time (incremental reuse compares it). */
  ino: decimal.optional(),
};

export const entrySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('dir'), path: z.string().min(1).max(4096), ...common }),
  z.object({ type: z.literal('file'), path: z.string().min(1).max(4096), ...common, size: decimal, chunks: z.array(chunkRef).max(MAX_CHUNKS_PER_FILE) }),
  z.object({ type: z.literal('symlink'), path: z.string().min(1).max(4096), ...common, target: z.string().min(1).max(4096) }),
]);
export type Entry = z.infer<typeof entrySchema>;
export type FileEntry = Extract<Entry, { type: 'file' }>;

export const imageSchema = z.object({ size: decimal, mtimeNs: signedDecimal, ino: decimal.optional(), chunks: z.array(chunkRef).max(MAX_CHUNKS_PER_FILE) });
export type ImageData = z.infer<typeof imageSchema>;

export const manifestSchema = z
  .object({
    kind: z.literal('stowage-backup-manifest'),
    version: z.literal(1),
    backupId: z.string().regex(backupIdPattern),
    origin: backupOriginSchema,
    format: dataFormatSchema,
    chunkBytes: z.number().int().min(4096).max(MAX_CHUNK_BYTES),
    createdAt: z.string().max(64),
    completedAt: z.string().max(64),
    parentBackupId: z.string().regex(backupIdPattern).optional(),
    /** The btrfs subvolume UUID of the source, when it was a btrfs subvolume (a later incremental backup checks its parent snapshot against it). */
    sourceBtrfsUuid: z.string().max(64).optional(),
    totals: z.object({ totalBytes: decimal, newBytes: decimal, chunks: z.number().int().nonnegative(), newChunks: z.number().int().nonnegative() }),
    /** files: the root directory's own metadata. */
    root: z.object(common).optional(),
    /** files: the tree, parents before children (the root itself is not an entry). */
    entries: z.array(entrySchema).max(MAX_ENTRIES).optional(),
    /** image: the one file. */
    image: imageSchema.optional(),
  })
  .refine((m) => (m.format === 'files' ? m.entries !== undefined && m.image === undefined : m.image !== undefined && m.entries === undefined), {
    message: 'a files backup has entries, an image backup has an image',
  });
export type Manifest = z.infer<typeof manifestSchema>;

export const leaseSchema = z.object({ backupId: z.string().regex(backupIdPattern), pid: z.number().int(), host: z.string().max(253), startedAt: z.string().max(64), renewedAt: z.string().max(64) });
export type Lease = z.infer<typeof leaseSchema>;

export const formatFileContent = { format: 'stowage-backups', version: 1 } as const;

/** Every chunk id a manifest references (holes excluded). */
export function manifestChunkIds(m: Manifest): Iterable<string> {
  const out = new Set<string>();
  const add = (cs: (string | null)[]) => {
    for (const c of cs) if (c) out.add(c);
  };
  if (m.image) add(m.image.chunks);
  for (const e of m.entries ?? []) if (e.type === 'file') add(e.chunks);
  return out;
}

export class MissingBackupError extends Error {
  constructor(readonly backupId: string, why = 'no manifest in the target') {
    super(`backup ${backupId} is missing: ${why}`);
    this.name = 'MissingBackupError';
  }
}

export class DamagedChunkError extends Error {
  constructor(readonly backupId: string, readonly chunk: string, readonly reason: string) {
    super(`backup ${backupId}: chunk ${chunk} is damaged: ${reason}`);
    this.name = 'DamagedChunkError';
  }
}
