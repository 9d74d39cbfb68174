import { describe, expect, test } from 'vitest';
import {
  type Quantity,
  type QuantityFormat,
  bytesToQuantity,
  canonicalQuantity,
  compareQuantities,
  formatQuantity,
  isNegative,
  isZero,
  parseQuantity,
  quantityErrors,
  quantityFromJSON,
  quantityToBytes,
  parseQuantityText,
} from './quantity';

/** The exact value as plain decimal text, e.g. "0.5" or "-1024". */
function decimal(q: Quantity): string {
  const negative = q.num < 0n;
  let digits = (negative ? -q.num : q.num).toString();
  if (q.scale > 0) {
    digits = digits.padStart(q.scale + 1, '0');
    digits = `${digits.slice(0, -q.scale)}.${digits.slice(-q.scale)}`.replace(/\.?0+$/, '');
  } else if (q.num !== 0n) {
    digits += '0'.repeat(-q.scale);
  }
  return negative && digits !== '0' ? `-${digits}` : digits;
}

const must = (s: string): Quantity => {
  const q = parseQuantity(s);
  if (!q) throw new Error(`cannot parse ${s}`);
  return q;
};

// Upstream TestQuantityParse: input, exact value, format.
const parsed: [string, string, QuantityFormat][] = [
  ['0', '0', 'DecimalSI'],
  ['0n', '0', 'DecimalSI'],
  ['0Ki', '0', 'BinarySI'],
  ['0T', '0', 'DecimalSI'],
  ['1', '1', 'DecimalSI'],
  ['1Ki', '1024', 'BinarySI'],
  ['7Mi', '7340032', 'BinarySI'],
  ['6Gi', '6442450944', 'BinarySI'],
  ['5Ti', '5497558138880', 'BinarySI'],
  ['4Pi', '4503599627370496', 'BinarySI'],
  ['3Ei', '3458764513820540928', 'BinarySI'],
  ['5n', '0.000000005', 'DecimalSI'],
  ['4u', '0.000004', 'DecimalSI'],
  ['3m', '0.003', 'DecimalSI'],
  ['50k', '50000', 'DecimalSI'],
  ['300T', '300000000000000', 'DecimalSI'],
  ['1E', '1000000000000000000', 'DecimalSI'],
  ['1E-3', '0.001', 'DecimalExponent'],
  ['1e3', '1000', 'DecimalExponent'],
  ['1E18', '1000000000000000000', 'DecimalExponent'],
  ['1e13', '10000000000000', 'DecimalExponent'],
  ['100.035k', '100035', 'DecimalSI'],
  ['0.0005k', '0.5', 'DecimalSI'],
  ['0.50000', '0.5', 'DecimalSI'],
  ['0.5e-2', '0.005', 'DecimalExponent'],
  ['1.3E+6', '1300000', 'DecimalExponent'],
  ['1.53E12', '1530000000000', 'DecimalExponent'],
  ['6.987654321G', '6987654321', 'DecimalSI'],
  ['1.01E', '1010000000000000000', 'DecimalSI'],
  ['3.001n', '0.000000004', 'DecimalSI'],
  ['1.1E-9', '0.000000002', 'DecimalExponent'],
  ['0.0000000001', '0.000000001', 'DecimalSI'],
  ['0.00000012345', '0.000000124', 'DecimalSI'],
  ['0.9n', '0.000000001', 'DecimalSI'],
  ['9Ei', '9223372036854775807', 'BinarySI'],
  ['9223372036854775807Ki', '9223372036854775807', 'BinarySI'],
  ['12E', '12000000000000000000', 'DecimalSI'],
  ['100.035Ki', '102435.84', 'BinarySI'],
  ['0.5Mi', '524288', 'BinarySI'],
  ['0.025Ti', '27487790694.4', 'BinarySI'],
  ['0.000000000001Ki', '0.000000002', 'DecimalSI'],
  ['.001', '0.001', 'DecimalSI'],
  ['1.', '1', 'DecimalSI'],
  ['1.G', '1000000000', 'DecimalSI'],
];

describe('parseQuantity', () => {
  test.each(parsed)('%s is %s (%s)', (input, value, format) => {
    const q = must(input);
    expect(decimal(q)).toBe(value);
    expect(q.format).toBe(format);
  });

  test.each(parsed)('-%s is minus %s', (input, value, format) => {
    const q = must(`-${input}`);
    expect(decimal(q)).toBe(value === '0' ? '0' : `-${value}`);
    expect(q.format).toBe(format);
  });

  test.each(parsed)('+%s is %s', (input, value) => {
    expect(decimal(must(`+${input}`))).toBe(value);
  });

  // Upstream TestQuantityParse's invalid inputs and a few more, each with upstream's error.
  test.each([
    ['', 'format'],
    ['1.1.M', 'format'],
    ['1+1.0M', 'format'],
    ['0.1mi', 'suffix'],
    ['0.1am', 'format'],
    ['aoeu', 'format'],
    ['.5i', 'suffix'],
    ['1i', 'suffix'],
    ['-3.01i', 'suffix'],
    ['-3.01e-', 'suffix'],
    [' 1', 'format'],
    ['1 ', 'format'],
    ['1K', 'suffix'],
    ['1e', 'suffix'],
    ['e-10', 'numeric'],
    ['1Ee3', 'suffix'],
    ['5 Gi', 'format'],
    ['10 gigs', 'format'],
    ['Pi', 'numeric'],
    ['Ei', 'numeric'],
  ] as const)('%j is not a quantity (%s error)', (input, error) => {
    expect(parseQuantity(input)).toBeUndefined();
    expect(parseQuantityText(input)).toEqual({ ok: false, error: quantityErrors[error] });
  });

  test('the error texts are upstream\'s', () => {
    expect(quantityErrors).toEqual({
      format: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      suffix: "unable to parse quantity's suffix",
      numeric: 'unable to parse numeric part of quantity',
    });
  });

  // Upstream's parser reads a numeral without digits as zero (its fast path never looks).
  test.each(['.', 'Ki', 'Gi', 'Ti', '+', '-', '+.', '-.Mi', 'e3', 'm'])('%j reads as zero, as upstream', (input) => {
    expect(canonicalQuantity(input)).toBe('0');
  });

  // Where Stowage is stricter than upstream: it truncates an exponent beyond int32.
  test.each(['1e999999999999', '1e2147483648', '1e-2147483649', '1e9223372036854775807'])('%j is refused (upstream truncates its exponent)', (input) => {
    expect(parseQuantity(input)).toBeUndefined();
  });

  test.each([
    ['0.', '0'],
    ['+0Gi', '0'],
    ['.5', '500m'],
    ['1e2147483', undefined],
  ])('%j at the edges of the numeral reads as %s', (input, canonical) => {
    expect(canonicalQuantity(input)).toBe(canonical);
  });

  test.each([
    [1000, '1k'],
    [1.5, '1500m'],
    [0, '0'],
    [-2, '-2'],
    [1e21, '1e+21'], // String(1e21) is "1e+21", echoed as upstream echoes it
  ])('number %d reads as %s', (input, canonical) => {
    expect(canonicalQuantity(input)).toBe(canonical);
  });

  test.each([Number.NaN, Number.POSITIVE_INFINITY])('number %d is not a quantity', (input) => {
    expect(parseQuantity(input)).toBeUndefined();
  });

  test.each([
    [' 1', '1'],
    ['1 ', '1'],
    [' -1', '-1'],
    [10, '10'],
  ])('JSON value %j reads as %s', (input, canonical) => {
    expect(formatQuantity(quantityFromJSON(input)!)).toBe(canonical);
  });

  test('equal values have equal representations', () => {
    expect(must('1k')).toEqual(must('1000'));
    expect(must('1.50')).toEqual({ num: 15n, scale: 1, format: 'DecimalSI' });
  });
});

// Every row of upstream TestQuantityParse: the text it reads back (String()), and whether
// that is the input echoed (upstream keeps text its fast path finds canonical). With a
// leading "-" the echoed text keeps the sign; with "+" only echoed text keeps it.
const readBack: [string, string, boolean][] = [
  ['0', '0', false], ['0n', '0', false], ['0u', '0', false], ['0m', '0', false], ['0Ki', '0', false], ['0k', '0', false],
  ['0Mi', '0', false], ['0M', '0', false], ['0Gi', '0', false], ['0G', '0', false], ['0Ti', '0', false], ['0T', '0', false],
  ['1', '1', true],
  ['1Ki', '1Ki', true], ['8Ki', '8Ki', false], ['7Mi', '7Mi', true], ['6Gi', '6Gi', true], ['5Ti', '5Ti', true],
  ['4Pi', '4Pi', false], ['3Ei', '3Ei', false], ['10Ti', '10Ti', true], ['100Ti', '100Ti', false],
  ['5n', '5n', true], ['4u', '4u', true], ['3m', '3m', true], ['9', '9', true], ['8k', '8k', true], ['50k', '50k', true],
  ['7M', '7M', true], ['6G', '6G', true], ['5T', '5T', true], ['40T', '40T', true], ['300T', '300T', true], ['2P', '2P', true], ['1E', '1E', true],
  ['1E-3', '1E-3', true], ['1e3', '1e3', true], ['1E6', '1E6', true], ['1e9', '1e9', true], ['1E12', '1E12', true], ['1e15', '1e15', true], ['1E18', '1E18', true],
  ['1e14', '100e12', false], ['1e13', '10e12', false], ['100.035k', '100.035k', true],
  ['0.001', '1m', false], ['0.0005k', '500m', false], ['0.005', '5m', false], ['0.05', '50m', false], ['0.5', '500m', false],
  ['0.00050k', '500m', false], ['0.00500', '5m', false], ['0.05000', '50m', false], ['0.50000', '500m', false],
  ['0.5e0', '500e-3', false], ['0.5e-1', '50e-3', false], ['0.5e-2', '5e-3', false], ['10.035M', '10.035M', true],
  ['1.2e3', '1200', false], ['1.3E+6', '1300e3', false], ['1.40e9', '1400e6', false], ['1.53E12', '1530e9', false], ['1.6e15', '1600e12', false], ['1.7E18', '1700e15', false],
  ['9.01', '9010m', false], ['8.1k', '8100', false], ['7.123456M', '7.123456M', true], ['6.987654321G', '6.987654321G', true], ['5.444T', '5.444T', true],
  ['40.1T', '40100G', false], ['300.2T', '300200G', false], ['2.5P', '2500T', false], ['1.01E', '1010P', false],
  ['3.001n', '4n', false], ['1.1E-9', '2e-9', false], ['0.0000000001', '1n', false], ['0.0000000005', '1n', false], ['0.00000000050', '1n', false],
  ['0.5e-9', '1e-9', false], ['0.9n', '1n', false], ['0.00000012345', '124n', false], ['0.00000012354', '124n', false],
  ['9Ei', '9223372036854775807', false], ['9223372036854775807Ki', '9223372036854775807', false], ['12E', '12E', true],
  ['100.035Ki', '102435840m', false], ['0.5Mi', '512Ki', false], ['0.05Gi', '53687091200m', false], ['0.025Ti', '27487790694400m', false],
  ['0.000000000001Ki', '2n', false], ['.001', '1m', false], ['.0001k', '100m', false], ['1.', '1.', true], ['1.G', '1.G', true],
];

describe('read back as upstream (TestQuantityParse rows)', () => {
  test.each(readBack)('%s reads back as %s', (input, text) => {
    expect(canonicalQuantity(input)).toBe(text);
    expect(formatQuantity(quantityFromJSON(input)!)).toBe(text);
  });

  test.each(readBack)('-%s reads back as -%s', (input, text, echoed) => {
    expect(canonicalQuantity(`-${input}`)).toBe(text === '0' ? '0' : echoed ? `-${input}` : `-${text}`);
  });

  test.each(readBack)('+%s reads back as %s', (input, text, echoed) => {
    expect(canonicalQuantity(`+${input}`)).toBe(echoed ? `+${input}` : text);
  });
});

// Upstream TestParseQuantity (around the int64 limits): the text read back.
describe('read back around the int64 limits (TestParseQuantity)', () => {
  test.each([
    ['-999999999999999999', '-999999999999999999'],
    ['999999999999999999', '999999999999999999'],
    ['-999999999999999999.0', '-999999999999999999'],
    ['999999999999999999.0', '999999999999999999'],
    ['-999999999999999999.1', '-999999999999999999100m'],
    ['999999999999999999.1', '999999999999999999100m'],
    ['-9999999999999999999', '-9999999999999999999'],
    ['9999999999999999999', '9999999999999999999'],
    ['-1E', '-1E'],
    ['1E', '1E'],
    ['-1000000000000000000', '-1E'],
    ['1000000000000000000', '1E'],
    ['-9999999999999999999.0', '-9999999999999999999'],
    ['9999999999999999999.0', '9999999999999999999'],
    ['-1.0E', '-1E'],
    ['1.0E', '1E'],
    ['-1000000000000000000.0', '-1E'],
    ['1000000000000000000.0', '1E'],
    ['-9999999999999999999000m', '-9999999999999999999'],
    ['9999999999999999999000m', '9999999999999999999'],
    ['-9999999999999999999.1', '-9999999999999999999100m'],
    ['9999999999999999999.1', '9999999999999999999100m'],
    ['-1.0000000000000000001E', '-1000000000000000000100m'],
    ['1.0000000000000000001E', '1000000000000000000100m'],
    ['-1000000000000000000.1', '-1000000000000000000100m'],
    ['1000000000000000000.1', '1000000000000000000100m'],
    ['-1.000000000000000001E', '-1000000000000000001'],
    ['1.000000000000000001E', '1000000000000000001'],
    ['-1000000000000000001', '-1000000000000000001'],
    ['1000000000000000001', '1000000000000000001'],
    ['-10E', '-10E'],
    ['10E', '10E'],
    ['-10000000000000000000', '-10E'],
    ['10000000000000000000', '10E'],
    ['-10.0E', '-10E'],
    ['10.0E', '10E'],
    ['-10000000000000000000.0', '-10E'],
    ['10000000000000000000.0', '10E'],
    ['-10000000000000000000000m', '-10E'],
    ['10000000000000000000000m', '10E'],
    ['-10.0000000000000000001E', '-10000000000000000000100m'],
    ['10.0000000000000000001E', '10000000000000000000100m'],
    ['-10000000000000000000.1', '-10000000000000000000100m'],
    ['10000000000000000000.1', '10000000000000000000100m'],
    ['-10.000000000000000001E', '-10000000000000000001'],
    ['10.000000000000000001E', '10000000000000000001'],
    ['-10000000000000000001', '-10000000000000000001'],
    ['10000000000000000001', '10000000000000000001'],
    ['-9223372036854775809', '-9223372036854775809'],
    ['9223372036854775806', '9223372036854775806'],
    ['-9223372036854775809.0', '-9223372036854775809'],
    ['9223372036854775806.0', '9223372036854775806'],
    ['-9223372036854775809000m', '-9223372036854775809'],
    ['9223372036854775806000m', '9223372036854775806'],
    ['-9223372036854775809.1', '-9223372036854775809100m'],
    ['9223372036854775806.1', '9223372036854775806100m'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808.0', '-9223372036854775808'],
    ['9223372036854775807.0', '9223372036854775807'],
    ['-9223372036854775808000m', '-9223372036854775808'],
    ['9223372036854775807000m', '9223372036854775807'],
    ['-9223372036854775808.1', '-9223372036854775808100m'],
    ['9223372036854775807.1', '9223372036854775807100m'],
    ['-9223372036854775807', '-9223372036854775807'],
    ['9223372036854775808', '9223372036854775808'],
    ['-9223372036854775807.0', '-9223372036854775807'],
    ['9223372036854775808.0', '9223372036854775808'],
    ['-9223372036854775807000m', '-9223372036854775807'],
    ['9223372036854775808000m', '9223372036854775808'],
    ['-9223372036854775807.1', '-9223372036854775807100m'],
    ['9223372036854775808.1', '9223372036854775808100m'],
  ])('%s reads back as %s', (input, text) => {
    expect(canonicalQuantity(input)).toBe(text);
  });
});

describe('formatQuantity', () => {
  // Upstream TestQuantityParseEmit, TestQuantityString alternates and TestParseQuantity.
  test.each([
    ['1Ki', '1Ki'],
    ['1024Mi', '1Gi'],
    ['1000M', '1G'],
    ['1.5Gi', '1536Mi'],
    ['.001Ki', '1024m'],
    ['.000001Ki', '1024u'],
    ['.000000001Ki', '1024n'],
    ['.000000000001Ki', '2n'],
    ['307200Ki', '300Mi'],
    ['1025024Mi', '1001Gi'],
    ['5000m', '5'],
    ['0.5', '500m'],
    ['0.1m', '100u'], // rounded to nano precision, not milli (upstream code, despite its doc comment)
    ['0.0000000001', '1n'],
    ['0.001T', '1G'],
    ['1000u', '1m'],
    ['1.08', '1080m'],
    ['1080000000n', '1080m'],
    ['.001e12', '1e9'],
    ['0.001e0', '1e-3'],
    ['1000e-12', '1e-9'],
    ['1e3', '1e3'],
    ['12e6', '12e6'],
    ['00', '0'],
    ['100.035Ki', '102435840m'],
    ['0.5Ki', '512'],
    ['1025', '1025'],
    ['999999999999999999.1', '999999999999999999100m'],
    ['9999999999999999999', '9999999999999999999'],
    ['1000000000000000000', '1E'],
    ['-1.0000000000000000001E', '-1000000000000000000100m'],
    ['10000000000000000000', '10E'],
    ['10000000000000000000000m', '10E'],
    ['-10.0000000000000000001E', '-10000000000000000000100m'],
    ['9223372036854775808.1', '9223372036854775808100m'],
    ['9223372036854775807000m', '9223372036854775807'],
    ['9Ei', '9223372036854775807'],
    ['1000E', '1000E'],
  ])('%s is written %s', (input, canonical) => {
    expect(canonicalQuantity(input)).toBe(canonical);
  });

  // Upstream keeps the input text when its fast path finds it canonical.
  test.each(['+1Ki', '1E3', '01', '1.G', '100e0', '-1k', '1025Ki'])('%s is echoed unchanged', (input) => {
    expect(canonicalQuantity(input)).toBe(input);
  });

  test('a changed copy does not reuse the original text', () => {
    const q = must('+1Ki');
    expect(formatQuantity({ ...q, num: q.num * 2n })).toBe('2Ki');
    expect(formatQuantity({ ...q })).toBe('1Ki');
  });

  // Upstream TestQuantityString: value (num, scale) and format in, text out.
  test.each<[bigint, number, QuantityFormat, string]>([
    [1073741824n, 0, 'BinarySI', '1Gi'],
    [6144n, 0, 'BinarySI', '6Ki'],
    [1099511627776n, 0, 'BinarySI', '1Ti'],
    [5n, 0, 'BinarySI', '5'],
    [500n, 3, 'BinarySI', '500m'],
    [1234567n, 3, 'BinarySI', '1234567m'],
    [-1024n, 0, 'BinarySI', '-1Ki'],
    [1n, -9, 'DecimalSI', '1G'],
    [80n, 3, 'DecimalSI', '80m'],
    [108n, 2, 'DecimalSI', '1080m'],
    [1234567n, -6, 'DecimalSI', '1234567M'],
    [0n, 0, 'DecimalExponent', '0'],
    [1n, 9, 'DecimalExponent', '1e-9'],
    [80n, 3, 'DecimalExponent', '80e-3'],
    [300n, -6, 'DecimalExponent', '300e6'],
    [-901n, 2, 'DecimalSI', '-9010m'],
    [10800n, 10, 'DecimalSI', '1080n'],
  ])('%s/10^%s as %s is %s', (num, scale, format, text) => {
    expect(formatQuantity({ num, scale, format })).toBe(text);
  });
});

describe('compareQuantities', () => {
  test.each<[string, string, -1 | 0 | 1]>([
    ['0', '0', 0],
    ['100m', '50m', 1],
    ['50m', '100m', -1],
    ['10000T', '100Gi', 1],
    ['1Gi', '1024Mi', 0],
    ['1G', '1Gi', -1],
    ['10Ei', '10000Pi', 0], // BinarySI is capped at 2^63-1 on parse, as upstream
    ['8Ei', '9223372036854775807', 0],
    ['7Ei', '7168Pi', 0],
    ['7Ei', '7167Pi', 1],
    ['12E', '11999999999999999999', 1], // DecimalSI is not capped
    ['100E', '99999999999999999999999m', 1],
    ['10E', '9999999999999999999', 1],
    ['-1', '0', -1],
    ['-1Gi', '-1G', -1],
    ['1e3', '1k', 0],
    ['0.1n', '1n', 0],
    ['9.01', '9.010', 0],
  ])('%s vs %s is %d', (a, b, want) => {
    expect(compareQuantities(must(a), must(b))).toBe(want);
    expect(compareQuantities(must(b), must(a))).toBe(-want || 0);
  });
});

describe('quantityToBytes', () => {
  test.each([
    ['1Gi', 1073741824n],
    ['1G', 1000000000n],
    ['100m', 1n],
    ['1.5', 2n],
    ['-1.5', -2n],
    ['1n', 1n],
    ['0', 0n],
    ['12E', 12000000000000000000n],
    ['9.01', 10n],
  ])('%s is %d bytes', (input, bytes) => {
    expect(quantityToBytes(must(input))).toBe(bytes);
  });

  test.each<[bigint, QuantityFormat | undefined, string]>([
    [1073741824n, undefined, '1Gi'],
    [1000n, undefined, '1k'], // BinarySI below 1Ki prints as DecimalSI
    [1023n, undefined, '1023'],
    [1000n, 'DecimalSI', '1k'],
    [1000000n, 'DecimalExponent', '1e6'],
    [1536n * 1024n * 1024n, 'BinarySI', '1536Mi'],
  ])('%d bytes as %s are %s', (bytes, format, text) => {
    expect(formatQuantity(bytesToQuantity(bytes, format))).toBe(text);
  });
});

describe('sign', () => {
  test.each([
    ['-1m', true, false],
    ['0', false, true],
    ['-0', false, true],
    ['1Ki', false, false],
  ])('%s: negative %s, zero %s', (input, negative, zero) => {
    expect(isNegative(must(input))).toBe(negative);
    expect(isZero(must(input))).toBe(zero);
  });
});
