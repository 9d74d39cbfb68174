import { describe, expect, it } from 'vitest';
import { readFields, Writer } from './protobuf-wire';

describe('Writer', () => {
  it.each([
    { n: 0, bytes: [0x08, 0x00] },
    { n: 1, bytes: [0x08, 0x01] },
    { n: 150, bytes: [0x08, 0x96, 0x01] },
    { n: 2 ** 31 - 1, bytes: [0x08, 0xff, 0xff, 0xff, 0xff, 0x07] },
    { n: 2 ** 40, bytes: [0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20] },
    // Negative numbers are 64-bit two's complement: ten bytes.
    { n: -1, bytes: [0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01] },
  ])('varint $n', ({ n, bytes }) => {
    expect([...new Writer().tag(1, 0).varint(n).done()]).toEqual(bytes);
  });

  it('length-delimited fields, and what the reader gives back', () => {
    const b = new Writer().bytes(2, Buffer.from('hi')).tag(3, 0).varint(-2).done();
    expect([...b]).toEqual([0x12, 0x02, 0x68, 0x69, 0x18, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    const got = [...readFields(b)];
    expect(got[0]).toEqual([2, Buffer.from('hi')]);
    expect(BigInt.asIntN(64, got[1][1] as bigint)).toBe(-2n);
  });
});

describe('readFields refuses malformed input with a 400', () => {
  it.each([
    { what: 'a truncated varint', b: [0x08, 0x80] },
    { what: 'a varint over 64 bits', b: [0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01] },
    { what: 'field number 0', b: [0x00, 0x01] },
    { what: 'a length past the end', b: [0x12, 0x05, 0x61] },
    { what: 'a length beyond any buffer', b: [0x12, 0xff, 0xff, 0xff, 0xff, 0x0f] },
    { what: 'a truncated fixed64', b: [0x09, 0x01, 0x02] },
    { what: 'a group (wire type 3)', b: [0x0b] },
  ])('$what', ({ b }) => {
    expect(() => [...readFields(Buffer.from(b))]).toThrow(expect.objectContaining({ code: 'BadRequest' }));
  });

  it('skips fixed-width fields it does not use', () => {
    expect([...readFields(Buffer.from([0x0d, 1, 2, 3, 4, 0x10, 0x07]))]).toEqual([[2, 7n]]);
  });
});
