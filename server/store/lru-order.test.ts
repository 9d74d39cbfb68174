import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LruOrder } from './lru-order';

/** The order kept by an array: the model. */
function model(ops: { op: 'use' | 'delete'; key: string }[]): string[] {
  const order: string[] = [];
  for (const { op, key } of ops) {
    const i = order.indexOf(key);
    if (i >= 0) order.splice(i, 1);
    if (op === 'use') order.push(key);
  }
  return order;
}

/** Every key, oldest first, by taking the oldest out one at a time. */
function drain(l: LruOrder): string[] {
  const out: string[] = [];
  for (let k = l.oldest(); k !== undefined; k = l.oldest()) {
    out.push(k);
    l.delete(k);
  }
  return out;
}

describe('LruOrder', () => {
  it.each([
    { ops: [], order: [] },
    { ops: [['use', 'a']], order: ['a'] },
    { ops: [['use', 'a'], ['use', 'b'], ['use', 'a']], order: ['b', 'a'] },
    { ops: [['use', 'a'], ['use', 'b'], ['use', 'c'], ['delete', 'b']], order: ['a', 'c'] },
    { ops: [['use', 'a'], ['delete', 'a'], ['delete', 'a'], ['use', 'a']], order: ['a'] },
    { ops: [['use', 'a'], ['use', 'b'], ['use', 'b']], order: ['a', 'b'] },
  ] as { ops: ['use' | 'delete', string][]; order: string[] }[])('$ops -> $order', ({ ops, order }) => {
    const l = new LruOrder();
    for (const [op, key] of ops) {
      if (op === 'use') l.use(key);
      else l.delete(key);
    }
    expect(l.size).toBe(order.length);
    expect(drain(l)).toEqual(order);
    expect(l.size).toBe(0);
  });

  it('keeps the order an array would, for any uses and deletions', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ op: fc.constantFrom<'use' | 'delete'>('use', 'use', 'delete'), key: fc.constantFrom('a', 'b', 'c', 'd', 'e', '__proto__') }), { maxLength: 60 }), (ops) => {
        const l = new LruOrder();
        for (const { op, key } of ops) {
          if (op === 'use') l.use(key);
          else l.delete(key);
        }
        expect(drain(l)).toEqual(model(ops));
      }),
    );
  });

  it('keeps the newest 200,000 of 400,000 keys used, taking the oldest out each time', () => {
    const l = new LruOrder();
    let taken = 0;
    for (let i = 0; i < 400_000; i++) {
      l.use(`k${i}`);
      if (l.size > 200_000) {
        l.delete(l.oldest()!);
        taken++;
      }
    }
    expect(taken).toBe(200_000);
    expect(l.oldest()).toBe('k200000');
  });
});
