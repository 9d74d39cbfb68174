import { describe, expect, it } from 'vitest';
import { parseMountInfo } from './filesystem';

describe('parseMountInfo', () => {
  it.each([
    { name: 'a plain mount', line: '36 35 98:0 / /mnt/data rw,noatime master:1 - ext4 /dev/loop3 rw', target: '/mnt/data', source: '/dev/loop3' },
    { name: 'escaped spaces', line: '36 35 98:0 / /mnt/my\\040disk rw - ext4 /dev/loop\\0404 rw', target: '/mnt/my disk', source: '/dev/loop 4' },
    { name: 'optional fields', line: '40 1 0:5 / /proc rw shared:2 master:3 - proc proc rw', target: '/proc', source: 'proc' },
  ])('$name', ({ line, target, source }) => {
    expect(parseMountInfo(`${line}\n`).get(target)).toBe(source);
  });
});
