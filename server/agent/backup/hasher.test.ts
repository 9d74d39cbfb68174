// The worker threads give the same answers as the main-thread path (zero check, SHA-256,
// deflate sample), store a raw chunk whole, and never write a chunk that fails its check.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { looksCompressible } from './chunk-store';
import { CHUNK_DEFLATE, CHUNK_RAW } from './format';
import { Hasher, SlabPool } from './hasher';

let work: string;
let hasher: Hasher;
beforeEach(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-hasher-'));
  hasher = new Hasher(2);
});
afterEach(async () => {
  await hasher.close();
  await fs.rm(work, { recursive: true, force: true });
});

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
function shared(content: Buffer): Buffer {
  const b = Buffer.from(new SharedArrayBuffer(content.length + 100)).subarray(50, 50 + content.length);
  content.copy(b);
  return b;
}

describe('Hasher.scan', () => {
  const cases: [string, Buffer][] = [
    ['random', randomBytes(1 << 20)],
    ['zeroes', Buffer.alloc(1 << 20)],
    ['zero but the middle byte', Buffer.alloc(1 << 20).fill(7, 1 << 19, (1 << 19) + 1)],
    ['text', Buffer.from('hello backups\n'.repeat(20_000))],
    ['small random', randomBytes(5000)],
  ];
  it.each(cases)('%s: the same answer in a worker (shared memory) as on the main thread', async (_name, content) => {
    const inWorker = await hasher.scan(shared(content));
    const onMain = await hasher.scan(Buffer.from(content));
    expect(inWorker).toEqual(onMain);
    if (content.every((b) => b === 0)) expect(inWorker).toEqual({ zero: true });
    else expect(inWorker).toEqual({ zero: false, id: sha(content), compressible: looksCompressible(content) });
  });

  it('stores a raw chunk whole under chunks/<2 hex>/<id> once, and answers 0 when it is present', async () => {
    const chunks = path.join(work, 'chunks');
    const content = randomBytes(300_000);
    const first = await hasher.scan(shared(content), chunks);
    expect(first).toMatchObject({ zero: false, id: sha(content), compressible: false, written: content.length + 1 });
    const id = sha(content);
    const stored = await fs.readFile(path.join(chunks, id.slice(0, 2), id));
    expect(stored[0]).toBe(CHUNK_RAW);
    expect(stored.subarray(1).equals(content)).toBe(true);
    expect(await hasher.scan(shared(content), chunks)).toMatchObject({ written: 0 });
    expect((await fs.readdir(path.join(chunks, id.slice(0, 2)))).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('leaves a compressible chunk to the caller (not stored by the worker)', async () => {
    const chunks = path.join(work, 'chunks');
    const r = await hasher.scan(shared(Buffer.from('abc'.repeat(100_000))), chunks);
    expect(r).toMatchObject({ zero: false, compressible: true });
    expect('written' in r).toBe(false);
    await expect(fs.readdir(chunks)).rejects.toThrow();
  });
});

describe('Hasher.restoreChunk', () => {
  async function storedChunk(header: number, body: Buffer): Promise<string> {
    const f = path.join(work, `c-${randomBytes(4).toString('hex')}`);
    await fs.writeFile(f, Buffer.concat([Buffer.of(header), body]));
    return f;
  }

  it('writes a verified chunk at its offset, raw or deflated', async () => {
    const dest = path.join(work, 'dest');
    const fh = await fs.open(dest, 'w+');
    const raw = randomBytes(1 << 20);
    const text = Buffer.from('restore me\n'.repeat(95_326)).subarray(0, 1 << 20);
    try {
      await fh.truncate(3 << 20);
      const { deflateRawSync } = await import('node:zlib');
      expect(await hasher.restoreChunk({ file: await storedChunk(CHUNK_RAW, raw), id: sha(raw), max: 1 << 20, fd: fh.fd, offset: 1 << 20, len: 1 << 20 })).toEqual({ bytes: 1 << 20 });
      expect(await hasher.restoreChunk({ file: await storedChunk(CHUNK_DEFLATE, deflateRawSync(text)), id: sha(text), max: 1 << 20, fd: fh.fd, offset: 2 << 20, len: 1 << 20 })).toEqual({ bytes: 1 << 20 });
    } finally {
      await fh.close();
    }
    const got = await fs.readFile(dest);
    expect(got.subarray(0, 1 << 20).every((b) => b === 0)).toBe(true);
    expect(got.subarray(1 << 20, 2 << 20).equals(raw)).toBe(true);
    expect(got.subarray(2 << 20).equals(text)).toBe(true);
  });

  const bad: [string, () => Promise<{ file: string; id: string }>, RegExp | string][] = [
    ['a flipped byte', async () => {
      const b = randomBytes(4096);
      const id = sha(b);
      b[100] ^= 1;
      return { file: await storedChunk(CHUNK_RAW, b), id };
    }, /^content hash is [0-9a-f]{16}…, not its id$/],
    ['an unknown header', async () => {
      const b = randomBytes(4096);
      return { file: await storedChunk(9, b), id: sha(b) };
    }, 'unknown header byte 9'],
    ['an empty file', async () => {
      const f = path.join(work, 'empty');
      await fs.writeFile(f, '');
      return { file: f, id: sha(Buffer.alloc(1)) };
    }, 'empty chunk file'],
    ['deflate garbage', async () => ({ file: await storedChunk(CHUNK_DEFLATE, randomBytes(4096)), id: sha(Buffer.alloc(1)) }), /^does not inflate/],
    ['a file larger than a chunk can be', async () => {
      const b = randomBytes(8192);
      return { file: await storedChunk(CHUNK_RAW, b), id: sha(b) };
    }, /^cannot be read \(chunk file is more than/],
  ];
  it.each(bad)('%s: refused with a reason, and nothing written', async (_name, make, reason) => {
    const { file, id } = await make();
    const dest = path.join(work, 'dest-bad');
    const fh = await fs.open(dest, 'w+');
    try {
      const r = await hasher.restoreChunk({ file, id, max: 4096, fd: fh.fd, offset: 0, len: 4096 });
      expect(r.reason).toMatch(reason);
      expect(r.bytes).toBeUndefined();
    } finally {
      await fh.close();
    }
    expect((await fs.stat(dest)).size).toBe(0);
  });

  it('does not write a sound chunk of another length than the file needs there', async () => {
    const b = randomBytes(4000);
    const dest = path.join(work, 'dest-short');
    const fh = await fs.open(dest, 'w+');
    try {
      expect(await hasher.restoreChunk({ file: await storedChunk(CHUNK_RAW, b), id: sha(b), max: 4096, fd: fh.fd, offset: 0, len: 4096 })).toEqual({ wrongLength: 4000 });
    } finally {
      await fh.close();
    }
    expect((await fs.stat(dest)).size).toBe(0);
  });

  it('answers missing for an absent chunk file', async () => {
    expect(await hasher.restoreChunk({ file: path.join(work, 'nope'), id: sha(Buffer.alloc(1)), max: 4096 })).toEqual({ missing: true });
  });
});

describe('SlabPool', () => {
  it('lends at most max buffers and hands a returned one to the first waiter', async () => {
    const pool = new SlabPool(1024, 2);
    const a = await pool.take();
    const b = await pool.take();
    expect(a.buffer).toBeInstanceOf(SharedArrayBuffer);
    let third: Buffer | undefined;
    const waiting = pool.take().then((x) => (third = x));
    await Promise.resolve();
    expect(third).toBeUndefined();
    pool.give(b);
    await waiting;
    expect(third).toBe(b);
    expect(a).not.toBe(b);
  });
});
