// Hashing off the main thread and off the libuv pool: one worker thread per core scans a
// chunk (all-zero? SHA-256, and whether a deflate sample shrinks) in place, over shared
// memory, so nothing is copied; the same thread then stores a raw chunk the target lacks
// (temp + one writev + rename, synchronous calls: no hop through the libuv pool per step).
// For a restore, a thread reads a stored chunk, verifies it and writes it at its offset
// through the destination file's descriptor, all in one message. Chunk buffers come from a SlabPool of SharedArrayBuffers
// that are reused for the whole run (no fresh pages to fault in per chunk). A buffer that is
// not shared memory is hashed on the libuv pool instead (webcrypto), with the same answer.
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { isAllZero, looksCompressible, sha256Hex } from './chunk-store';

/** The worker's code, plain CommonJS so it runs the same under tsx, vitest and a bundle. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// Write locks shared by the threads, one per destination file (by descriptor): buffered
// writes to one file serialize in the kernel anyway, where a waiter spins; here it sleeps,
// and the core hashes for another thread.
const locks = workerData.locks;
function lock(i) {
  while (Atomics.compareExchange(locks, i, 0, 1) !== 0) Atomics.wait(locks, i, 1);
}
function unlock(i) {
  Atomics.store(locks, i, 0);
  Atomics.notify(locks, i, 1);
}
const { createHash } = require('node:crypto');
const zlib = require('node:zlib');
const SAMPLE = 4096;
let zero = new Uint8Array(0);
function allZero(v) {
  if (v.length === 0) return true;
  if (v[0] !== 0 || v[v.length - 1] !== 0) return false;
  if (zero.length < v.length) zero = new Uint8Array(v.length);
  return Buffer.from(v.buffer, v.byteOffset, v.length).equals(Buffer.from(zero.buffer, 0, v.length));
}
function compressible(v) {
  const b = Buffer.from(v.buffer, v.byteOffset, v.length);
  let s;
  if (b.length <= 3 * SAMPLE) s = b;
  else {
    const mid = (b.length >> 1) - (SAMPLE >> 1);
    s = Buffer.concat([b.subarray(0, SAMPLE), b.subarray(mid, mid + SAMPLE), b.subarray(b.length - SAMPLE)]);
  }
  return zlib.deflateRawSync(s, { level: 1 }).length <= s.length * 0.9;
}
const fs = require('node:fs');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const madeDirs = new Set();
function store(chunks, id, v) {
  // Present already: nothing written. Else temp (O_EXCL), header and body in one writev, rename.
  const dir = path.join(chunks, id.slice(0, 2));
  const final = path.join(dir, id);
  try {
    fs.accessSync(final);
    return 0;
  } catch {}
  if (!madeDirs.has(dir)) {
    fs.mkdirSync(dir, { recursive: true });
    madeDirs.add(dir);
  }
  const tmp = final + '.tmp-' + randomBytes(6).toString('hex');
  const fd = fs.openSync(tmp, 'wx');
  try {
    let left = 1 + v.length;
    let parts = [Buffer.of(0), Buffer.from(v.buffer, v.byteOffset, v.length)];
    while (left > 0) {
      const n = fs.writevSync(fd, parts);
      left -= n;
      if (left > 0) {
        let skip = n;
        while (skip >= parts[0].length) { skip -= parts[0].length; parts.shift(); }
        parts[0] = parts[0].subarray(skip);
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, final);
  return 1 + v.length;
}
let rbuf = Buffer.alloc(0);
function restore(m) {
  // Reads a stored chunk (at most cap bytes), decodes it, checks its SHA-256 against its id,
  // and only then writes it at its offset through the destination's descriptor (when given).
  let fd;
  try {
    fd = fs.openSync(m.file, 'r');
  } catch (e) {
    if (e.code === 'ENOENT') return { missing: true };
    return { reason: 'cannot be read (' + (e.code || e.message) + ')' };
  }
  let n = 0;
  try {
    if (rbuf.length < m.cap + 1) rbuf = Buffer.allocUnsafe(m.cap + 1);
    for (;;) {
      const r = fs.readSync(fd, rbuf, n, m.cap + 1 - n, n);
      if (r === 0) break;
      n += r;
      if (n > m.cap) return { reason: 'cannot be read (chunk file is more than ' + m.cap + ' bytes)' };
    }
  } catch (e) {
    return { reason: 'cannot be read (' + (e.code || e.message) + ')' };
  } finally {
    fs.closeSync(fd);
  }
  if (n === 0) return { reason: 'empty chunk file' };
  let plain;
  if (rbuf[0] === 0) plain = rbuf.subarray(1, n);
  else if (rbuf[0] === 1) {
    try {
      plain = zlib.inflateRawSync(rbuf.subarray(1, n), { maxOutputLength: m.max });
    } catch (e) {
      return { reason: 'does not inflate (' + e.message + ')' };
    }
  } else return { reason: 'unknown header byte ' + rbuf[0] };
  if (plain.length > m.max) return { reason: 'larger than ' + m.max + ' bytes' };
  const got = createHash('sha256').update(plain).digest('hex');
  if (got !== m.id) return { reason: 'content hash is ' + got.slice(0, 16) + '\u2026, not its id' };
  if (m.fd === undefined) return { bytes: plain.length };
  if (plain.length !== m.len) return { wrongLength: plain.length };
  const slot = m.fd % locks.length;
  lock(slot);
  try {
    for (let at = 0; at < plain.length; ) at += fs.writeSync(m.fd, plain, at, plain.length - at, m.offset + at);
  } finally {
    unlock(slot);
  }
  return { bytes: plain.length };
}
parentPort.on('message', (m) => {
  try {
    if (m.restore) return parentPort.postMessage({ seq: m.seq, ...restore(m) });
    const v = new Uint8Array(m.buf, m.off, m.len);
    if (m.scan && allZero(v)) return parentPort.postMessage({ seq: m.seq, zero: true });
    const hex = createHash('sha256').update(v).digest('hex');
    if (!m.scan) return parentPort.postMessage({ seq: m.seq, hex });
    const c = compressible(v);
    // A raw chunk is stored right here (the header byte 0 is CHUNK_RAW).
    const written = !c && m.chunks ? store(m.chunks, hex, v) : undefined;
    parentPort.postMessage({ seq: m.seq, hex, compressible: c, written });
  } catch (e) {
    parentPort.postMessage({ seq: m.seq, error: String((e && e.message) || e) });
  }
});
`;

/** `written`: when the scan stored the chunk (raw) itself, the bytes it wrote (0: the target held it). */
export type Scan = { zero: true } | { zero: false; id: string; compressible: boolean; written?: number };

type Answer = { zero?: boolean; hex?: string; compressible?: boolean; written?: number } & RestoreAnswer;
/** A stored chunk read back: its plain length, or why it is unusable (`missing`: no such file). */
export type RestoreAnswer = { bytes?: number; missing?: boolean; reason?: string; wrongLength?: number };
interface Waiting {
  resolve(v: Answer): void;
  reject(e: Error): void;
  worker: number;
}

/** A few hashing worker threads for one run (none: everything on the libuv pool); `close` ends them. */
export class Hasher {
  private readonly workers: Worker[] = [];
  private readonly load: number[] = [];
  private readonly waiting = new Map<number, Waiting>();
  private seq = 0;
  private closed = false;

  constructor(threads = Math.max(1, Math.min(4, os.availableParallelism()))) {
    const locks = new Int32Array(new SharedArrayBuffer(4 * 64));
    for (let i = 0; i < threads; i++) {
      const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { locks } });
      w.unref();
      w.on('message', (m: Answer & { seq: number; error?: string }) => {
        const wait = this.waiting.get(m.seq);
        if (!wait) return;
        this.waiting.delete(m.seq);
        this.load[wait.worker]--;
        const { seq: _seq, error, ...answer } = m;
        if (error !== undefined) wait.reject(new Error(error));
        else wait.resolve(answer);
      });
      const fail = (e: Error) => {
        this.load[i] = Number.POSITIVE_INFINITY; // never picked again
        for (const [seq, wait] of this.waiting) {
          if (wait.worker !== i) continue;
          this.waiting.delete(seq);
          wait.reject(e);
        }
      };
      w.on('error', fail);
      w.on('exit', () => fail(new Error('a hashing thread ended')));
      this.workers.push(w);
      this.load.push(0);
    }
  }

  /** SHA-256 hex of `view` (in a worker when it lies in shared memory). */
  async sha256(view: Uint8Array): Promise<string> {
    if (!this.usable(view)) return sha256Hex(view);
    const r = await this.post(view, {});
    return r.hex!;
  }

  /**
   * All-zero check, then SHA-256 and the deflate sample; in a worker when `view` lies in
   * shared memory. With `chunksDir` (a target's chunks/), a chunk that does not look
   * compressible is stored there by the worker unless present (temp + one writev + rename).
   */
  async scan(view: Buffer, chunksDir?: string): Promise<Scan> {
    if (!this.usable(view)) {
      if (isAllZero(view)) return { zero: true };
      return { zero: false, id: await sha256Hex(view), compressible: looksCompressible(view) };
    }
    const r = await this.post(view, { scan: true, chunks: chunksDir });
    return r.zero ? { zero: true } : { zero: false, id: r.hex!, compressible: r.compressible!, ...(r.written !== undefined ? { written: r.written } : {}) };
  }

  /**
   * Reads the stored chunk `file`, decodes it (at most `max` plain bytes) and checks it is
   * `id`; then, with `fd`, writes it at `offset` when it is `len` bytes long. Nothing is
   * written unless the chunk checked out.
   */
  async restoreChunk(o: { file: string; id: string; max: number; fd?: number; offset?: number; len?: number }): Promise<RestoreAnswer> {
    if (this.closed || !this.load.some((n) => Number.isFinite(n))) throw new Error('no thread left to read chunks');
    return this.send({ restore: true, cap: o.max + 1024, ...o });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled(this.workers.map((w) => w.terminate()));
  }

  private usable(view: Uint8Array): boolean {
    return !this.closed && view.buffer instanceof SharedArrayBuffer && this.load.some((n) => Number.isFinite(n));
  }

  private post(view: Uint8Array, what: { scan?: boolean; chunks?: string }): Promise<Answer> {
    return this.send({ buf: view.buffer, off: view.byteOffset, len: view.byteLength, ...what });
  }

  private send(message: Record<string, unknown>): Promise<Answer> {
    let best = 0;
    for (let i = 1; i < this.load.length; i++) if (this.load[i] < this.load[best]) best = i;
    const seq = this.seq++;
    this.load[best]++;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject, worker: best });
      this.workers[best].postMessage({ ...message, seq });
    });
  }
}

/**
 * Reusable buffers in shared memory, at most `max` of `bytes` each; `take` waits (first come,
 * first served) while all are lent out.
 */
export class SlabPool {
  private readonly free: Buffer[] = [];
  private readonly waiters: ((b: Buffer) => void)[] = [];
  private made = 0;
  /** `shared`: in shared memory (for worker threads); else plain buffers. */
  constructor(readonly bytes: number, readonly max: number, readonly shared = true) {}

  async take(): Promise<Buffer> {
    const b = this.free.pop();
    if (b) return b;
    if (this.made < this.max) {
      this.made++;
      return this.shared ? Buffer.from(new SharedArrayBuffer(this.bytes)) : Buffer.allocUnsafeSlow(this.bytes);
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  give(b: Buffer): void {
    const w = this.waiters.shift();
    if (w) w(b);
    else this.free.push(b);
  }
}
