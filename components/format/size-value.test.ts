import { describe, expect, it } from 'vitest';
import { humanBytes } from '@/server/domain/human-size';
import { parseQuantity, quantityToBytes } from '@/server/domain/quantity';
import { bytesOfValue, quantityOfValue, readSizeText, valueOfBytes, valueOfQuantity, valueProblem, type SizeValue } from './size-value';

const GI = 1n << 30n;

describe('the quantity a value asks for', () => {
  it.each([
    { size: '10', unit: 'Gi', want: '10Gi' },
    { size: '1.5', unit: 'Gi', want: '1536Mi' },
    { size: '1024', unit: 'Mi', want: '1Gi' },
    { size: '500', unit: 'M', want: '500M' },
    { size: '1.5', unit: 'T', want: '1500G' },
    { size: '2.', unit: 'Ti', want: '2Ti' },
    { size: '.5', unit: 'Gi', want: '512Mi' },
    { size: '0', unit: 'Gi', want: '0' },
    { size: '', unit: 'Gi', want: '' },
    { size: '-1', unit: 'Gi', want: '' },
    { size: '10Gi', unit: 'Gi', want: '' },
    { size: '1e3', unit: 'Gi', want: '' },
    { size: '9'.repeat(40), unit: 'Ti', want: '' },
  ] as { size: string; unit: SizeValue['unit']; want: string }[])('"$size" $unit asks for "$want"', (v) => {
    expect(quantityOfValue(v)).toBe(v.want);
  });

  it('a fraction of a byte rounds up', () => expect(bytesOfValue({ size: '0.1', unit: 'Gi' })).toBe(107374183n));
});

describe('text typed or pasted into the amount', () => {
  it.each([
    { text: '500', unit: 'Gi', want: { size: '500', unit: 'Gi' } },
    { text: ' 2.5 ', unit: 'Ti', want: { size: '2.5', unit: 'Ti' } },
    { text: '10Gi', unit: 'Mi', want: { size: '10', unit: 'Gi' } },
    { text: '1.5Ti', unit: 'Gi', want: { size: '1.5', unit: 'Ti' } },
    { text: '500M', unit: 'Gi', want: { size: '500', unit: 'M' } },
    { text: '2 GiB', unit: 'Mi', want: { size: '2', unit: 'Gi' } },
    { text: '20GB', unit: 'Mi', want: { size: '20', unit: 'G' } },
    { text: '3 gi', unit: 'Mi', want: { size: '3', unit: 'Gi' } },
    { text: '2048Ki', unit: 'Gi', want: { size: '2', unit: 'Mi' } },
    { text: '1Pi', unit: 'Gi', want: { size: '1024', unit: 'Ti' } },
    { text: '1e9', unit: 'Gi', want: { size: '1', unit: 'G' } },
    { text: '500m', unit: 'Gi', want: undefined },
    { text: '-5Gi', unit: 'Gi', want: undefined },
    { text: 'ten', unit: 'Gi', want: undefined },
    { text: '', unit: 'Gi', want: undefined },
    { text: '1'.repeat(60), unit: 'Gi', want: undefined },
  ] as { text: string; unit: SizeValue['unit']; want: SizeValue | undefined }[])('"$text" with unit $unit reads as $want', ({ text, unit, want }) => {
    expect(readSizeText(text, unit)).toEqual(want);
  });
});

describe('the value that shows a size exactly', () => {
  it.each([
    { bytes: 10n * GI, decimal: false, want: { size: '10', unit: 'Gi' } },
    { bytes: 1536n << 20n, decimal: false, want: { size: '1.5', unit: 'Gi' } },
    { bytes: 1n << 40n, decimal: false, want: { size: '1', unit: 'Ti' } },
    { bytes: (1n << 20n) * 3n + (1n << 19n), decimal: false, want: { size: '3.5', unit: 'Mi' } },
    { bytes: 500n * 10n ** 6n, decimal: true, want: { size: '500', unit: 'M' } },
    { bytes: 500n * 10n ** 6n, decimal: false, want: { size: '500', unit: 'M' } },
    { bytes: 1500n, decimal: false, want: { size: '0.0015', unit: 'M' } },
    { bytes: 0n, decimal: false, want: { size: '0', unit: 'Gi' } },
  ])('$bytes bytes (decimal first: $decimal) is $want', ({ bytes, decimal, want }) => {
    expect(valueOfBytes(bytes, decimal)).toEqual(want);
  });

  it.each([
    { q: '10Gi', want: { size: '10', unit: 'Gi' } },
    { q: '206336Mi', want: { size: '201.5', unit: 'Gi' } },
    { q: '2T', want: { size: '2', unit: 'T' } },
    { q: 'nonsense', want: undefined },
    { q: '-1Gi', want: undefined },
  ])('quantity $q is $want', ({ q, want }) => expect(valueOfQuantity(q)).toEqual(want));

  it('every quantity shown as a value asks for the same bytes', () => {
    for (const q of ['1Gi', '1536Mi', '3Ti', '500M', '1500', '7G', '123456789', '1025Ki']) {
      expect(bytesOfValue(valueOfQuantity(q)!), q).toBe(quantityToBytes(parseQuantity(q)!));
    }
  });
});

describe('problems in human units', () => {
  it.each([
    { v: { size: '', unit: 'Gi' }, want: 'Enter a size' },
    { v: { size: 'abc', unit: 'Gi' }, want: '"abc" is not a number' },
    { v: { size: '0', unit: 'Gi' }, want: 'Enter a size above zero' },
    { v: { size: '1', unit: 'Mi' }, want: 'At least 300 MiB' },
    { v: { size: '2', unit: 'Ti' }, want: 'At most 1 TiB' },
    { v: { size: '10', unit: 'Gi' }, want: undefined },
  ] as { v: SizeValue; want: string | undefined }[])('$v.size $v.unit: $want', ({ v, want }) => {
    expect(valueProblem(v, { min: 300n << 20n, max: 1n << 40n, human: humanBytes })).toBe(want);
  });
});
