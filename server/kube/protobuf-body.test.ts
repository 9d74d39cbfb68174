import { describe, expect, test } from 'vitest';
import { decodeProtobufObject } from './protobuf-body';

// A tiny encoder for the test: length-delimited fields and varints.
const varint = (n: number): Buffer => {
  const b: number[] = [];
  while (n > 0x7f) {
    b.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  b.push(n);
  return Buffer.from(b);
};
const ld = (no: number, v: Buffer | string) => {
  const bytes = typeof v === 'string' ? Buffer.from(v) : v;
  return Buffer.concat([varint((no << 3) | 2), varint(bytes.length), bytes]);
};
const vi = (no: number, n: number) => Buffer.concat([varint(no << 3), varint(n)]);
const entry = (no: number, k: string, v: Buffer | string) => ld(no, Buffer.concat([ld(1, k), ld(2, v)]));
const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
  Buffer.concat([Buffer.from('k8s\0', 'binary'), ld(1, Buffer.concat([ld(1, apiVersion), ld(2, kind)])), ld(2, raw)]);

describe('decodeProtobufObject', () => {
  test('a Secret as `kubectl create secret generic` sends it', () => {
    const meta = Buffer.concat([ld(1, 'db-pass'), ld(3, 'team-a'), entry(11, 'app', 'db')]);
    const raw = Buffer.concat([ld(1, meta), entry(2, 'password', Buffer.from('s3cr3t')), ld(3, 'Opaque'), vi(5, 1), vi(99, 7)]);
    expect(decodeProtobufObject(envelope('v1', 'Secret', raw))).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db-pass', namespace: 'team-a', labels: { app: 'db' } },
      data: { password: Buffer.from('s3cr3t').toString('base64') },
      type: 'Opaque',
      immutable: true,
    });
  });

  test('a Namespace', () => {
    const raw = Buffer.concat([ld(1, ld(1, 'team-z')), ld(2, ld(1, 'kubernetes'))]);
    expect(decodeProtobufObject(envelope('v1', 'Namespace', raw))).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-z' },
      spec: { finalizers: ['kubernetes'] },
    });
  });

  test.each([
    { name: 'no envelope', body: Buffer.from('{"a":1}'), code: 'BadRequest' },
    { name: 'a length past the end', body: Buffer.concat([Buffer.from('k8s\0', 'binary'), varint((2 << 3) | 2), varint(1000), Buffer.from('x')]), code: 'BadRequest' },
    { name: 'a truncated varint', body: Buffer.concat([Buffer.from('k8s\0', 'binary'), Buffer.from([0x08, 0xff])]), code: 'BadRequest' },
    { name: 'an unsupported kind', body: envelope('v1', 'Pod', ld(1, ld(1, 'p'))), code: 'UnsupportedMediaType' },
    { name: 'a bad wire type', body: Buffer.concat([Buffer.from('k8s\0', 'binary'), Buffer.from([0x0f])]), code: 'BadRequest' },
  ])('$name is refused with $code', ({ body, code }) => {
    expect(() => decodeProtobufObject(body)).toThrow(expect.objectContaining({ code }));
  });
});
