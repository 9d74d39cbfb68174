// ConfigMaps through kubectl (admins only), and the local-volume configuration refused at
// write time when its storageClassMap is malformed.
import { beforeAll, describe, expect, test } from 'vitest';
import { findKubectl, kubectlSuite } from './harness';

const bin = findKubectl();
if (!bin) console.log('skipping ConfigMap kubectl tests: no kubectl on PATH');

const good = `apiVersion: v1
kind: ConfigMap
metadata:
  name: local-volume-config
  namespace: kube-system
data:
  storageClassMap: |
    fast-disks:
      hostDir: /mnt/fast-disks
      blockCleanerCommand: ["dd-zero", "2"]
`;

describe.skipIf(!bin)('ConfigMaps with kubectl', () => {
  const { h, kubectl } = kubectlSuite(bin!);
  beforeAll(async () => {
    await h().ts.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-system' } });
  });

  test('apply creates it, apply again is unchanged, get cm lists it', async () => {
    let r = await kubectl(['apply', '-f', '-'], { input: good });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('configmap/local-volume-config created\n');
    r = await kubectl(['apply', '-f', '-'], { input: good });
    expect(r.stdout).toBe('configmap/local-volume-config unchanged\n');
    r = await kubectl(['get', 'cm', '-n', 'kube-system']);
    expect(r.stdout).toMatch(/^NAME\s+DATA\s+AGE\nlocal-volume-config\s+1\s+\d+s\n$/);
  });

  test.each([
    { name: 'a relative hostDir', map: 'fast-disks:\n  hostDir: mnt/fast\n', field: 'hostDir' },
    { name: 'an unknown cleanup method', map: 'fast-disks:\n  hostDir: /mnt/fast\n  blockCleanerCommand: ["scrub"]\n', field: 'blockCleanerCommand' },
    { name: 'a typo in a key', map: 'fast-disks:\n  hostDri: /mnt/fast\n', field: 'hostDri' },
    { name: 'not YAML', map: 'fast-disks: [\n', field: 'storageClassMap' },
  ])('apply of $name is refused (422) with the field named', async ({ map, field }) => {
    const bad = good.replace(/storageClassMap: \|[\s\S]*$/, `storageClassMap: ${JSON.stringify(map)}\n`);
    const r = await kubectl(['apply', '-f', '-'], { input: bad });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('is invalid');
    expect(r.stderr).toContain(field);
    const stored = await h().ts.store.get('ConfigMap', 'kube-system', 'local-volume-config');
    expect(stored.data!.storageClassMap).toContain('/mnt/fast-disks');
  });

  test('a developer may not read ConfigMaps', async () => {
    const r = await kubectl(['get', 'cm', '-n', 'team-a'], { user: 'dev' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Forbidden');
  });
});
