import { describe, expect, it } from 'vitest';
import { decodeKubeProtobuf } from './protobuf-decode';

// A minimal encoder for the test: length-delimited fields and varints only.
function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}
const ld = (field: number, b: Buffer | string) => {
  const body = typeof b === 'string' ? Buffer.from(b) : b;
  return Buffer.concat([varint(field * 8 + 2), varint(body.length), body]);
};
const vi = (field: number, n: number) => Buffer.concat([varint(field * 8), varint(n)]);
const msg = (...parts: Buffer[]) => Buffer.concat(parts);
const entry = (field: number, k: string, v: Buffer | string) => ld(field, msg(ld(1, k), ld(2, v)));
const envelope = (apiVersion: string, kind: string, raw: Buffer) =>
  Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0]), ld(1, msg(ld(1, apiVersion), ld(2, kind))), ld(2, raw)]);

describe('decodeKubeProtobuf', () => {
  it('a Namespace as kubectl create namespace sends it', () => {
    const meta = msg(ld(1, 'team-x'), entry(11, 'env', 'prod'), entry(11, '__proto__', 'data'), ld(14, 'a'), ld(14, 'b'));
    const o = decodeKubeProtobuf(envelope('v1', 'Namespace', msg(ld(1, meta), ld(2, Buffer.alloc(0)))));
    expect(o).toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-x', labels: JSON.parse('{"env":"prod","__proto__":"data"}'), finalizers: ['a', 'b'] }, spec: {} });
    expect(Object.getPrototypeOf((o.metadata as { labels: object }).labels)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).data).toBeUndefined();
  });

  it('a Secret keeps its bytes as base64 and its type', () => {
    const o = decodeKubeProtobuf(envelope('v1', 'Secret', msg(ld(1, ld(1, 's')), entry(2, 'password', Buffer.from([0, 255, 1])), ld(3, 'Opaque'))));
    expect(o).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { password: Buffer.from([0, 255, 1]).toString('base64') }, type: 'Opaque' });
  });

  it('a SelfSubjectAccessReview as kubectl auth can-i sends it', () => {
    const attrs = msg(ld(1, 'team-a'), ld(2, 'create'), ld(5, 'persistentvolumeclaims'));
    const o = decodeKubeProtobuf(envelope('authorization.k8s.io/v1', 'SelfSubjectAccessReview', msg(ld(1, Buffer.alloc(0)), ld(2, ld(1, attrs)))));
    expect(o.spec).toEqual({ resourceAttributes: { namespace: 'team-a', verb: 'create', resource: 'persistentvolumeclaims' } });
  });

  it('skips unknown fields and reads booleans and integers', () => {
    const o = decodeKubeProtobuf(envelope('v1', 'ConfigMap', msg(ld(1, msg(ld(1, 'c'), vi(7, 3))), ld(99, 'ignored'), vi(4, 1))));
    expect(o).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', generation: 3 }, immutable: true });
  });

  it.each([
    { what: 'no magic', body: Buffer.from('{}'), error: /magic/ },
    { what: 'a truncated field', body: Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0]), Buffer.from([0x0a, 0x7f, 0x01])]), error: /truncated/ },
    { what: 'a kind not accepted as protobuf', body: envelope('v1', 'PersistentVolume', Buffer.alloc(0)), error: /send v1\/PersistentVolume as application\/json/ },
    { what: 'a kind named like an Object.prototype key', body: envelope('v1', 'constructor', Buffer.alloc(0)), error: /protobuf bodies are accepted/ },
    { what: 'invalid UTF-8 in a name', body: envelope('v1', 'Namespace', ld(1, ld(1, Buffer.from([0xff, 0xfe])))), error: /UTF-8/ },
  ])('refuses $what', ({ body, error }) => {
    expect(() => decodeKubeProtobuf(body)).toThrow(error);
  });
});
