import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalizeResourceList } from '../resources/resource-list';
import { decodeBody } from './http';
import { rawNumberTexts } from './json-number-text';

const req = (type = 'application/json') => ({ headers: { 'content-type': type } }) as unknown as IncomingMessage;
const decode = (text: string, type?: string) => decodeBody(req(type), Buffer.from(text), { patch: type !== undefined }) as Record<string, any>;

describe('a quantity sent as a JSON number is read from its text (upstream Quantity.UnmarshalJSON)', () => {
  // Upstream parses the number's bytes: ParseQuantity("1e3") keeps "1e3" (and "1E3" as written,
  // its canonical-form cache); JavaScript would read 1000 ("1k") and 1.2345678901234568e+29.
  it.each([
    { json: '1e3', want: '1e3' },
    { json: '1.5', want: '1500m' },
    { json: '100', want: '100' },
    { json: '0.1', want: '100m' },
    { json: '1E3', want: '1E3' },
    { json: '-1', want: '-1' },
    { json: '123456789012345678901234567890', want: '123456789012345678901234567890' },
    { json: '1e-3', want: '1e-3' },
    { json: '2.5e+3', want: '2500' },
  ])('$json -> $want', ({ json, want }) => {
    const body = decode(`{"kind":"PersistentVolume","spec":{"capacity":{"storage":${json}}}}`);
    canonicalizeResourceList(body.spec.capacity);
    expect(body.spec.capacity.storage).toBe(want);
  });

  it('at every quantity path of the served kinds, and nowhere else', () => {
    const body = decode(
      '{"spec":{"resources":{"requests":{"storage":1e3},"limits":{"storage":2e3}},"hard":{"requests.storage":3e3},"replicas":1e3},' +
        '"status":{"capacity":{"storage":4e3},"allocatedResources":{"storage":5e3},"allocatable":{"cpu":6e3},"used":{"x":7e3},"restoreSize":8e3},' +
        '"capacity":9e3,"maximumVolumeSize":1e4,"metadata":{"generation":1e3}}',
    );
    expect(body.spec.resources).toEqual({ requests: { storage: '1e3' }, limits: { storage: '2e3' } });
    expect(body.spec.hard).toEqual({ 'requests.storage': '3e3' });
    expect(body.status).toEqual({ capacity: { storage: '4e3' }, allocatedResources: { storage: '5e3' }, allocatable: { cpu: '6e3' }, used: { x: '7e3' }, restoreSize: '8e3' });
    expect([body.capacity, body.maximumVolumeSize]).toEqual(['9e3', '1e4']);
    // Not quantities: numbers as JSON.parse gives them.
    expect([body.spec.replicas, body.metadata.generation]).toEqual([1000, 1000]);
  });

  it('in a JSON patch, a value put at a quantity path (or holding one)', () => {
    const ops = decode(
      '[{"op":"replace","path":"/spec/capacity/storage","value":1e3},{"op":"add","path":"/spec/capacity","value":{"storage":2E3}},{"op":"add","path":"/spec/x","value":3e3}]',
      'application/json-patch+json',
    ) as unknown as { value: unknown }[];
    expect(ops.map((o) => o.value)).toEqual(['1e3', { storage: '2E3' }, 3000]);
  });

  it('strings that look like JSON, escaped keys, duplicates (the last wins, as JSON.parse)', () => {
    const body = decode(
      '{"metadata":{"annotations":{"a\\"b":"\\"storage\\":5e5, [{","c\\\\":"1e3"}},"spec":{"capacity":{"st\\u006frage":1e3,"other":7,"other":2e3}}}',
    );
    expect(body.metadata.annotations).toEqual({ 'a"b': '"storage":5e5, [{', 'c\\': '1e3' });
    expect(body.spec.capacity).toEqual({ storage: '1e3', other: '2e3' });
    // A "__proto__" key is still refused (as any body's), never made a prototype.
    expect(() => decode('{"spec":{"capacity":{"__proto__":4e3}}}')).toThrow(/"__proto__" may not be used as a key/);
  });

  it('hostile bodies: deep nesting is refused as before; a number of 200,000 digits (infinite to JavaScript) stays exact and fast', () => {
    const deep = `{"spec":{"capacity":{"storage":1e3}},"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(() => decode(deep)).toThrow(/refused|not valid JSON/);
    const digits = `1${'0'.repeat(200_000)}`;
    const t0 = Date.now();
    const body = decode(`{"spec":{"capacity":{"storage":${digits}}}}`);
    expect(body.spec.capacity.storage).toBe(digits);
    canonicalizeResourceList(body.spec.capacity);
    expect(body.spec.capacity.storage).toBe(`1${'0'.repeat(199_982)}E`); // exa, the largest suffix
    expect(Date.now() - t0).toBeLessThan(3_000);
  });

  it('the scan is iterative: a million levels of nesting do not overflow the stack', () => {
    const text = `{"a":${'['.repeat(1_000_000)}1e3${']'.repeat(1_000_000)},"spec":{"capacity":{"storage":1e3}}}`;
    const got = rawNumberTexts(text, new Set([JSON.stringify(['spec', 'capacity', 'storage'])]));
    expect([...got.values()]).toEqual(['1e3']);
  });

  it('property: any JSON around a number at a quantity path decodes as JSON.parse does, but for that number, which keeps its text', () => {
    const numberText = fc
      .tuple(fc.boolean(), fc.stringMatching(/^(0|[1-9][0-9]{0,40})$/), fc.option(fc.stringMatching(/^[0-9]{1,12}$/)), fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 400 }))))
      .map(([neg, whole, frac, exp]) => `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}${exp ? `${exp[0]}${exp[1]}${exp[2]}` : ''}`);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 4 }), numberText, (before, after, n) => {
        const text = `{"a":${JSON.stringify(before)},"spec":{"capacity":{"storage":${n}},"x":${JSON.stringify(after)}}}`;
        let body: Record<string, unknown>;
        try {
          body = decode(text);
        } catch {
          return; // refused as before (a number elsewhere JavaScript finds infinite, a "__proto__" key)
        }
        const expected = JSON.parse(text) as { spec: { capacity: { storage: unknown } } };
        expected.spec.capacity.storage = n;
        expect(body).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
