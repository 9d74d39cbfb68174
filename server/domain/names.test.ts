import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  utf8Length,
  fieldNotSupported,
  fieldTooLong,
  goQuote,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validateAnnotations,
  validateFinalizers,
  validateLabels,
} from './names';

const a = (n: number) => 'a'.repeat(n);

const LABEL_REGEX_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_REGEX_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART_REGEX_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_REGEX_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('isDNS1123Label', () => {
  test.each(['a', 'ab', 'a-1', 'a--1--2--b', '0', '012', '1-a', a(63)])('%s is a label', (v) => {
    expect(isDNS1123Label(v)).toEqual([]);
  });
  test.each(['', 'A', 'aBc', '-', 'a-', '-a', '_', 'a_b', ' ', 'a b', '1.', '.a'])('%j is not a label', (v) => {
    expect(isDNS1123Label(v)).toEqual([LABEL_REGEX_MSG]);
  });
  test.each([
    ['a.b', ['must not contain dots']],
    [a(64), ['must be no more than 63 characters']],
    [`${a(63)}.b`, ['must be no more than 63 characters', 'must not contain dots']],
  ])('%s: %j', (v, errs) => {
    expect(isDNS1123Label(v)).toEqual(errs);
  });
});

describe('isDNS1123Subdomain', () => {
  test.each(['a', 'a.a', 'a--1--2--b.1', '0.1', 'a.b.c.d.e', '11.22.33.44.55', a(253)])('%s is a subdomain', (v) => {
    expect(isDNS1123Subdomain(v)).toEqual([]);
  });
  test.each(['', 'A', 'a.', '.a', 'a..b', 'A.a', 'a.B.c.d.e', 'a@b', 'a_b', 'a:b', 'a b'])('%j is not a subdomain', (v) => {
    expect(isDNS1123Subdomain(v)).toEqual([SUBDOMAIN_REGEX_MSG]);
  });
  test('254 characters are too long', () => {
    expect(isDNS1123Subdomain(a(254))).toEqual(['must be no more than 253 characters']);
  });
});

describe('isQualifiedName', () => {
  test.each([
    'simple',
    '1-starts-with-num',
    'now.with.dots/simple',
    '1.2.3.4/5678',
    'Uppercase_Is_OK_123',
    'example.com/Uppercase_Is_OK_123',
    'kubernetes.io/pvc-protection',
    a(63),
    `${a(253)}/${'b'.repeat(63)}`,
  ])('%s is a qualified name', (v) => {
    expect(isQualifiedName(v)).toEqual([]);
  });
  test.each([
    ['nospecialchars%^=@', [NAME_PART_REGEX_MSG]],
    ['cantendwithadash-', [NAME_PART_REGEX_MSG]],
    ['example.com/', ['name part must be non-empty', NAME_PART_REGEX_MSG]],
    ['/simple', ['prefix part must be non-empty']],
    ['Example.com/abc', [`prefix part ${SUBDOMAIN_REGEX_MSG}`]],
    [a(64), ['name part must be no more than 63 bytes']],
    [`${a(254)}/abc`, ['prefix part must be no more than 253 bytes']],
  ])('%s: %j', (v, errs) => {
    expect(isQualifiedName(v)).toEqual(errs);
  });
  test('more than one slash', () => {
    expect(isQualifiedName('only/one/slash')).toEqual([
      "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });
});

describe('isValidLabelValue', () => {
  test.each(['simple', 'end-with-num-1', '1234', a(63), ''])('%j is a label value', (v) => {
    expect(isValidLabelValue(v)).toEqual([]);
  });
  test.each(['nospecialchars%^=@', 'Tama-nui-te-rā.is.Māori.sun', '\\backslashes\\are\\bad', '-starts', 'ends.with.dot.'])(
    '%j is not a label value',
    (v) => {
      expect(isValidLabelValue(v)).toEqual([LABEL_VALUE_REGEX_MSG]);
    },
  );
  test('64 bytes are too long', () => {
    expect(isValidLabelValue(a(64))).toEqual(['must be no more than 63 bytes']);
  });
});

describe('names', () => {
  test.each([
    ['pv-1', false, 0],
    ['pv-', true, 0],
    ['pv-', false, 1],
    ['-', true, 1],
    ['a.b-', true, 0],
    // upstream masks a trailing '-' by replacing the LAST TWO characters with 'a': "a.-" -> "aa"
    ['a.-', true, 0],
    ['a.-', false, 1],
  ])('subdomain %s (prefix %s) has %d errors', (name, prefix, count) => {
    expect(nameIsDNSSubdomain(name, prefix)).toHaveLength(count);
  });
  test.each([
    ['ns1', false, 0],
    ['gen-', true, 0],
    ['a.b', false, 1],
    ['Gen-', true, 1],
  ])('label %s (prefix %s) has %d errors', (name, prefix, count) => {
    expect(nameIsDNSLabel(name, prefix)).toHaveLength(count);
  });
});

describe('validateLabels', () => {
  test.each([
    ['valid', { app: 'web', 'example.com/tier': '' }, []],
    ['absent', undefined, []],
    [
      'bad key',
      { 'a/b/c': 'x' },
      [{ field: 'metadata.labels', reason: 'FieldValueInvalid', message: expect.stringMatching(/^Invalid value: "a\/b\/c": a valid label key/) }],
    ],
    ['bad value', { app: 'a b' }, [{ field: 'metadata.labels', reason: 'FieldValueInvalid', message: `Invalid value: "a b": ${LABEL_VALUE_REGEX_MSG}` }]],
    ['non-string value', { app: 1 }, [{ field: 'metadata.labels[app]', reason: 'FieldValueTypeInvalid', message: 'Invalid value: 1: must be a string' }]],
    ['not a map', ['x'], [{ field: 'metadata.labels', reason: 'FieldValueTypeInvalid', message: 'Invalid value: ["x"]: must be an object of strings' }]],
  ])('%s', (_name, labels, errs) => {
    expect(validateLabels(labels, 'metadata.labels')).toEqual(errs);
  });
});

describe('validateAnnotations', () => {
  test.each([
    ['valid', { 'pv.kubernetes.io/provisioned-by': 'x'.repeat(1000) }, 0],
    ['uppercase keys are fine', { 'Example.COM/Key': 'v' }, 0],
    ['bad key', { 'a b': 'v' }, 1],
    ['exactly 256 KiB', { k: 'x'.repeat(256 * 1024 - 1) }, 0],
    ['over 256 KiB', { k: 'x'.repeat(256 * 1024) }, 1],
    ['multi-byte characters count as bytes', { k: 'é'.repeat(128 * 1024) }, 1],
  ])('%s', (_name, annotations, count) => {
    expect(validateAnnotations(annotations, 'metadata.annotations')).toHaveLength(count);
  });
  test('too long message', () => {
    expect(validateAnnotations({ k: 'x'.repeat(300_000) }, 'metadata.annotations')).toEqual([
      { field: 'metadata.annotations', reason: 'FieldValueTooLong', message: 'Too long: may not be more than 262144 bytes' },
    ]);
  });
});

describe('validateFinalizers', () => {
  test.each([
    ['valid', ['kubernetes.io/pv-protection', 'external-attacher/csi'], []],
    ['duplicates are allowed', ['a/b', 'a/b'], []],
    ['absent', null, []],
    ['bad name', ['a b'], [{ field: 'metadata.finalizers', reason: 'FieldValueInvalid', message: `Invalid value: "a b": ${NAME_PART_REGEX_MSG}` }]],
    [
      'orphan and foreground',
      ['orphan', 'foregroundDeletion'],
      [
        {
          field: 'metadata.finalizers',
          reason: 'FieldValueInvalid',
          message: 'Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
        },
      ],
    ],
    ['not a list', 'x', [{ field: 'metadata.finalizers', reason: 'FieldValueTypeInvalid', message: 'Invalid value: "x": must be a list of strings' }]],
  ])('%s', (_name, finalizers, errs) => {
    expect(validateFinalizers(finalizers, 'metadata.finalizers')).toEqual(errs);
  });
});

describe('error bodies', () => {
  test.each([
    ['plain', '"plain"'],
    ['quote " and \\', '"quote \\" and \\\\"'],
    ['tab\tnew\n', '"tab\\tnew\\n"'],
    ['\x01', '"\\x01"'],
    ['ünï', '"ünï"'],
    ['\u00a0', '"\\u00a0"'],
  ])('goQuote(%j) is %s', (input, quoted) => {
    expect(goQuote(input)).toBe(quoted);
  });
  test('too long for one byte and unsupported values', () => {
    expect(fieldTooLong('f', 1).message).toBe('Too long: may not be more than 1 byte');
    expect(fieldNotSupported('spec.x', 'Foo', ['A', 'B']).message).toBe('Unsupported value: "Foo": supported values: "A", "B"');
  });
});

describe('utf8Length (bytes, as Go counts a string)', () => {
  test.each([
    ['', 0],
    ['abc', 3],
    ['é', 2],
    ['€', 3],
    ['😀', 4],
    ['a😀b', 6],
    ['\ud83d', 3], // a lone high surrogate: encoded as U+FFFD
    ['\ude00x', 4], // a lone low surrogate, then a letter
    ['\ud83d\ud83d\ude00', 7], // a lone high surrogate before a pair
  ])('%j: %i', (s, n) => {
    expect(utf8Length(s)).toBe(n);
  });

  test('agrees with TextEncoder on any string, lone surrogates included', () => {
    const enc = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => utf8Length(s) === enc.encode(s).length),
      { numRuns: 2000 },
    );
  });
});
