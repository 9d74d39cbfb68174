// The snapshot.storage.k8s.io/v1 kinds with kubectl: apply, get with the columns of
// upstream's CRDs, explain from the served OpenAPI, the CRDs' validation messages, and
// the role table (developers snapshot in their namespaces and read classes; contents are admin's).
import { describe, expect, test } from 'vitest';
import { DEV_NAMESPACE, findKubectl, kubectlSuite } from './harness';

const bin = findKubectl();
if (!bin) console.log('skipping snapshot kubectl tests: no kubectl on PATH');

const snapshotClass = (deletionPolicy = 'Delete') => `apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshotClass
metadata:
  name: btrfs-snap
  annotations:
    snapshot.storage.kubernetes.io/is-default-class: "true"
driver: stowage.io/btrfs
deletionPolicy: ${deletionPolicy}
`;

const content = (handle: string) => `apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshotContent
metadata:
  name: content-1
spec:
  deletionPolicy: Retain
  driver: stowage.io/btrfs
  source:
    snapshotHandle: ${handle}
  volumeSnapshotRef:
    name: snap-1
    namespace: ${DEV_NAMESPACE}
  volumeSnapshotClassName: btrfs-snap
`;

const snapshot = (name: string, source: string) => `apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshot
metadata:
  name: ${name}
spec:
  volumeSnapshotClassName: btrfs-snap
  source:
    ${source}
`;

describe.skipIf(!bin)('snapshot.storage.k8s.io with kubectl', () => {
  const { kubectl } = kubectlSuite(bin!);

  test('api-resources lists the three kinds with their short names and group', async () => {
    const r = await kubectl(['api-resources', '--api-group', 'snapshot.storage.k8s.io']);
    expect(r.stderr).toBe('');
    const rows = r.stdout.trim().split('\n').map((l) => l.split(/\s+/));
    expect(rows.slice(1).sort()).toEqual([
      ['volumesnapshotclasses', 'vsclass,vsclasses', 'snapshot.storage.k8s.io/v1', 'false', 'VolumeSnapshotClass'],
      ['volumesnapshotcontents', 'vsc,vscs', 'snapshot.storage.k8s.io/v1', 'false', 'VolumeSnapshotContent'],
      ['volumesnapshots', 'vs', 'snapshot.storage.k8s.io/v1', 'true', 'VolumeSnapshot'],
    ]);
  });

  test('an admin applies a class and a pre-provisioned content; get prints the CRDs\' columns', async () => {
    const c = await kubectl(['apply', '-f', '-'], { input: snapshotClass() });
    expect(c.stderr).toBe('');
    expect(c.stdout).toBe('volumesnapshotclass.snapshot.storage.k8s.io/btrfs-snap created\n');
    const again = await kubectl(['apply', '-f', '-'], { input: snapshotClass('Retain') });
    expect(again.stdout).toBe('volumesnapshotclass.snapshot.storage.k8s.io/btrfs-snap configured\n');
    const vsc = await kubectl(['apply', '-f', '-'], { input: content('snap-handle-1') });
    expect(vsc.stderr).toBe('');
    expect(vsc.stdout).toBe('volumesnapshotcontent.snapshot.storage.k8s.io/content-1 created\n');

    const classes = await kubectl(['get', 'vsclass']);
    expect(classes.stderr).toBe('');
    const [ch, cr] = classes.stdout.trim().split('\n');
    expect(ch.split(/\s+/)).toEqual(['NAME', 'DRIVER', 'DELETIONPOLICY', 'AGE']);
    expect(cr.split(/\s+/).slice(0, 3)).toEqual(['btrfs-snap', 'stowage.io/btrfs', 'Retain']);

    const contents = await kubectl(['get', 'volumesnapshotcontents']);
    expect(contents.stderr).toBe('');
    const [vh, vr] = contents.stdout.trim().split('\n');
    expect(vh.split(/\s{2,}/)).toEqual(['NAME', 'READYTOUSE', 'RESTORESIZE', 'DELETIONPOLICY', 'DRIVER', 'VOLUMESNAPSHOTCLASS', 'VOLUMESNAPSHOT', 'VOLUMESNAPSHOTNAMESPACE', 'AGE']);
    expect(vr.split(/\s+/).slice(0, 6)).toEqual(['content-1', 'Retain', 'stowage.io/btrfs', 'btrfs-snap', 'snap-1', DEV_NAMESPACE]);
  });

  test('a developer applies snapshots in their namespace and lists them with the CRD\'s columns', async () => {
    const a = await kubectl(['apply', '-f', '-'], { user: 'dev', input: snapshot('snap-1', 'volumeSnapshotContentName: content-1') });
    expect(a.stderr).toBe('');
    expect(a.stdout).toBe('volumesnapshot.snapshot.storage.k8s.io/snap-1 created\n');
    const b = await kubectl(['apply', '-f', '-'], { user: 'dev', input: snapshot('snap-2', 'persistentVolumeClaimName: data') });
    expect(b.stdout).toBe('volumesnapshot.snapshot.storage.k8s.io/snap-2 created\n');

    const r = await kubectl(['get', 'vs'], { user: 'dev' });
    expect(r.stderr).toBe('');
    const [header, ...rows] = r.stdout.trim().split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['NAME', 'READYTOUSE', 'SOURCEPVC', 'SOURCESNAPSHOTCONTENT', 'RESTORESIZE', 'SNAPSHOTCLASS', 'SNAPSHOTCONTENT', 'CREATIONTIME', 'AGE']);
    expect(rows.map((row) => row.split(/\s+/).slice(0, 3))).toEqual([
      ['snap-1', 'content-1', 'btrfs-snap'],
      ['snap-2', 'data', 'btrfs-snap'],
    ]);
    const json = JSON.parse((await kubectl(['get', 'vs', 'snap-2', '-o', 'json'], { user: 'dev' })).stdout);
    expect(json.spec).toEqual({ source: { persistentVolumeClaimName: 'data' }, volumeSnapshotClassName: 'btrfs-snap' });
  });

  test('the CRDs\' rules: exactly one source, and the source is immutable', async () => {
    const both = await kubectl(['apply', '-f', '-'], {
      user: 'dev',
      input: snapshot('snap-3', 'persistentVolumeClaimName: data\n    volumeSnapshotContentName: content-1'),
    });
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('spec.source: Invalid value: "object": exactly one of volumeSnapshotContentName and persistentVolumeClaimName must be set');
    const moved = await kubectl(['apply', '-f', '-'], { user: 'dev', input: snapshot('snap-2', 'persistentVolumeClaimName: other') });
    expect(moved.code).not.toBe(0);
    expect(moved.stderr).toContain('spec.source.persistentVolumeClaimName: Invalid value: "string": persistentVolumeClaimName is immutable');
    const handle = await kubectl(['apply', '-f', '-'], { input: content('snap-handle-2') });
    expect(handle.code).not.toBe(0);
    expect(handle.stderr).toContain('spec.source.snapshotHandle: Invalid value: "string": snapshotHandle is immutable');
  });

  test('roles: a developer reads classes (not writes them), reads no contents and may not snapshot outside their namespace', async () => {
    for (const args of [['get', 'volumesnapshotcontents'], ['get', 'vs', '-n', 'default'], ['delete', 'volumesnapshotclasses', '--all']]) {
      const r = await kubectl(args, { user: 'dev' });
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stderr).toContain('forbidden');
    }
    const classes = await kubectl(['get', 'volumesnapshotclasses'], { user: 'dev' });
    expect(classes.stderr).toBe('');
    expect(classes.code).toBe(0);
    // A custom resource takes JSON and merge patches, not strategic merge (as upstream's CRs).
    const strategic = await kubectl(['patch', 'vs', 'snap-2', '-p', '{"metadata":{"labels":{"a":"b"}}}'], { user: 'dev' });
    expect(strategic.code).not.toBe(0);
    expect(strategic.stderr).toContain('the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
    const merged = await kubectl(['patch', 'vs', 'snap-2', '--type', 'merge', '-p', '{"metadata":{"labels":{"a":"b"}}}'], { user: 'dev' });
    expect(merged.stderr).toBe('');
    expect(merged.stdout).toBe('volumesnapshot.snapshot.storage.k8s.io/snap-2 patched\n');
    const described = await kubectl(['describe', 'vs', 'snap-2'], { user: 'dev' });
    expect(described.stderr).toBe('');
    expect(described.stdout).toMatch(/^Name:\s+snap-2$/m);
    expect(described.stdout).toMatch(/Persistent Volume Claim Name:\s+data/);
    const del = await kubectl(['delete', 'vs', 'snap-2'], { user: 'dev' });
    expect(del.stderr).toBe('');
    expect(del.stdout).toBe('volumesnapshot.snapshot.storage.k8s.io "snap-2" deleted\n');
  });

  test('kubectl explain describes the three kinds from the served OpenAPI', async () => {
    const vs = await kubectl(['explain', 'volumesnapshot.spec.source']);
    expect(vs.stderr).toBe('');
    expect(vs.stdout).toContain('GROUP:      snapshot.storage.k8s.io');
    expect(vs.stdout).toContain('persistentVolumeClaimName\t<string>');
    expect(vs.stdout).toContain('volumeSnapshotContentName\t<string>');
    const vsc = await kubectl(['explain', 'vsc.spec']);
    expect(vsc.stderr).toBe('');
    for (const f of ['deletionPolicy', 'driver', 'source', 'sourceVolumeMode', 'volumeSnapshotClassName', 'volumeSnapshotRef']) expect(vsc.stdout).toContain(`${f}\t<`);
    const cls = await kubectl(['explain', 'volumesnapshotclass']);
    expect(cls.stderr).toBe('');
    expect(cls.stdout).toContain('KIND:       VolumeSnapshotClass');
    expect(cls.stdout).toContain('deletionPolicy\t<string>');
  });
});
