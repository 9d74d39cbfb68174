// The replication transfer's wire protocol, as pure rules (no I/O). Over one TLS-PSK
// connection (listener.ts) the sender writes one header line, the receiver answers one
// line, then the sender streams `btrfs send` output in frames and the receiver answers a
// last line once `btrfs receive` is over:
//
//   sender   {"v":1,"pvName":…,"seq":N,"parentSeq":M|null,"epoch":E}\n
//   receiver OK\n                      or   NO <reason>\n (then closes)
//   sender   frames: <u32 big-endian length><bytes> …, then a frame of length 0 (the end)
//   receiver DONE <bytes received>\n   or   ERR <reason>\n
//
// Frames, not a half-closed socket, mark the end: a sender that dies mid-stream leaves a
// stream without its end frame, which the receiver never takes for a complete one.
import { Transform, type TransformCallback } from 'node:stream';

export const PROTOCOL_VERSION = 1;
/** The longest line either side sends or reads (a header, a reason). */
export const MAX_LINE_BYTES = 1024;
/** The largest frame a receiver accepts (btrfs send writes far smaller pieces). */
export const MAX_FRAME_BYTES = 4 << 20;

export interface TransferHeader {
  pvName: string;
  seq: number;
  /** The snapshot the stream is based on (an incremental send), or null (a full one). */
  parentSeq: number | null;
  epoch: number;
}

export const encodeHeader = (h: TransferHeader) => `${JSON.stringify({ v: PROTOCOL_VERSION, pvName: h.pvName, seq: h.seq, parentSeq: h.parentSeq, epoch: h.epoch })}\n`;

const isCount = (v: unknown, min: number) => typeof v === 'number' && Number.isSafeInteger(v) && v >= min;

/** A header line as the receiver reads it; the reason when it is not one. */
export function parseHeader(line: string): { ok: true; header: TransferHeader } | { ok: false; reason: string } {
  if (Buffer.byteLength(line) > MAX_LINE_BYTES) return { ok: false, reason: 'header too long' };
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'header is not JSON' };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return { ok: false, reason: 'header is not an object' };
  const o = v as Record<string, unknown>;
  if (o.v !== PROTOCOL_VERSION) return { ok: false, reason: `protocol version ${JSON.stringify(o.v)} is not ${PROTOCOL_VERSION}` };
  if (typeof o.pvName !== 'string' || o.pvName.length < 1 || o.pvName.length > 253) return { ok: false, reason: 'header pvName is missing or too long' };
  if (!isCount(o.seq, 1)) return { ok: false, reason: 'header seq is not a positive integer' };
  if (o.parentSeq !== null && !isCount(o.parentSeq, 1)) return { ok: false, reason: 'header parentSeq is neither null nor a positive integer' };
  if (!isCount(o.epoch, 0)) return { ok: false, reason: 'header epoch is not a non-negative integer' };
  return { ok: true, header: { pvName: o.pvName, seq: o.seq as number, parentSeq: o.parentSeq as number | null, epoch: o.epoch as number } };
}

/** Why a sender's header does not match the receive job (undefined: it matches). */
export function headerMismatch(got: TransferHeader, want: TransferHeader): string | undefined {
  if (got.pvName !== want.pvName) return `volume ${got.pvName} is not ${want.pvName}`;
  if (got.seq !== want.seq) return `snapshot ${got.seq} is not ${want.seq}`;
  if (got.parentSeq !== want.parentSeq) return `parent ${got.parentSeq ?? 'none'} is not ${want.parentSeq ?? 'none'}`;
  if (got.epoch !== want.epoch) return `epoch ${got.epoch} is not ${want.epoch}`;
  return undefined;
}

/** The error a stopped transfer ends with (the data job runner reports it as stopped, retryable). */
export function abortError(): Error {
  const e = new Error('the transfer was stopped');
  e.name = 'AbortError';
  return e;
}

/** A one-line reason: no line breaks, bounded. */
export const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ').slice(0, MAX_LINE_BYTES - 8);

/** The receiver's answer lines as the sender reads them. */
export type Answer = { kind: 'ok' } | { kind: 'no'; reason: string } | { kind: 'done'; bytes: bigint } | { kind: 'err'; reason: string } | { kind: 'bad'; line: string };

export function parseAnswer(line: string): Answer {
  if (line === 'OK') return { kind: 'ok' };
  const m = /^(NO|ERR|DONE) ?(.*)$/s.exec(line);
  if (m?.[1] === 'NO') return { kind: 'no', reason: m[2] };
  if (m?.[1] === 'ERR') return { kind: 'err', reason: m[2] };
  if (m?.[1] === 'DONE' && /^\d{1,20}$/.test(m[2])) return { kind: 'done', bytes: BigInt(m[2]) };
  return { kind: 'bad', line: oneLine(line).slice(0, 100) };
}

/**
 * Each stage between the child's pipe and the socket holds up to this much (each side), so
 * btrfs, the cipher and the network work at once rather than in turns (the default 16 KiB
 * is less than one of the child's 64 KiB reads: every chunk waited for a drain).
 */
const STAGE_BUFFER = { readableHighWaterMark: 4 << 20, writableHighWaterMark: 4 << 20 };

/** Wraps every chunk in a frame (one buffer per frame: one TLS record run, not two); the end of the input becomes the end frame. */
export class Framer extends Transform {
  /** Payload bytes framed so far. */
  bytes = 0n;
  constructor() {
    super(STAGE_BUFFER);
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    for (let at = 0; at < chunk.length; at += MAX_FRAME_BYTES) {
      const part = chunk.subarray(at, at + MAX_FRAME_BYTES);
      const frame = Buffer.allocUnsafe(4 + part.length);
      frame.writeUInt32BE(part.length, 0);
      part.copy(frame, 4);
      this.push(frame);
      this.bytes += BigInt(part.length);
    }
    cb();
  }
  override _flush(cb: TransformCallback): void {
    this.push(Buffer.alloc(4));
    cb();
  }
}

/**
 * Takes frames apart: the payload goes on, the end frame ends the output (and `complete`
 * becomes true); input after the end frame, a frame too large, or input that ends before
 * the end frame is an error.
 */
export class Unframer extends Transform {
  bytes = 0n;
  complete = false;
  constructor() {
    super(STAGE_BUFFER);
  }
  /** Input not yet taken apart (kept as pieces: no copy until a frame is whole). */
  private pieces: Buffer[] = [];
  private held = 0;
  /** The length of the frame being read, or -1 while its length is. */
  private want = -1;

  /** Takes n bytes off the front of the held input (n <= held). */
  private takeBytes(n: number): Buffer {
    const first = this.pieces[0];
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.pieces.shift();
      else this.pieces[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let at = 0;
      while (at < n) {
        const p = this.pieces[0];
        const k = Math.min(p.length, n - at);
        p.copy(out, at, 0, k);
        at += k;
        if (k === p.length) this.pieces.shift();
        else this.pieces[0] = p.subarray(k);
      }
    }
    this.held -= n;
    return out;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    if (this.complete) return cb(chunk.length ? new Error('data after the end of the stream') : null);
    if (chunk.length) {
      this.pieces.push(chunk);
      this.held += chunk.length;
    }
    for (;;) {
      if (this.want < 0) {
        if (this.held < 4) break;
        this.want = this.takeBytes(4).readUInt32BE(0);
        if (this.want > MAX_FRAME_BYTES) return cb(new Error(`a frame of ${this.want} bytes is larger than ${MAX_FRAME_BYTES}`));
        if (this.want === 0) {
          this.complete = true;
          if (this.held) return cb(new Error('data after the end of the stream'));
          this.push(null);
          return cb();
        }
      }
      if (this.held < this.want) break;
      const payload = this.takeBytes(this.want);
      this.want = -1;
      this.bytes += BigInt(payload.length);
      this.push(payload);
    }
    cb();
  }

  override _flush(cb: TransformCallback): void {
    cb(this.complete ? null : new Error('the stream ended before its end (the sender stopped)'));
  }
}

/** host:port (IPv6 in brackets) split; undefined when it is not one. */
export function parseHostPort(s: string): { host: string; port: number } | undefined {
  if (s.length > 300) return undefined;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(s);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  return { host: m[1] ?? m[2], port };
}

/** host:port for a host and port (IPv6 in brackets). */
export const formatHostPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);
