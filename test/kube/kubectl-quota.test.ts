// Storage quotas with kubectl: `create quota`, `get quota` (upstream's REQUEST/LIMIT
// columns), `describe quota`, and a claim over the quota refused with upstream's message.
import { describe, expect, test } from 'vitest';
import { findKubectl, kubectlSuite } from './harness';

const bin = findKubectl();
if (!bin) console.log('skipping quota kubectl tests: no kubectl on PATH');

const claim = (name: string, size: string) => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  resources:
    requests:
      storage: ${size}
`;

describe.skipIf(!bin)('quotas with kubectl', () => {
  const { h, kubectl } = kubectlSuite(bin!);

  test('an admin creates a quota with kubectl create quota', async () => {
    const r = await kubectl(['create', 'quota', 'storage', '-n', 'team-a', '--hard=requests.storage=12Gi,persistentvolumeclaims=5,fast.storageclass.storage.k8s.io/requests.storage=20Gi']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('resourcequota/storage created\n');
  });

  test('a developer may not create one', async () => {
    const r = await kubectl(['create', 'quota', 'mine', '--hard=requests.storage=1Ti'], { user: 'dev' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('forbidden');
  });

  test.each([
    { args: ['get', 'resourcequotas'], answer: 'yes' },
    { args: ['list', 'quota'], answer: 'yes' },
    { args: ['create', 'resourcequotas'], answer: 'no' },
    { args: ['update', 'resourcequotas/status'], answer: 'no' },
    { args: ['get', 'resourcequotas', '-n', 'other'], answer: 'no' },
  ])('dev: auth can-i $args -> $answer', async ({ args, answer }) => {
    const r = await kubectl(['auth', 'can-i', ...args], { user: 'dev' });
    expect(r.stdout.trim().split(' - ')[0]).toBe(answer);
  });

  test('claims are charged; get quota prints used/hard as upstream', async () => {
    for (const [name, size] of [['one', '4Gi'], ['two', '6Gi']]) {
      const r = await kubectl(['apply', '-f', '-'], { user: 'dev', input: claim(name, size) });
      expect(r.stderr).toBe('');
    }
    const r = await kubectl(['get', 'quota'], { user: 'dev' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /^NAME\s+AGE\s+REQUEST\s+LIMIT\nstorage\s+\d+s\s+fast\.storageclass\.storage\.k8s\.io\/requests\.storage: 10Gi\/20Gi, persistentvolumeclaims: 2\/5, requests\.storage: 10Gi\/12Gi\s*\n$/,
    );
  });

  test('describe quota lists each resource with used and hard', async () => {
    const r = await kubectl(['describe', 'quota', 'storage'], { user: 'dev' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/Resource\s+Used\s+Hard/);
    expect(r.stdout).toMatch(/requests\.storage\s+10Gi\s+12Gi/);
    expect(r.stdout).toMatch(/persistentvolumeclaims\s+2\s+5/);
  });

  test('apply creates and then changes a quota; the room grows at once', async () => {
    const q = (size: string) => `apiVersion: v1
kind: ResourceQuota
metadata:
  name: applied
  namespace: team-a
spec:
  hard:
    requests.storage: ${size}
`;
    let r = await kubectl(['apply', '-f', '-'], { input: q('10Gi') });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('resourcequota/applied created\n');
    r = await kubectl(['apply', '-f', '-'], { input: q('11Gi') });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('resourcequota/applied configured\n');
    r = await kubectl(['get', 'quota', 'applied', '-n', 'team-a', '-o', 'jsonpath={.status.hard.requests\\.storage} {.status.used.requests\\.storage}']);
    expect(r.stdout).toBe('11Gi 10Gi');
    r = await kubectl(['delete', 'quota', 'applied', '-n', 'team-a']);
    expect(r.stdout).toBe('resourcequota "applied" deleted\n');
  });

  test('a claim over the quota: kubectl prints the Forbidden message', async () => {
    const r = await kubectl(['apply', '-f', '-'], { user: 'dev', input: claim('three', '5Gi') });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'persistentvolumeclaims "three" is forbidden: exceeded quota: storage, requested: requests.storage=5Gi, used: requests.storage=10Gi, limited: requests.storage=12Gi',
    );
    expect(await h().ts.store.tryGet('PersistentVolumeClaim', 'team-a', 'three')).toBeUndefined();
  });

  test('snapshots: kubectl create quota with an object count and snapshot bytes; a snapshot over the count is Forbidden', async () => {
    let r = await kubectl(['create', 'quota', 'snaps', '-n', 'team-a', '--hard=count/volumesnapshots.snapshot.storage.k8s.io=1,snapshots.stowage.io/storage=100Gi']);
    expect(r.stderr).toBe('');
    const snap = (name: string) => `apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshot
metadata: {name: ${name}}
spec: {source: {persistentVolumeClaimName: one}}
`;
    r = await kubectl(['apply', '-f', '-'], { user: 'dev', input: snap('first') });
    expect(r.stderr).toBe('');
    r = await kubectl(['describe', 'quota', 'snaps'], { user: 'dev' });
    expect(r.stdout).toMatch(/count\/volumesnapshots\.snapshot\.storage\.k8s\.io\s+1\s+1/);
    expect(r.stdout).toMatch(/snapshots\.stowage\.io\/storage\s+4Gi\s+100Gi/);
    r = await kubectl(['apply', '-f', '-'], { user: 'dev', input: snap('second') });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      'volumesnapshots.snapshot.storage.k8s.io "second" is forbidden: exceeded quota: snaps, requested: count/volumesnapshots.snapshot.storage.k8s.io=1, used: count/volumesnapshots.snapshot.storage.k8s.io=1, limited: count/volumesnapshots.snapshot.storage.k8s.io=1',
    );
  });
});
