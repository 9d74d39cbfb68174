// kubectl (the one on PATH) against a real Stowage API server, as a person would use it.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEV_NAMESPACE, findKubectl, kubectlSuite, waitFor } from './harness';

const RECYCLE_WARNING =
  'Warning: spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.\n';

const bin = findKubectl();
if (!bin) console.log('skipping kubectl tests: no kubectl on PATH (set KUBECTL to a binary to run them)');

const manifests = path.join(import.meta.dirname, 'manifests');
const manifest = (f: string) => path.join(manifests, f);

/** Splits a kubectl table line into its cells (columns are separated by 2+ spaces). */
function cells(line: string): string[] {
  return line.trim().split(/\s{2,}/);
}

describe.skipIf(!bin)('kubectl', () => {
  // The manifest is upstream's nfs-pv example (Recycle): kubectl prints the server's warning.
  const { h, kubectl, ok } = kubectlSuite(bin!, { ignoreStderr: RECYCLE_WARNING });

  test('api-resources lists the kinds with their short names', async () => {
    const out = await ok(['api-resources']);
    const rows = out.trim().split('\n').map(cells);
    expect(rows[0]).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
    expect(rows).toContainEqual(['persistentvolumes', 'pv', 'v1', 'false', 'PersistentVolume']);
    expect(rows).toContainEqual(['persistentvolumeclaims', 'pvc', 'v1', 'true', 'PersistentVolumeClaim']);
    expect(rows).toContainEqual(['storageclasses', 'sc', 'storage.k8s.io/v1', 'false', 'StorageClass']);
    expect(rows).toContainEqual(['events', 'ev', 'v1', 'true', 'Event']);
    expect(rows).toContainEqual(['namespaces', 'ns', 'v1', 'false', 'Namespace']);
    expect(rows).toContainEqual(['nodes', 'no', 'v1', 'false', 'Node']);
  });

  test('create -f of real manifests; get pv, get pvc -A and get sc print the upstream columns', async () => {
    expect(await ok(['create', '-f', manifest('storage-class.yaml')])).toBe('storageclass.storage.k8s.io/slow created\n');
    const created = await kubectl(['create', '-f', manifest('nfs-pv.yaml')]);
    expect(created).toEqual({ code: 0, stdout: 'persistentvolume/pv0003 created\n', stderr: RECYCLE_WARNING });
    expect(await ok(['create', '-f', manifest('local-pv.yaml')])).toBe('persistentvolume/example-local-pv created\n');
    expect(await ok(['create', '-f', manifest('claim.yaml')])).toBe('persistentvolumeclaim/myclaim created\n');

    const pv = (await ok(['get', 'pv'])).trim().split('\n');
    expect(cells(pv[0]).slice(0, 7)).toEqual(['NAME', 'CAPACITY', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS']);
    expect(pv[0]).toMatch(/REASON\s+AGE$/);
    expect(pv[1]).toMatch(/^example-local-pv\s+100Gi\s+RWO\s+Delete\s+Pending\s+local-storage\s+\d+s$/);
    expect(pv[2]).toMatch(/^pv0003\s+5Gi\s+RWO\s+Recycle\s+Pending\s+slow\s+\d+s$/);

    const pvc = (await ok(['get', 'pvc', '-A'])).trim().split('\n');
    expect(cells(pvc[0])).toEqual(['NAMESPACE', 'NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS', 'AGE']);
    expect(pvc[1]).toMatch(/^team-a\s+myclaim\s+Pending\s+slow\s+\d+s$/);

    const sc = (await ok(['get', 'sc'])).trim().split('\n');
    expect(cells(sc[0])).toEqual(['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
    expect(cells(sc[1]).slice(0, 5)).toEqual(['slow (default)', 'example.com/external-nfs', 'Retain', 'WaitForFirstConsumer', 'true']);

    const wide = (await ok(['get', 'pv', 'pv0003', '-o', 'wide'])).trim().split('\n');
    expect(cells(wide[0]).at(-1)).toBe('VOLUMEMODE');
    expect(cells(wide[1]).at(-1)).toBe('Filesystem');
  });

  test('get -o yaml and -o jsonpath', async () => {
    const yaml = await ok(['get', 'pv', 'pv0003', '-o', 'yaml']);
    expect(yaml).toMatch(/^apiVersion: v1\nkind: PersistentVolume\nmetadata:\n/);
    expect(yaml).toContain('  nfs:\n    path: /tmp\n    server: 172.17.0.2\n');
    expect(yaml).toMatch(/resourceVersion: "\d+"/);
    expect(await ok(['get', 'pv', '-o', 'jsonpath={.items[*].metadata.name}'])).toBe('example-local-pv pv0003');
    expect(await ok(['get', 'pvc', 'myclaim', '-n', DEV_NAMESPACE, '-o', 'jsonpath={.spec.resources.requests.storage}'])).toBe('8Gi');
    expect(await ok(['get', 'pv', '-l', 'tier=gold', '-o', 'name'])).toBe('persistentvolume/pv0003\n');
  });

  test('apply twice prints unchanged; after an edit, configured', async () => {
    const file = path.join(h().dir, 'apply-pv.yaml');
    writeFileSync(file, readFileSync(manifest('nfs-pv.yaml'), 'utf8').replace('pv0003', 'applied-pv'));
    expect(await ok(['apply', '-f', file])).toBe('persistentvolume/applied-pv created\n');
    expect(await ok(['apply', '-f', file])).toBe('persistentvolume/applied-pv unchanged\n');
    writeFileSync(file, readFileSync(file, 'utf8').replace('tier: gold', 'tier: silver').replace('- hard\n', ''));
    expect(await ok(['apply', '-f', file])).toBe('persistentvolume/applied-pv configured\n');
    const pv = JSON.parse(await ok(['get', 'pv', 'applied-pv', '-o', 'json']));
    expect(pv.metadata.labels).toEqual({ tier: 'silver' });
    expect(pv.spec.mountOptions).toEqual(['nfsvers=4.1']);
    const last = JSON.parse(pv.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
    expect(last.metadata.labels).toEqual({ tier: 'silver' });
    expect(await ok(['apply', '-f', file])).toBe('persistentvolume/applied-pv unchanged\n');
    expect(await ok(['apply', '-f', file, '--dry-run=server'])).toBe('persistentvolume/applied-pv unchanged (server dry run)\n');
  });

  test('patch with each of the three types; a patch that changes nothing keeps the resourceVersion', async () => {
    expect(await ok(['patch', 'pv', 'pv0003', '--type', 'json', '-p', '[{"op":"add","path":"/metadata/labels/speed","value":"fast"}]'])).toBe(
      'persistentvolume/pv0003 patched\n',
    );
    await ok(['patch', 'pv', 'pv0003', '--type', 'merge', '-p', '{"spec":{"persistentVolumeReclaimPolicy":"Retain"}}']);
    await ok(['patch', 'pv', 'pv0003', '--type', 'strategic', '-p', '{"metadata":{"finalizers":["example.com/a"]}}']);
    await ok(['patch', 'pv', 'pv0003', '-p', '{"metadata":{"finalizers":["example.com/b"]}}']);
    const pv = JSON.parse(await ok(['get', 'pv', 'pv0003', '-o', 'json']));
    expect(pv.metadata.labels).toEqual({ tier: 'gold', speed: 'fast' });
    expect(pv.spec.persistentVolumeReclaimPolicy).toBe('Retain');
    // kubernetes.io/pv-protection came with the volume's creation (admission).
    expect(pv.metadata.finalizers).toEqual(['example.com/b', 'example.com/a', 'kubernetes.io/pv-protection']);
    expect(await ok(['patch', 'pv', 'pv0003', '--type', 'merge', '-p', '{"metadata":{"labels":{"speed":"fast"}}}'])).toBe(
      'persistentvolume/pv0003 patched (no change)\n',
    );
    const after = JSON.parse(await ok(['get', 'pv', 'pv0003', '-o', 'json']));
    expect(after.metadata.resourceVersion).toBe(pv.metadata.resourceVersion);
    await ok(['patch', 'pv', 'pv0003', '--type', 'json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
  });

  test('edit with an EDITOR script', async () => {
    const editor = path.join(h().dir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/tier: gold/tier: platinum/" "$1"\n');
    chmodSync(editor, 0o755);
    expect(await ok(['edit', 'pv', 'pv0003'], { env: { EDITOR: editor, KUBE_EDITOR: editor } })).toBe('persistentvolume/pv0003 edited\n');
    expect(await ok(['get', 'pv', 'pv0003', '-o', 'jsonpath={.metadata.labels.tier}'])).toBe('platinum');
  });

  test('delete returns once the object is gone, also when a finalizer holds it for a while', async () => {
    const file = path.join(h().dir, 'gone-pv.yaml');
    writeFileSync(file, readFileSync(manifest('nfs-pv.yaml'), 'utf8').replace('pv0003', 'gone-pv'));
    await ok(['create', '-f', file]);
    expect(await ok(['delete', 'pv', 'gone-pv'])).toBe('persistentvolume "gone-pv" deleted\n');
    await expect(h().app.objects.get(await admin(), 'PersistentVolume', undefined, 'gone-pv')).rejects.toThrow(/not found/);

    await ok(['create', '-f', file]);
    await ok(['patch', 'pv', 'gone-pv', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}']);
    const child = kubectl.spawn(['delete', 'pv', 'gone-pv', '--timeout=20s']);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await waitFor(async () => (await h().app.objects.get(await admin(), 'PersistentVolume', undefined, 'gone-pv')).metadata.deletionTimestamp, 'the deletionTimestamp');
    expect(child.exitCode).toBeNull();
    await ok(['patch', 'pv', 'gone-pv', '--type', 'json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    expect(await exited).toBe(0);
    expect(out).toBe('persistentvolume "gone-pv" deleted\n');
  });

  test('get pv -w prints changes as they happen', async () => {
    const file = path.join(h().dir, 'watched-pv.yaml');
    const pvYaml = readFileSync(manifest('nfs-pv.yaml'), 'utf8').replace('tier: gold', 'watch: me');
    writeFileSync(file, pvYaml.replace('pv0003', 'watched-1'));
    await ok(['create', '-f', file]);
    const child = kubectl.spawn(['get', 'pv', '-w', '-l', 'watch=me']);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const lines = (name: string) => out.split('\n').filter((l) => l.startsWith(`${name} `));
    try {
      await waitFor(() => /^NAME\s+CAPACITY/.test(out) && lines('watched-1').length === 1, 'the listed state');
      writeFileSync(file, pvYaml.replace('pv0003', 'watched-2'));
      await ok(['create', '-f', file]);
      await waitFor(() => lines('watched-2').some((l) => /watched-2\s+5Gi\s+RWO\s+Recycle\s+Pending/.test(l)), 'the ADDED line');
      await ok(['patch', 'pv', 'watched-2', '--type', 'merge', '-p', '{"spec":{"persistentVolumeReclaimPolicy":"Retain"}}']);
      await waitFor(() => lines('watched-2').some((l) => /watched-2\s+5Gi\s+RWO\s+Retain\s+Pending/.test(l)), 'the MODIFIED line');
      await ok(['delete', 'pv', 'watched-2', 'watched-1']);
      // Each delete is two changes: the deletionTimestamp (pv-protection holds the volume), then the removal.
      await waitFor(() => lines('watched-2').length === 4 && lines('watched-1').length === 3, 'the DELETED lines');
      expect(out.split('\n').filter((l) => l.startsWith('NAME')).length).toBe(1);
    } finally {
      child.kill();
    }
  });

  test('describe pv and describe pvc show their events', async () => {
    const p = await admin();
    const pv = await h().app.objects.get(p, 'PersistentVolume', undefined, 'pv0003');
    const pvc = await h().app.objects.get(p, 'PersistentVolumeClaim', DEV_NAMESPACE, 'myclaim');
    const event = (ns: string, name: string, obj: typeof pv, reason: string, message: string, type = 'Normal') => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: ns },
      involvedObject: { apiVersion: 'v1', kind: obj.kind, name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid },
      reason,
      message,
      type,
      source: { component: 'stowage-test' },
      firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      count: 1,
    });
    await h().app.objects.create(p, event('default', 'pv0003.1', pv, 'VolumeChecked', 'the volume answered'));
    await h().app.objects.create(p, event(DEV_NAMESPACE, 'myclaim.1', pvc, 'ProvisioningFailed', 'no provisioner for class slow', 'Warning'));
    const dpv = await ok(['describe', 'pv', 'pv0003']);
    expect(dpv).toMatch(/^Name:\s+pv0003$/m);
    expect(dpv).toMatch(/^Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message\n/m);
    expect(dpv).toMatch(/Normal\s+VolumeChecked\s+\S+\s+stowage-test\s+the volume answered/);
    const dpvc = await ok(['describe', 'pvc', 'myclaim', '-n', DEV_NAMESPACE]);
    expect(dpvc).toMatch(/^Namespace:\s+team-a$/m);
    expect(dpvc).toMatch(/^Used By:\s+<none>$/m);
    expect(dpvc).toMatch(/Warning\s+ProvisioningFailed\s+\S+\s+stowage-test\s+no provisioner for class slow/);
  });

  test('errors print as they do against Kubernetes', async () => {
    const nf = await kubectl(['get', 'pv', 'nope']);
    expect(nf.code).toBe(1);
    expect(nf.stderr).toBe('Error from server (NotFound): persistentvolumes "nope" not found\n');
    const scNotFound = await kubectl(['get', 'sc', 'nope']);
    expect(scNotFound.stderr).toBe('Error from server (NotFound): storageclasses.storage.k8s.io "nope" not found\n');
    const badSelector = await kubectl(['get', 'pv', '--field-selector', 'spec.capacity=1Gi']);
    expect(badSelector.code).toBe(1);
    expect(badSelector.stderr).toBe(
      'Error from server (BadRequest): Unable to find "/v1, Resource=persistentvolumes" that match label selector "", field selector "spec.capacity=1Gi": "spec.capacity" is not a known field selector: only "metadata.name", "metadata.namespace"\n',
    );
    const badQuantity = await kubectl(['create', '-f', '-'], {
      input: 'apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: bad-size\nspec:\n  accessModes: [ReadWriteOnce]\n  capacity:\n    storage: 250MB\n  hostPath:\n    path: /tmp/x\n',
    });
    expect(badQuantity.code).toBe(1);
    expect(badQuantity.stderr).toBe(
      `Error from server (BadRequest): error when creating "STDIN": PersistentVolume in version "v1" cannot be handled as a PersistentVolume: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\n`,
    );

    const exists = await kubectl(['create', '-f', manifest('nfs-pv.yaml')]);
    // Upstream records the strategy's warnings before the store refuses the name.
    expect(exists.stderr).toBe(`${RECYCLE_WARNING}Error from server (AlreadyExists): error when creating "${manifest('nfs-pv.yaml')}": persistentvolumes "pv0003" already exists\n`);

    const stale = path.join(h().dir, 'stale.yaml');
    writeFileSync(stale, await ok(['get', 'pv', 'pv0003', '-o', 'yaml']));
    await ok(['label', 'pv', 'pv0003', 'bump=1']);
    const conflict = await kubectl(['replace', '-f', stale]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(/^Error from server \(Conflict\): error when replacing ".*stale.yaml": Operation cannot be fulfilled on persistentvolumes "pv0003": the object has been modified; please apply your changes to the latest version and try again\n$/);

    const invalid = await kubectl(['create', '-f', '-'], {
      input: 'apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: bad\nspec:\n  accessModes: [ReadWriteOnce]\n  capacity:\n    storage: 10Gi\n',
    });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toBe('The PersistentVolume "bad" is invalid: spec: Required value: must specify a volume type\n');

    const unknown = await kubectl(['create', '-f', '-'], {
      input: 'apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: bad\nspec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce]\n  hostPath: {path: /x}\n  speed: fast\n',
    });
    expect(unknown.stderr).toBe(
      'Error from server (BadRequest): error when creating "STDIN": PersistentVolume in version "v1" cannot be handled as a PersistentVolume: strict decoding error: unknown field "spec.speed"\n',
    );

    const forbidden = await kubectl(['get', 'pv', 'pv0003'], { user: 'dev' });
    expect(forbidden.stderr).toBe(
      'Error from server (Forbidden): persistentvolumes "pv0003" is forbidden: User "dev" cannot get resource "persistentvolumes" in API group "" at the cluster scope\n',
    );
    const forbiddenList = await kubectl(['get', 'pv'], { user: 'dev' });
    expect(forbiddenList.stderr).toMatch(/^Error from server \(Forbidden\): persistentvolumes is forbidden: User "dev" cannot list resource "persistentvolumes"/);
    const forbiddenDelete = await kubectl(['delete', 'pv', 'pv0003'], { user: 'dev' });
    expect(forbiddenDelete.stderr).toMatch(/^Error from server \(Forbidden\): persistentvolumes "pv0003" is forbidden: User "dev" cannot delete/);
  });

  test('--dry-run=server validates and creates nothing', async () => {
    const file = path.join(h().dir, 'dry.yaml');
    writeFileSync(file, readFileSync(manifest('nfs-pv.yaml'), 'utf8').replace('pv0003', 'dry-pv'));
    expect(await ok(['create', '-f', file, '--dry-run=server'])).toBe('persistentvolume/dry-pv created (server dry run)\n');
    const r = await kubectl(['get', 'pv', 'dry-pv']);
    expect(r.stderr).toBe('Error from server (NotFound): persistentvolumes "dry-pv" not found\n');
  });

  test('a developer works in their namespace and sees nothing of others', async () => {
    expect(await ok(['get', 'pvc'], { user: 'dev' })).toMatch(/^NAME\s+STATUS.*\nmyclaim\s+Pending/);
    const claim = readFileSync(manifest('claim.yaml'), 'utf8').replace('myclaim', 'devclaim');
    expect(await ok(['apply', '-f', '-'], { user: 'dev', input: claim })).toBe('persistentvolumeclaim/devclaim created\n');
    const other = await kubectl(['get', 'pvc', '-n', 'other'], { user: 'dev' });
    expect(other.stderr).toMatch(/^Error from server \(Forbidden\): persistentvolumeclaims is forbidden: User "dev" cannot list resource "persistentvolumeclaims" in API group "" in the namespace "other"/);
    expect(await ok(['delete', 'pvc', 'devclaim'], { user: 'dev' })).toBe('persistentvolumeclaim "devclaim" deleted\n');
  });

  async function admin() {
    return (await h().app.users.byName('admin'))!;
  }
});
