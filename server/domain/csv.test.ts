import { describe, expect, test } from 'vitest';
import { csvCell, toCsv } from './csv';

describe('csvCell', () => {
  test.each<[unknown, string]>([
    ['plain', 'plain'],
    ['', ''],
    [null, ''],
    [undefined, ''],
    [42, '42'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=HYPERLINK("x")', `"'=HYPERLINK(""x"")"`],
    ['+1', "'+1"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tcmd', "'\tcmd"],
    [' padded ', '" padded "'],
    ['user:alice', 'user:alice'],
    [{ a: 1 }, '"{""a"":1}"'],
  ])('%j is written as %s', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });
});

describe('toCsv', () => {
  test('a header and rows with CRLF line ends', () => {
    expect(toCsv(['a', 'b'], [['1', 'x,y'], ['=1', '']])).toBe(`a,b\r\n1,"x,y"\r\n'=1,\r\n`);
  });
});
