// `kubectl delete namespace` as upstream: the namespace turns Terminating, kubectl waits
// while the namespace controller deletes its claims and pods, and ends once it is gone;
// creates in a Terminating namespace are refused with upstream's message; default may not
// be deleted.
import { describe, expect, test } from 'vitest';
import { findKubectl, kubectlSuite } from './harness';

const bin = findKubectl();
if (!bin) console.log('skipping kubectl namespace tests: no kubectl on PATH (set KUBECTL to a binary to run them)');

const content = (ns: string) => `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: ${ns}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: app, namespace: ${ns}}
spec:
  nodeName: node-1
  containers: [{name: c, image: busybox}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: ${ns}}
data: {a: b}
---
apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshot
metadata: {name: snap, namespace: ${ns}}
spec:
  source: {persistentVolumeClaimName: data}
`;

describe.skipIf(!bin)('kubectl and namespace deletion', () => {
  const { h, kubectl, ok } = kubectlSuite(bin!);

  test('kubectl delete ns waits until the namespace and everything in it are gone', async () => {
    expect(await ok(['create', 'namespace', 'shop'])).toBe('namespace/shop created\n');
    expect(await ok(['apply', '-f', '-'], { input: content('shop') })).toBe('persistentvolumeclaim/data created\npod/app created\nconfigmap/cfg created\nvolumesnapshot.snapshot.storage.k8s.io/snap created\n');
    expect(JSON.parse(await ok(['get', 'ns', 'shop', '-o', 'json'])).spec).toEqual({ finalizers: ['kubernetes'] });

    const r = await kubectl(['delete', 'namespace', 'shop', '--timeout=30s']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('namespace "shop" deleted\n');
    expect(r.code).toBe(0);
    const gone = await kubectl(['get', 'namespace', 'shop']);
    expect(gone.stderr).toContain('namespaces "shop" not found');
    for (const kind of ['PersistentVolumeClaim', 'Pod', 'ConfigMap', 'VolumeSnapshot', 'Event']) {
      expect((await h().ts.store.list(kind, { namespace: 'shop' })).items).toEqual([]);
    }
  });

  test('a create in a Terminating namespace is refused with upstream\'s message', async () => {
    expect(await ok(['create', 'namespace', 'closing'])).toBe('namespace/closing created\n');
    // A finalizer of someone else's keeps it Terminating after the controller is done.
    await h().ts.store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', namespace: 'closing', finalizers: ['example.com/hold'] }, data: {} });
    expect(await ok(['delete', 'namespace', 'closing', '--wait=false'])).toBe('namespace "closing" deleted\n');
    const row = (await ok(['get', 'namespace', 'closing', '--no-headers'])).trim().split(/\s+/);
    expect(row.slice(0, 2)).toEqual(['closing', 'Terminating']);
    const r = await kubectl(['create', 'configmap', 'late', '-n', 'closing', '--from-literal=a=b']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('configmaps "late" is forbidden: unable to create new content in namespace closing because it is being terminated');
    const d = await ok(['describe', 'namespace', 'closing']);
    expect(d).toMatch(/^Status:\s+Terminating$/m);
    expect(d).toContain('Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances');

    // The finalize subresource (the known way out of a stuck namespace): only spec.finalizers change, and with none left it goes.
    const finalize = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'closing', labels: { ignored: 'yes' } }, spec: { finalizers: [] } });
    const answer = JSON.parse(await ok(['replace', '--raw', '/api/v1/namespaces/closing/finalize', '-f', '-'], { input: finalize }));
    expect(answer.spec).toEqual({ finalizers: [] });
    expect(answer.metadata.labels.ignored).toBeUndefined();
    expect((await kubectl(['get', 'namespace', 'closing'])).stderr).toContain('namespaces "closing" not found');
  });

  test('the default namespace may not be deleted', async () => {
    const r = await kubectl(['delete', 'namespace', 'default']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('namespaces "default" is forbidden: this namespace may not be deleted');
  });
});
