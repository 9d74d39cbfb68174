// The content-addressed chunk store of one target: a chunk's id is the SHA-256 of its
// plain bytes; it is stored deflated only when a quick sample says deflate saves >= 10 %
// (random data skips deflate after ~0.1 ms), behind a 1-byte header; written to a temp
// name and renamed, so a chunk file is whole or absent. Reading verifies the hash.
import { execFile } from 'node:child_process';
import { randomBytes, webcrypto } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { CHUNK_DEFLATE, CHUNK_RAW, chunkPath, formatFileContent, layout, type Layout } from './format';

const deflateRaw = promisify(zlib.deflateRaw);
const run = promisify(execFile);

/** SHA-256 hex, computed on the libuv thread pool (keeps the main thread free to read and write). */
export async function sha256Hex(buf: Uint8Array): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', buf)).toString('hex');
}

export function isAllZero(buf: Buffer): boolean {
  if (buf.length === 0) return true;
  if (buf[0] !== 0 || buf[buf.length - 1] !== 0) return false;
  return buf.equals(zeroes(buf.length));
}
let zeroBuf = Buffer.alloc(0);
function zeroes(n: number): Buffer {
  if (zeroBuf.length < n) zeroBuf = Buffer.alloc(n);
  return zeroBuf.subarray(0, n);
}

const SAMPLE = 4096;
/** Whether deflate is worth trying: three 4 KiB samples must shrink by >= 10 %. */
export function looksCompressible(buf: Buffer): boolean {
  if (buf.length <= 3 * SAMPLE) return zlib.deflateRawSync(buf, { level: 1 }).length <= buf.length * 0.9;
  const mid = (buf.length >> 1) - (SAMPLE >> 1);
  const sample = Buffer.concat([buf.subarray(0, SAMPLE), buf.subarray(mid, mid + SAMPLE), buf.subarray(buf.length - SAMPLE)]);
  return zlib.deflateRawSync(sample, { level: 1 }).length <= sample.length * 0.9;
}

/** The stored form of a chunk: [header, body]. `compressible`: the sample's answer when already known. */
export async function encodeChunk(plain: Buffer, compressible?: boolean): Promise<Buffer[]> {
  if (compressible ?? looksCompressible(plain)) {
    const packed = await deflateRaw(plain, { level: 3 });
    if (packed.length <= plain.length * 0.9) return [Buffer.of(CHUNK_DEFLATE), packed];
  }
  return [Buffer.of(CHUNK_RAW), plain];
}

export class ChunkStore {
  readonly l: Layout;
  private made = new Set<string>();
  constructor(readonly targetRoot: string) {
    this.l = layout(targetRoot);
  }

  /** Makes the layout (and format.json) when absent; refuses a directory of another format. */
  async open(): Promise<void> {
    await fs.mkdir(this.l.base, { recursive: true });
    try {
      const f = JSON.parse(await fs.readFile(this.l.formatFile, 'utf8')) as { format?: unknown; version?: unknown };
      if (f.format !== formatFileContent.format || f.version !== formatFileContent.version) throw new Error(`${this.l.formatFile} names another format (${JSON.stringify(f).slice(0, 100)})`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      await writeFileAtomic(this.l.formatFile, JSON.stringify(formatFileContent) + '\n');
    }
    await Promise.all([this.l.chunks, this.l.backups, this.l.running, this.l.trash].map((d) => fs.mkdir(d, { recursive: true })));
  }

  async has(id: string): Promise<boolean> {
    try {
      await fs.access(chunkPath(this.l, id));
      return true;
    } catch {
      return false;
    }
  }

  /** A chunk's final path and a fresh temp name beside it; its directory is made (once per store). */
  async names(id: string): Promise<{ final: string; tmp: string }> {
    const final = chunkPath(this.l, id);
    const dir = path.dirname(final);
    if (!this.made.has(dir)) {
      await fs.mkdir(dir, { recursive: true });
      this.made.add(dir);
    }
    return { final, tmp: `${final}.tmp-${randomBytes(6).toString('hex')}` };
  }

  /** Stores a chunk (whole or absent); answers the bytes written (header included). */
  async put(id: string, plain: Buffer, compressible?: boolean): Promise<number> {
    const { final, tmp } = await this.names(id);
    const parts = await encodeChunk(plain, compressible);
    const fh = await fs.open(tmp, 'wx');
    try {
      await fh.writev(parts);
    } finally {
      await fh.close();
    }
    await fs.rename(tmp, final);
    return parts[0].length + parts[1].length;
  }



  /** Puts back a chunk a garbage collection moved to its trash (trash/<run>/<id>); true when it found one. */
  async takeBackFromTrash(id: string): Promise<boolean> {
    const runs = await fs.readdir(this.l.trash).catch(() => [] as string[]);
    for (const r of runs) {
      try {
        await fs.mkdir(path.dirname(chunkPath(this.l, id)), { recursive: true });
        await fs.rename(path.join(this.l.trash, r, id), chunkPath(this.l, id));
        return true;
      } catch {
        // not in this run's trash
      }
    }
    return false;
  }

  /** One syncfs of the target's filesystem (`sync -f`), instead of an fsync per chunk. */
  async syncTarget(): Promise<void> {
    await run('sync', ['-f', this.l.base]);
  }
}

/** Writes a file whole or not at all: temp, fsync, rename, fsync of the directory. */
export async function writeFileAtomic(file: string, content: string | Buffer): Promise<void> {
  const tmp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
  const fh = await fs.open(tmp, 'wx');
  try {
    await fh.writeFile(content);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fs.rename(tmp, file);
  await fsyncDir(path.dirname(file));
}

export async function fsyncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
