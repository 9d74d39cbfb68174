import { describe, expect, test } from 'vitest';
import { isPoolVolumePath, parseQgroupShow, poolCapacityName, poolFstabLine, poolProblem, poolRoom, poolStorageClassYaml, promisedBytes, reportedRoom, type PoolAssetDetails } from './btrfs-pool';

const UID = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

describe('isPoolVolumePath', () => {
  const rows: [string, string, boolean][] = [
    ['/pools/fast', `/pools/fast/pvc-${UID}`, true],
    ['/pools/fast', `/pools/fast/sub/pvc-${UID}`, false],
    ['/pools/fast', `/pools/fast/../pvc-${UID}`, false],
    ['/pools/fast', '/pools/fast/pvc-not-a-uid', false],
    ['/pools/fast', '/pools/fast', false],
    ['/pools/fast/', `/pools/fast/pvc-${UID}`, false],
    ['relative', `relative/pvc-${UID}`, false],
    ['/pools/fast', `/pools/other/pvc-${UID}`, false],
  ];
  test.each(rows)('pool %s, path %s -> %s', (pool, p, want) => expect(isPoolVolumePath(pool, p)).toBe(want));
});

describe('parseQgroupShow', () => {
  const text = [
    'Qgroupid    Referenced    Exclusive  Max referenced  Max exclusive   Path ',
    '--------    ----------    ---------  --------------  -------------   ---- ',
    '0/5              16384        16384            none           none   <toplevel>',
    '0/256         49983488     49983488        50000000           none   pvc-a',
    '0/257                0            0            none           none   <stale>',
    '1/100                0            0            none           none   ',
  ].join('\n');
  test('level-0 rows with limits, none as undefined, headers and higher levels skipped', () => {
    expect(parseQgroupShow(text)).toEqual([
      { id: '5', referencedBytes: 16384n, exclusiveBytes: 16384n, path: '<toplevel>' },
      { id: '256', referencedBytes: 49983488n, exclusiveBytes: 49983488n, maxReferencedBytes: 50000000n, path: 'pvc-a' },
      { id: '257', referencedBytes: 0n, exclusiveBytes: 0n, path: '<stale>' },
    ]);
  });
  test('empty output -> no rows', () => expect(parseQgroupShow('')).toEqual([]));
});

describe('poolRoom', () => {
  const rows: [string, { totalBytes: bigint; freeBytes: bigint; allocatedBytes: bigint }, bigint][] = [
    ['empty pool: all free', { totalBytes: 100n, freeBytes: 100n, allocatedBytes: 0n }, 100n],
    ['promises bind before free space', { totalBytes: 100n, freeBytes: 90n, allocatedBytes: 60n }, 40n],
    ['other data binds before promises', { totalBytes: 100n, freeBytes: 10n, allocatedBytes: 20n }, 10n],
    ['overcommitted: no room, never negative', { totalBytes: 100n, freeBytes: 50n, allocatedBytes: 150n }, 0n],
  ];
  test.each(rows)('%s', (_name, figures, want) => expect(poolRoom(figures)).toBe(want));
});

describe('poolProblem', () => {
  const rows: [string, Parameters<typeof poolProblem>[0], string | undefined][] = [
    ['missing', { exists: false }, 'the path does not exist on this node'],
    ['a file', { exists: true, isDirectory: false }, 'the path is not a directory'],
    ['ext4', { exists: true, isDirectory: true, fsType: 'ext4' }, 'the path is on a ext4 filesystem, not btrfs'],
    ['btrfs without quotas', { exists: true, isDirectory: true, fsType: 'btrfs', quotas: false }, 'quotas are not enabled on this btrfs filesystem (btrfs quota enable)'],
    ['btrfs with quotas', { exists: true, isDirectory: true, fsType: 'btrfs', quotas: true }, undefined],
  ];
  test.each(rows)('%s', (_name, seen, want) => expect(poolProblem(seen)).toBe(want));
});

describe('poolCapacityName', () => {
  test('deterministic, a DNS label, and different per node and per class', () => {
    const a = poolCapacityName('node-a', 'pooled');
    expect(a).toBe(poolCapacityName('node-a', 'pooled'));
    expect(a).toMatch(/^pool-[0-9a-f]{8}$/);
    expect(poolCapacityName('node-b', 'pooled')).not.toBe(a);
    expect(poolCapacityName('node-a', 'other')).not.toBe(a);
    expect(poolCapacityName('node-a', 'bc')).not.toBe(poolCapacityName('node-ab', 'c'));
  });
});

describe('promisedBytes', () => {
  const rows: [string, PoolAssetDetails, bigint][] = [
    ['being created: the limit asked for', { limitBytes: '100' }, 100n],
    ['growing: the larger, new limit', { limitBytes: '200', appliedBytes: '100' }, 200n],
    ['made: its limit', { limitBytes: '100', appliedBytes: '100' }, 100n],
    ['removed: nothing', { limitBytes: '100', appliedBytes: '100', removed: true }, 0n],
  ];
  test.each(rows)('%s', (_n, d, want) => expect(promisedBytes(d)).toBe(want));
});

describe('reportedRoom', () => {
  test('an unusable pool has no room', () => expect(reportedRoom({ usable: false, totalBytes: '100', freeBytes: '100' }, 0n)).toBe(0n));
  test('a usable one: total less promised, at most free', () => expect(reportedRoom({ usable: true, totalBytes: '100', freeBytes: '70' }, 40n)).toBe(60n));
});

describe('poolStorageClassYaml and poolFstabLine', () => {
  test('the class names the provisioner and the pool, waits for the first consumer, may expand', () => {
    const y = poolStorageClassYaml('pooled', '/srv/pool');
    expect(y).toContain('provisioner: stowage.io/btrfs\n');
    expect(y).toContain('  pool: "/srv/pool"\n');
    expect(y).toContain('volumeBindingMode: WaitForFirstConsumer\n');
    expect(y).toContain('allowVolumeExpansion: true\n');
  });
  const rows: [string, string, boolean, string][] = [
    ['a file through a loop device', '/var/lib/pool.img', true, '/var/lib/pool.img /srv/pool btrfs loop,defaults,nofail 0 0'],
    ['a device', '/dev/sdb', false, '/dev/sdb /srv/pool btrfs defaults,nofail 0 0'],
  ];
  test.each(rows)('%s', (_n, source, isFile, want) => expect(poolFstabLine(source, '/srv/pool', isFile)).toBe(want));
  test('spaces escaped as fstab wants', () => expect(poolFstabLine('/a b.img', '/m n', true)).toBe('/a\\040b.img /m\\040n btrfs loop,defaults,nofail 0 0'));
});
