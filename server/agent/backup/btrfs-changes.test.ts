import { describe, expect, it } from 'vitest';
import { overlaps, parseSendDump, underFresh, unescapeDumpPath } from './btrfs-changes';

const head = 'snapshot        ./s2                            uuid=42cf2cba-47e8-bd47-b349-6f9118cbdae3 transid=8 parent_uuid=63c24090-1d14-b541-8afb-0645fb63e536 parent_transid=7';

describe('parseSendDump', () => {
  const rows: { name: string; lines: string[]; ranges?: Record<string, [number, number][]>; fresh?: string[]; unknown?: true }[] = [
    { name: 'metadata only: no ranges, nothing fresh', lines: ['chmod ./s2/a mode=644', 'utimes ./s2/ atime=x mtime=y ctime=z', 'chown ./s2/d/e gid=0 uid=0'], ranges: {}, fresh: [] },
    { name: 'update_extent gives a range', lines: ['update_extent   ./s2/f      offset=409600 len=12288'], ranges: { f: [[409600, 421888]] }, fresh: [] },
    { name: 'truncate marks from the new size onward', lines: ['truncate ./s2/f size=100'], ranges: { f: [[100, Number.MAX_SAFE_INTEGER]] }, fresh: [] },
    { name: 'a new file (orphan then renamed) is fresh under both names', lines: ['mkfile ./s2/o261-8-0', 'rename ./s2/o261-8-0 dest=./s2/d/n', 'update_extent ./s2/d/n offset=0 len=4'], ranges: { 'd/n': [[0, 4]] }, fresh: ['o261-8-0', 'd/n'] },
    { name: 'a renamed directory makes its new name fresh', lines: ['rename ./s2/x dest=./s2/tmp', 'rename ./s2/y dest=./s2/x'], ranges: {}, fresh: ['tmp', 'x'] },
    { name: 'a hard link makes its new name fresh (dest is the existing name, unprefixed)', lines: ['link ./s2/new-name dest=old-name', 'unlink ./s2/old-name'], ranges: {}, fresh: ['new-name'] },
    { name: 'escaped spaces and octal bytes in names', lines: ['update_extent ./s2/sp\\ ace\\303\\251 offset=0 len=1'], ranges: { 'sp aceé': [[0, 1]] }, fresh: [] },
    { name: 'an unknown operation: unknown', lines: ['frobnicate ./s2/a'], unknown: true },
    { name: 'a path outside the snapshot: unknown', lines: ['update_extent ./other/a offset=0 len=1'], unknown: true },
    { name: 'a bad offset: unknown', lines: ['update_extent ./s2/a offset=x len=1'], unknown: true },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const got = parseSendDump([head, ...r.lines].join('\n'));
      if (r.unknown) {
        expect(got).toBeUndefined();
        return;
      }
      expect(got?.parentUuid).toBe('63c24090-1d14-b541-8afb-0645fb63e536');
      expect(Object.fromEntries([...got!.ranges].map(([k, v]) => [k, v.map((x) => [x.start, x.end])]))).toEqual(r.ranges);
      expect([...got!.fresh].sort()).toEqual([...r.fresh!].sort());
    });
  }

  it('a full stream (subvol, no parent) is unknown', () => {
    expect(parseSendDump('subvol ./s1 uuid=63c24090-1d14-b541-8afb-0645fb63e536 transid=7\nmkfile ./s1/o257-7-0')).toBeUndefined();
  });
  it('an empty stream is unknown', () => {
    expect(parseSendDump('')).toBeUndefined();
  });
});

describe('helpers', () => {
  it.each([
    ['a/b/c', ['a'], true],
    ['a/b/c', ['a/b/c'], true],
    ['a/bc', ['a/b'], false],
    ['x', [''], true],
    ['x', [], false],
  ] as [string, string[], boolean][])('underFresh(%s, %j) is %s', (p, fresh, want) => {
    expect(underFresh(new Set(fresh), p)).toBe(want);
  });
  it.each([
    [[[0, 10]], 10, 20, false],
    [[[0, 11]], 10, 20, true],
    [[[20, 30]], 10, 20, false],
    [[[15, 16]], 10, 20, true],
  ] as [[number, number][], number, number, boolean][])('overlaps(%j, %d, %d) is %s', (ranges, s, e, want) => {
    expect(overlaps(ranges.map(([start, end]) => ({ start, end })), s, e)).toBe(want);
  });
  it('unescapes the dump\'s path escapes', () => {
    expect(unescapeDumpPath('a\\ b\\\\c\\012')).toBe('a b\\c\n');
  });
});
