// The transfer protocol's pure parts: headers parsed and checked against the receive job,
// answers read, frames made and taken apart (a stream without its end frame is never
// taken for a complete one), host:port read.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, test } from 'vitest';
import { encodeHeader, Framer, headerMismatch, MAX_FRAME_BYTES, parseAnswer, parseHeader, parseHostPort, Unframer, type TransferHeader } from './protocol';

const PV = 'pvc-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const want: TransferHeader = { pvName: PV, seq: 7, parentSeq: 6, epoch: 2 };

describe('parseHeader', () => {
  const rows: [string, string, string | TransferHeader][] = [
    ['an encoded header', encodeHeader(want).trimEnd(), want],
    ['a full send (no parent)', encodeHeader({ ...want, parentSeq: null }).trimEnd(), { ...want, parentSeq: null }],
    ['not JSON', 'hello', 'header is not JSON'],
    ['a JSON array', '[1]', 'header is not an object'],
    ['another protocol version', JSON.stringify({ ...want, v: 2 }), 'protocol version 2 is not 1'],
    ['no pvName', JSON.stringify({ v: 1, seq: 1, parentSeq: null, epoch: 0 }), 'header pvName is missing or too long'],
    ['seq 0', JSON.stringify({ v: 1, pvName: PV, seq: 0, parentSeq: null, epoch: 0 }), 'header seq is not a positive integer'],
    ['seq a string', JSON.stringify({ v: 1, pvName: PV, seq: '1', parentSeq: null, epoch: 0 }), 'header seq is not a positive integer'],
    ['parentSeq fractional', JSON.stringify({ v: 1, pvName: PV, seq: 2, parentSeq: 1.5, epoch: 0 }), 'header parentSeq is neither null nor a positive integer'],
    ['parentSeq missing', JSON.stringify({ v: 1, pvName: PV, seq: 2, epoch: 0 }), 'header parentSeq is neither null nor a positive integer'],
    ['epoch negative', JSON.stringify({ v: 1, pvName: PV, seq: 2, parentSeq: null, epoch: -1 }), 'header epoch is not a non-negative integer'],
    ['a line too long', JSON.stringify({ v: 1, pvName: 'x'.repeat(2000) }), 'header too long'],
  ];
  test.each(rows)('%s', (_n, line, out) => {
    const r = parseHeader(line);
    if (typeof out === 'string') expect(r).toEqual({ ok: false, reason: out });
    else expect(r).toEqual({ ok: true, header: out });
  });
});

describe('headerMismatch', () => {
  const rows: [string, Partial<TransferHeader>, string | undefined][] = [
    ['the same transfer', {}, undefined],
    ['another volume', { pvName: 'pvc-x' }, `volume pvc-x is not ${PV}`],
    ['another snapshot', { seq: 8 }, 'snapshot 8 is not 7'],
    ['a full stream for an incremental job', { parentSeq: null }, 'parent none is not 6'],
    ['another parent', { parentSeq: 5 }, 'parent 5 is not 6'],
    ['an older epoch', { epoch: 1 }, 'epoch 1 is not 2'],
  ];
  test.each(rows)('%s', (_n, over, out) => expect(headerMismatch({ ...want, ...over }, want)).toBe(out));
});

describe('parseAnswer', () => {
  const rows: [string, string, ReturnType<typeof parseAnswer>][] = [
    ['OK', 'OK', { kind: 'ok' }],
    ['a refusal', 'NO epoch 1 is not 2', { kind: 'no', reason: 'epoch 1 is not 2' }],
    ['done', 'DONE 12345', { kind: 'done', bytes: 12345n }],
    ['done without a count', 'DONE', { kind: 'bad', line: 'DONE' }],
    ['done with a bad count', 'DONE 12x', { kind: 'bad', line: 'DONE 12x' }],
    ['an error', 'ERR btrfs receive failed', { kind: 'err', reason: 'btrfs receive failed' }],
    ['anything else', 'HELLO', { kind: 'bad', line: 'HELLO' }],
  ];
  test.each(rows)('%s', (_n, line, out) => expect(parseAnswer(line)).toEqual(out));
});

describe('parseHostPort', () => {
  const rows: [string, string, { host: string; port: number } | undefined][] = [
    ['a name', 'node-b.example:7480', { host: 'node-b.example', port: 7480 }],
    ['IPv4', '10.0.0.2:0', { host: '10.0.0.2', port: 0 }],
    ['IPv6 in brackets', '[::1]:7480', { host: '::1', port: 7480 }],
    ['IPv6 without brackets', '::1:7480', undefined],
    ['a port too large', 'a:65536', undefined],
    ['no port', 'node-b', undefined],
    ['a path', 'a/b:1', undefined],
  ];
  test.each(rows)('%s', (_n, s, out) => expect(parseHostPort(s)).toEqual(out));
});

async function unframe(input: Buffer[]): Promise<{ out: Buffer; complete: boolean; error?: string }> {
  const u = new Unframer();
  const parts: Buffer[] = [];
  u.on('data', (b: Buffer) => parts.push(b));
  try {
    await pipeline(Readable.from(input), u);
    return { out: Buffer.concat(parts), complete: u.complete };
  } catch (e) {
    return { out: Buffer.concat(parts), complete: u.complete, error: (e as Error).message };
  }
}

async function frame(chunks: Buffer[]): Promise<Buffer> {
  const f = new Framer();
  const parts: Buffer[] = [];
  f.on('data', (b: Buffer) => parts.push(b));
  await pipeline(Readable.from(chunks), f);
  return Buffer.concat(parts);
}

describe('frames', () => {
  test('a framed stream comes out whole, however the bytes are split on the way', async () => {
    const payload = [Buffer.from('hello '), Buffer.alloc(70_000, 7), Buffer.from('world')];
    const framed = await frame(payload);
    for (const size of [1, 3, 4, 5, 1000, framed.length]) {
      const pieces: Buffer[] = [];
      for (let at = 0; at < framed.length; at += size) pieces.push(framed.subarray(at, at + size));
      const r = await unframe(pieces);
      expect(r.error).toBeUndefined();
      expect(r.complete).toBe(true);
      expect(r.out.equals(Buffer.concat(payload))).toBe(true);
    }
  });

  const header = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const rows: [string, () => Promise<Buffer[]>, string][] = [
    ['a stream cut before its end frame', async () => [(await frame([Buffer.from('abc')])).subarray(0, 7)], 'the stream ended before its end (the sender stopped)'],
    ['a stream cut in a frame', async () => [(await frame([Buffer.from('abcdef')])).subarray(0, 6)], 'the stream ended before its end (the sender stopped)'],
    ['a frame too large', async () => [header(MAX_FRAME_BYTES + 1)], `a frame of ${MAX_FRAME_BYTES + 1} bytes is larger than ${MAX_FRAME_BYTES}`],
    ['data after the end frame', async () => [Buffer.concat([await frame([Buffer.from('a')]), Buffer.from('x')])], 'data after the end of the stream'],
  ];
  test.each(rows)('%s is an error', async (_n, input, message) => {
    const r = await unframe(await input());
    expect(r.error).toBe(message);
  });

  test('an empty stream is one end frame', async () => {
    expect((await frame([])).equals(Buffer.alloc(4))).toBe(true);
    expect(await unframe([Buffer.alloc(4)])).toEqual({ out: Buffer.alloc(0), complete: true });
  });
});
