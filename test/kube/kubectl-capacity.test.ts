// CSIStorageCapacity (storage.k8s.io/v1) with kubectl: created from YAML (protobuf on the
// wire for typed commands), listed across namespaces with upstream's columns, only the
// capacity may change, and developers may not read pools.
import { describe, expect, test } from 'vitest';
import { findKubectl, kubectlSuite } from './harness';

const bin = findKubectl();
if (!bin) console.log('skipping CSIStorageCapacity kubectl tests: no kubectl on PATH');

const capacity = (name: string, cls: string, size: string) => `apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata:
  name: ${name}
  namespace: default
storageClassName: ${cls}
nodeTopology:
  matchLabels:
    kubernetes.io/hostname: node-a
capacity: ${size}
maximumVolumeSize: ${size}
`;

describe.skipIf(!bin)('CSIStorageCapacity with kubectl', () => {
  const { kubectl } = kubectlSuite(bin!);

  test('created from YAML and listed with kubectl get csistoragecapacities -A', async () => {
    const made = await kubectl(['create', '-f', '-'], { input: capacity('pool-a', 'pooled', '1024Mi') });
    expect(made.stderr).toBe('');
    expect(made.stdout).toBe('csistoragecapacity.storage.k8s.io/pool-a created\n');
    const r = await kubectl(['get', 'csistoragecapacities', '-A']);
    expect(r.stderr).toBe('');
    const [header, row] = r.stdout.trim().split('\n');
    expect(header.split(/\s+/)).toEqual(['NAMESPACE', 'NAME', 'STORAGECLASSNAME', 'CAPACITY', 'AGE']);
    expect(row.split(/\s+/).slice(0, 4)).toEqual(['default', 'pool-a', 'pooled', '1Gi']);
  });

  test('the capacity may change; the class may not', async () => {
    const grown = await kubectl(['apply', '-f', '-'], { input: capacity('pool-a', 'pooled', '2Gi') });
    expect(grown.code, grown.stderr).toBe(0);
    const moved = await kubectl(['apply', '-f', '-'], { input: capacity('pool-a', 'other', '2Gi') });
    expect(moved.code).not.toBe(0);
    expect(moved.stderr).toContain('storageClassName: Invalid value: "other": field is immutable');
  });

  test('a developer may not list pools', async () => {
    const r = await kubectl(['get', 'csistoragecapacities', '-n', 'team-a'], { user: 'dev' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('forbidden');
  });
});
