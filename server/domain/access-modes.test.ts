import { describe, expect, test } from 'vitest';
import {
  abbreviateAccessModes,
  accessModesToBits,
  bitsToAccessModes,
  containsAccessModes,
} from './access-modes';

describe('access mode bits', () => {
  test.each<[string[], number]>([
    [[], 0],
    [['ReadWriteOnce'], 1],
    [['ReadOnlyMany'], 2],
    [['ReadWriteMany'], 4],
    [['ReadWriteOncePod'], 8],
    [['ReadWriteMany', 'ReadWriteOnce'], 5],
    [['ReadWriteOnce', 'ReadWriteOnce'], 1],
    [['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'], 15],
    [['Bogus', 'ReadOnlyMany'], 2],
  ])('%j is %d', (modes, bits) => {
    expect(accessModesToBits(modes)).toBe(bits);
  });

  test.each<[number, string[]]>([
    [0, []],
    [5, ['ReadWriteOnce', 'ReadWriteMany']],
    [10, ['ReadOnlyMany', 'ReadWriteOncePod']],
    [15, ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod']],
    [16, []],
  ])('%d is %j', (bits, modes) => {
    expect(bitsToAccessModes(bits)).toEqual(modes);
  });
});

describe('abbreviateAccessModes', () => {
  test.each<[string[], string]>([
    [[], ''],
    [['ReadWriteOnce'], 'RWO'],
    [['ReadWriteOncePod'], 'RWOP'],
    [['ReadWriteMany', 'ReadOnlyMany', 'ReadWriteOnce'], 'RWO,ROX,RWX'],
    [['ReadWriteOncePod', 'ReadWriteOnce', 'ReadWriteOnce'], 'RWO,RWOP'],
    [['ReadOnlyMany', 'Bogus'], 'ROX'],
    [['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'], 'RWO,ROX,RWX,RWOP'],
  ])('%j prints %j', (modes, text) => {
    expect(abbreviateAccessModes(modes)).toBe(text);
  });
});

describe('containsAccessModes', () => {
  test.each<[string[], string[], boolean]>([
    [['ReadWriteOnce', 'ReadOnlyMany'], ['ReadWriteOnce'], true],
    [['ReadWriteOnce', 'ReadOnlyMany'], ['ReadOnlyMany', 'ReadWriteOnce'], true],
    [['ReadWriteOnce'], ['ReadWriteMany'], false],
    [['ReadWriteOnce'], ['ReadWriteOnce', 'ReadWriteMany'], false],
    [['ReadWriteOnce'], [], true],
    [[], ['ReadWriteOnce'], false],
    [['ReadWriteOnce'], ['ReadWriteOncePod'], false],
  ])('%j has %j: %s', (have, want, result) => {
    expect(containsAccessModes(have, want)).toBe(result);
  });
});
