import { describe, expect, it } from 'vitest';
import { matchNamePattern, mountDirFor, parseStorageClassMap } from './local-volume-config';

function ok(text: string) {
  const r = parseStorageClassMap(text);
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.errors)}`);
  return r.classes;
}

describe('parseStorageClassMap: accepted maps and their defaults', () => {
  it('applies upstream defaults and Stowage defaults', () => {
    expect(ok('fast:\n  hostDir: /mnt/fast\n')).toEqual([
      {
        className: 'fast',
        hostDir: '/mnt/fast',
        mountDir: '/mnt/fast',
        blockCleanerCommand: ['fs-reset'],
        volumeMode: 'Filesystem',
        fsType: 'ext4',
        namePattern: '*',
        accessMode: 'ReadWriteOnce',
        selector: [],
        requireMountPoints: true,
        minSizeBytes: '0',
        parallelCleanups: 2,
      },
    ]);
  });

  // Keys of upstream's MountConfig that Stowage refused as unknown before.
  it('reads upstream accessMode and selector, and remembers an fsType that was written', () => {
    const text = [
      'shared:',
      '  hostDir: /mnt/shared',
      '  accessMode: ReadWriteMany',
      '  fsType: xfs',
      '  selector:',
      '    - matchExpressions:',
      '        - key: topology.kubernetes.io/zone',
      '          operator: In',
      '          values: [a]',
    ].join('\n');
    expect(ok(text)[0]).toMatchObject({
      accessMode: 'ReadWriteMany',
      fsType: 'xfs',
      declaredFsType: 'xfs',
      selector: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['a'] }] }],
    });
    expect(ok('a:\n  hostDir: /a\n')[0].declaredFsType).toBeUndefined();
  });

  it.each([
    { text: 'a:\n  hostDir: /a\n  accessMode: RWO\n', field: 'storageClassMap.a.accessMode', message: /must be one of ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod, not "RWO"/ },
    { text: 'a:\n  hostDir: /a\n  selector: {zone: a}\n', field: 'storageClassMap.a.selector', message: /must be a list of node selector terms/ },
    { text: 'a:\n  hostDir: /a\n  selector: [{matchLabels: {a: b}}]\n', field: 'storageClassMap.a.selector', message: /must be a list of node selector terms/ },
  ])('refuses a malformed upstream key: $field', ({ text, field, message }) => {
    const r = parseStorageClassMap(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors[0].field).toBe(field);
      expect(r.errors[0].message).toMatch(message);
    }
  });

  it('directoryCapacity declares the size of plain directories', () => {
    expect(ok('a:\n  hostDir: /a\n  directoryCapacity: 20Gi\n')[0].directoryCapacityBytes).toBe(String(20 * 1024 ** 3));
    const r = parseStorageClassMap('a:\n  hostDir: /a\n  directoryCapacity: 0\n');
    expect(r.ok ? [] : r.errors).toEqual([{ field: 'storageClassMap.a.directoryCapacity', message: 'must be greater than zero' }]);
  });

  it.each([
    ['nvme*,sd*', 'sda', true],
    ['nvme*,sd*', 'nvme0n1', true],
    ['nvme*,sd*', 'hda', false],
    ['disk1,', 'disk1', true],
  ])('namePattern %j is a comma-separated list of globs, as upstream: %s -> %s', (pattern, name, want) => {
    expect(matchNamePattern(pattern, name)).toBe(want);
  });

  it('reads every key', () => {
    const text = [
      'local-ssd:',
      '  hostDir: /mnt/ssds',
      '  mountDir: /mnt/local-storage/mnt~ssds',
      '  blockCleanerCommand: ["dd-zero", "2"]',
      '  volumeMode: Block',
      '  fsType: xfs',
      '  namePattern: "nvme*"',
      '  requireMountPoints: false',
      '  minSize: 1Gi',
      '  parallelCleanups: 4',
      'hdd:',
      '  hostDir: /mnt/hdds',
    ].join('\n');
    const [a, b] = ok(text);
    expect(a).toMatchObject({
      className: 'local-ssd',
      mountDir: '/mnt/local-storage/mnt~ssds',
      blockCleanerCommand: ['dd-zero', '2'],
      volumeMode: 'Block',
      fsType: 'xfs',
      namePattern: 'nvme*',
      requireMountPoints: false,
      minSizeBytes: String(1 << 30),
      parallelCleanups: 4,
    });
    expect(b.className).toBe('hdd');
  });

  it.each([
    { name: 'empty text', text: '', count: 0 },
    { name: 'an empty map', text: '{}', count: 0 },
    { name: 'upstream quick_reset.sh default', text: 'a:\n  hostDir: /d\n  blockCleanerCommand: ["/scripts/quick_reset.sh"]', count: 1 },
    { name: 'upstream shred.sh with passes', text: 'a:\n  hostDir: /d\n  blockCleanerCommand: ["/scripts/shred.sh", "2"]', count: 1 },
    { name: 'a custom command with arguments', text: 'a:\n  hostDir: /d\n  blockCleanerCommand: ["/usr/local/bin/wipe", "--fast", "x y"]', count: 1 },
    { name: 'minSize as a plain number', text: 'a:\n  hostDir: /d\n  minSize: 1000', count: 1 },
    { name: 'sibling directories', text: 'a:\n  hostDir: /mnt/a\nb:\n  hostDir: /mnt/ab', count: 2 },
    { name: 'a dotted class name', text: 'local.ssd:\n  hostDir: /d', count: 1 },
  ])('$name -> $count classes', ({ text, count }) => {
    expect(ok(text)).toHaveLength(count);
  });
});

describe('parseStorageClassMap: refused maps name the field', () => {
  it.each([
    { name: 'relative hostDir', text: 'fast:\n  hostDir: mnt/fast', field: 'storageClassMap.fast.hostDir', message: 'must be an absolute path' },
    { name: 'missing hostDir', text: 'fast:\n  mountDir: /x', field: 'storageClassMap.fast.hostDir', message: 'is required' },
    { name: 'hostDir with ..', text: 'fast:\n  hostDir: /mnt/../etc', field: 'storageClassMap.fast.hostDir', message: 'must not contain ".."' },
    { name: 'hostDir root', text: 'fast:\n  hostDir: /', field: 'storageClassMap.fast.hostDir', message: 'must not be the root directory' },
    { name: 'hostDir trailing slash', text: 'fast:\n  hostDir: /mnt/fast/', field: 'storageClassMap.fast.hostDir', message: 'normalised' },
    { name: 'hostDir with //', text: 'fast:\n  hostDir: /mnt//fast', field: 'storageClassMap.fast.hostDir', message: 'normalised' },
    { name: 'hostDir not a string', text: 'fast:\n  hostDir: 12', field: 'storageClassMap.fast.hostDir', message: 'must be a string' },
    { name: 'relative mountDir', text: 'fast:\n  hostDir: /a\n  mountDir: b', field: 'storageClassMap.fast.mountDir', message: 'must be an absolute path' },
    { name: 'unknown method', text: 'fast:\n  hostDir: /a\n  blockCleanerCommand: ["zap"]', field: 'storageClassMap.fast.blockCleanerCommand', message: 'unknown cleanup method "zap"' },
    { name: 'relative command', text: 'fast:\n  hostDir: /a\n  blockCleanerCommand: ["scripts/x.sh"]', field: 'storageClassMap.fast.blockCleanerCommand', message: 'unknown cleanup method' },
    { name: 'command with ..', text: 'fast:\n  hostDir: /a\n  blockCleanerCommand: ["/bin/../tmp/x"]', field: 'storageClassMap.fast.blockCleanerCommand', message: '".."' },
    { name: 'empty command list', text: 'fast:\n  hostDir: /a\n  blockCleanerCommand: []', field: 'storageClassMap.fast.blockCleanerCommand', message: 'list of 1..32' },
    { name: 'command as a string', text: 'fast:\n  hostDir: /a\n  blockCleanerCommand: fs-reset', field: 'storageClassMap.fast.blockCleanerCommand', message: 'list of' },
    { name: 'dd-zero passes not a number', text: 'fast:\n  hostDir: /a\n  blockCleanerCommand: ["dd-zero", "many"]', field: 'storageClassMap.fast.blockCleanerCommand', message: 'passes must be 1..10' },
    { name: 'blkdiscard with arguments', text: 'fast:\n  hostDir: /a\n  blockCleanerCommand: ["blkdiscard", "-s"]', field: 'storageClassMap.fast.blockCleanerCommand', message: 'takes no arguments' },
    { name: 'bad volumeMode', text: 'fast:\n  hostDir: /a\n  volumeMode: block', field: 'storageClassMap.fast.volumeMode', message: 'must be "Filesystem" or "Block"' },
    { name: 'fsType with a slash', text: 'fast:\n  hostDir: /a\n  fsType: ../ext4', field: 'storageClassMap.fast.fsType', message: 'filesystem type' },
    { name: 'bad glob', text: 'fast:\n  hostDir: /a\n  namePattern: "disk["', field: 'storageClassMap.fast.namePattern', message: 'not a valid glob' },
    { name: 'glob with a slash', text: 'fast:\n  hostDir: /a\n  namePattern: "a/b"', field: 'storageClassMap.fast.namePattern', message: 'not a valid glob' },
    { name: 'requireMountPoints a string', text: 'fast:\n  hostDir: /a\n  requireMountPoints: "yes"', field: 'storageClassMap.fast.requireMountPoints', message: 'true or false' },
    { name: 'minSize garbage', text: 'fast:\n  hostDir: /a\n  minSize: lots', field: 'storageClassMap.fast.minSize', message: 'quantity' },
    { name: 'minSize negative', text: 'fast:\n  hostDir: /a\n  minSize: -1Gi', field: 'storageClassMap.fast.minSize', message: 'negative' },
    { name: 'parallelCleanups zero', text: 'fast:\n  hostDir: /a\n  parallelCleanups: 0', field: 'storageClassMap.fast.parallelCleanups', message: '1..64' },
    { name: 'parallelCleanups fraction', text: 'fast:\n  hostDir: /a\n  parallelCleanups: 1.5', field: 'storageClassMap.fast.parallelCleanups', message: '1..64' },
    { name: 'unknown key (typo)', text: 'fast:\n  hostDir: /a\n  hostdir: /b', field: 'storageClassMap.fast.hostdir', message: 'unknown key' },
    { name: '__proto__ as a key', text: 'fast:\n  hostDir: /a\n  __proto__: {polluted: 1}', field: 'storageClassMap.fast.__proto__', message: 'unknown key' },
    { name: '__proto__ as a class', text: '__proto__:\n  hostDir: /a', field: 'storageClassMap.__proto__', message: 'invalid StorageClass name' },
    { name: 'upper-case class name', text: 'Fast:\n  hostDir: /a', field: 'storageClassMap.Fast', message: 'invalid StorageClass name' },
    { name: 'class not a map', text: 'fast: /mnt/a', field: 'storageClassMap.fast', message: 'must be a map of settings' },
    { name: 'top level a list', text: '- a\n- b', field: 'storageClassMap', message: 'must be a map' },
    { name: 'duplicate class keys', text: 'fast:\n  hostDir: /a\nfast:\n  hostDir: /b', field: 'storageClassMap', message: 'invalid YAML' },
    { name: 'broken YAML', text: 'fast: [', field: 'storageClassMap', message: 'invalid YAML' },
    { name: 'same hostDir twice', text: 'a:\n  hostDir: /mnt/d\nb:\n  hostDir: /mnt/d', field: 'storageClassMap.b.hostDir', message: 'overlaps' },
    { name: 'nested hostDir', text: 'a:\n  hostDir: /mnt/d\nb:\n  hostDir: /mnt/d/inner', field: 'storageClassMap.b.hostDir', message: 'overlaps' },
    { name: 'alias bomb', text: `a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c]`, field: 'storageClassMap', message: 'invalid YAML' },
  ])('$name -> $field', ({ text, field, message }) => {
    const r = parseStorageClassMap(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const hit = r.errors.find((e) => e.field === field);
    expect(hit, JSON.stringify(r.errors)).toBeDefined();
    expect(hit!.message).toContain(message);
  });

  it('a __proto__ key never reaches an object prototype', () => {
    parseStorageClassMap('__proto__:\n  hostDir: /a\nfast:\n  hostDir: /b\n  __proto__: {isAdmin: true}');
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('refuses text over 256 KiB', () => {
    const r = parseStorageClassMap(`# ${'x'.repeat(300 * 1024)}\n`);
    expect(r).toEqual({ ok: false, errors: [{ field: 'storageClassMap', message: 'must be no more than 262144 bytes' }] });
  });

  it('reports every bad field at once', () => {
    const r = parseStorageClassMap('fast:\n  hostDir: rel\n  volumeMode: x\nslow:\n  hostDir: /ok\n  fsType: "A"');
    expect(r.ok ? [] : r.errors.map((e) => e.field).sort()).toEqual([
      'storageClassMap.fast.hostDir',
      'storageClassMap.fast.volumeMode',
      'storageClassMap.slow.fsType',
    ]);
  });
});

describe('mountDirFor (seed 003 bootstrapper rule)', () => {
  it.each([
    { hostDir: '/mnt/ssds', mountDir: '/mnt/local-storage/mnt~ssds' },
    { hostDir: '/mnt/hdds', mountDir: '/mnt/local-storage/mnt~hdds' },
    { hostDir: '/disks', mountDir: '/mnt/local-storage/disks' },
    { hostDir: '/var/lib/stowage/disks', mountDir: '/mnt/local-storage/var~lib~stowage~disks' },
  ])('$hostDir -> $mountDir', ({ hostDir, mountDir }) => {
    expect(mountDirFor(hostDir)).toBe(mountDir);
  });
});

describe('matchNamePattern (filepath.Match for one element)', () => {
  it.each([
    { pattern: '*', name: 'disk1', match: true },
    { pattern: '*', name: '.hidden', match: true },
    { pattern: 'disk*', name: 'disk1', match: true },
    { pattern: 'disk*', name: 'vol1', match: false },
    { pattern: 'disk?', name: 'disk1', match: true },
    { pattern: 'disk?', name: 'disk12', match: false },
    { pattern: 'disk[0-3]', name: 'disk2', match: true },
    { pattern: 'disk[0-3]', name: 'disk7', match: false },
    { pattern: 'disk[^0-3]', name: 'disk7', match: true },
    { pattern: 'a.b', name: 'axb', match: false },
    { pattern: 'a\\*', name: 'a*', match: true },
    { pattern: 'a\\*', name: 'ab', match: false },
    { pattern: 'nvme(1)', name: 'nvme(1)', match: true },
  ])('$pattern ~ $name -> $match', ({ pattern, name, match }) => {
    expect(matchNamePattern(pattern, name)).toBe(match);
  });
});

describe('parseStorageClassMap on hostile input (property)', () => {
  it('never throws, and every accepted class satisfies the invariants', async () => {
    const fc = (await import('fast-check')).default;
    const { stringify } = await import('yaml');
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom('/mnt/a', '/mnt/b/c', 'rel', '/', '/x/../y', '__proto__', 'fs-reset', 'dd-zero', '/opt/w'),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.constantFrom('dd-zero', '2', '/bin/x', 'zap'), { maxLength: 3 }),
    );
    const key = fc.constantFrom('hostDir', 'mountDir', 'blockCleanerCommand', 'volumeMode', 'fsType', 'namePattern', 'requireMountPoints', 'minSize', 'parallelCleanups', '__proto__', 'constructor', 'x');
    const cls = fc.dictionary(key, value, { maxKeys: 6 });
    const doc = fc.dictionary(fc.constantFrom('fast', 'slow', '__proto__', 'Bad_Name', 'a.b', 'constructor'), cls, { maxKeys: 3 });
    fc.assert(
      fc.property(fc.oneof(doc.map((d) => stringify(d)), fc.string({ maxLength: 200 })), (text) => {
        const r = parseStorageClassMap(text);
        if (!r.ok) {
          expect(r.errors.length).toBeGreaterThan(0);
          for (const e of r.errors) expect(e.field.startsWith('storageClassMap')).toBe(true);
          return;
        }
        for (const c of r.classes) {
          expect(c.hostDir.startsWith('/') && !c.hostDir.split('/').includes('..')).toBe(true);
          expect(c.mountDir.startsWith('/') && !c.mountDir.split('/').includes('..')).toBe(true);
          expect(['Filesystem', 'Block']).toContain(c.volumeMode);
          expect(c.parallelCleanups).toBeGreaterThanOrEqual(1);
          expect(BigInt(c.minSizeBytes)).toBeGreaterThanOrEqual(0n);
        }
        expect(({} as Record<string, unknown>).hostDir).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });
});
