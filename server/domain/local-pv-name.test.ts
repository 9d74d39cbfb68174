import { describe, expect, it } from 'vitest';
import { isDNS1123Subdomain } from './names';
import { fnv1a32, localPvName } from './local-pv-name';

const enc = (s: string) => new TextEncoder().encode(s);

describe('fnv1a32 (published FNV-1a test vectors)', () => {
  it.each([
    { input: '', hex: '811c9dc5' },
    { input: 'a', hex: 'e40c292c' },
    { input: 'foobar', hex: 'bf9cf968' },
  ])('"$input" -> $hex', ({ input, hex }) => {
    expect(fnv1a32(enc(input)).toString(16)).toBe(hex);
  });
});

describe('localPvName', () => {
  it.each([
    // Hashing file, then node, then class is the same as hashing their concatenation.
    { node: 'node-1', cls: 'fast', entry: 'disk1', expected: `local-pv-${fnv1a32(enc('disk1node-1fast')).toString(16)}` },
    { node: 'n', cls: 'c', entry: 'e', expected: `local-pv-${fnv1a32(enc('enc')).toString(16)}` },
    { node: 'nœud', cls: 'local', entry: 'vol', expected: `local-pv-${fnv1a32(enc('volnœudlocal')).toString(16)}` },
  ])('$node/$cls/$entry -> $expected', ({ node, cls, entry, expected }) => {
    expect(localPvName(node, cls, entry)).toBe(expected);
  });

  it.each([
    { name: 'node differs by one character', a: ['node-1', 'fast', 'disk1'], b: ['node-2', 'fast', 'disk1'] },
    { name: 'class differs', a: ['node-1', 'fast', 'disk1'], b: ['node-1', 'slow', 'disk1'] },
    { name: 'entry differs by one character', a: ['node-1', 'fast', 'disk1'], b: ['node-1', 'fast', 'disk2'] },
    { name: 'node and class swapped', a: ['fast', 'node-1', 'disk1'], b: ['node-1', 'fast', 'disk1'] },
    { name: 'entry case', a: ['node-1', 'fast', 'Disk1'], b: ['node-1', 'fast', 'disk1'] },
  ])('similar inputs differ: $name', ({ a, b }) => {
    expect(localPvName(a[0], a[1], a[2])).not.toBe(localPvName(b[0], b[1], b[2]));
  });

  it('a shift between entry and node collides (upstream concatenation, documented)', () => {
    expect(localPvName('c-node', 'fast', 'ab')).toBe(localPvName('bc-node', 'fast', 'a'));
  });

  it('is deterministic and a valid DNS-1123 subdomain for 2,000 distinct disks, without collisions', () => {
    const names = new Set<string>();
    for (let n = 0; n < 20; n++) {
      for (let d = 0; d < 100; d++) {
        const name = localPvName(`worker-${n}`, 'local-ssd', `disk-${d}`);
        expect(isDNS1123Subdomain(name)).toEqual([]);
        expect(name).toMatch(/^local-pv-[0-9a-f]{1,8}$/);
        expect(localPvName(`worker-${n}`, 'local-ssd', `disk-${d}`)).toBe(name);
        names.add(name);
      }
    }
    expect(names.size).toBe(2000);
  });
});
