// The protobuf wire format, both ways: a writer of varint and length-delimited fields and a
// reader of one message's fields. Used by the Kubernetes object codec (protobuf-codec.ts)
// and the gnostic OpenAPI v2 encoder (protobuf.ts). The reader refuses anything malformed
// with a 400, never a crash.
import { StowageError } from '../domain/errors';

export const malformedProtobuf = (message: string) => new StowageError('BadRequest', `the protobuf request body is malformed: ${message}`);

/** Accumulates one message: each field is a tag, then its varint or length-delimited value. */
export class Writer {
  private readonly parts: Buffer[] = [];
  /** Tags and varints, gathered until the next payload so they cost one Buffer together. */
  private pending: number[] = [];

  varint(n: number | bigint): this {
    if (typeof n === 'number' && n >= 0 && n <= 0x7fffffff) {
      let v = n;
      while (v > 0x7f) {
        this.pending.push((v & 0x7f) | 0x80);
        v >>>= 7;
      }
      this.pending.push(v);
      return this;
    }
    let v = BigInt.asUintN(64, typeof n === 'bigint' ? n : BigInt(n));
    while (v > 0x7fn) {
      this.pending.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.pending.push(Number(v));
    return this;
  }

  tag(field: number, wire: 0 | 2): this {
    return this.varint(field * 8 + wire);
  }

  private flush(): void {
    if (this.pending.length > 0) {
      this.parts.push(Buffer.from(this.pending));
      this.pending = [];
    }
  }

  bytes(field: number, b: Buffer): this {
    this.tag(field, 2).varint(b.length);
    this.flush();
    this.parts.push(b);
    return this;
  }

  /** A non-empty string (the OpenAPI document leaves empty ones out). */
  string(field: number, s: unknown): this {
    if (typeof s === 'string' && s !== '') this.bytes(field, Buffer.from(s, 'utf8'));
    return this;
  }

  strings(field: number, list: unknown): this {
    if (Array.isArray(list)) for (const s of list) this.bytes(field, Buffer.from(String(s), 'utf8'));
    return this;
  }

  /** `true` only (the OpenAPI document leaves false out). */
  bool(field: number, b: unknown): this {
    if (b === true) this.tag(field, 0).varint(1);
    return this;
  }

  message(field: number, m: Buffer | undefined): this {
    if (m !== undefined) this.bytes(field, m);
    return this;
  }

  done(): Buffer {
    this.flush();
    return this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
  }
}

export type WireValue = bigint | Buffer;

/** Reads one protobuf message's fields: [field number, value]; varints as bigint, length-delimited as Buffer. */
export function* readFields(buf: Buffer): Generator<[number, WireValue]> {
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw malformedProtobuf('truncated varint');
      const b = buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return BigInt.asUintN(64, result);
      shift += 7n;
      if (shift > 63n) throw malformedProtobuf('varint too long');
    }
  };
  while (pos < buf.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (field === 0) throw malformedProtobuf('field number 0');
    if (wire === 0) yield [field, varint()];
    else if (wire === 2) {
      const len = varint();
      if (len > BigInt(buf.length - pos)) throw malformedProtobuf('truncated field');
      const n = Number(len);
      yield [field, buf.subarray(pos, pos + n)];
      pos += n;
    } else if (wire === 1 || wire === 5) {
      pos += wire === 1 ? 8 : 4;
      if (pos > buf.length) throw malformedProtobuf('truncated fixed-width field');
    } else throw malformedProtobuf(`unsupported wire type ${wire}`);
  }
}
