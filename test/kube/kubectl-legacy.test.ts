// An old kubectl (Debian's 1.20, which predates server-side field validation and the
// OpenAPI v3 document) against Stowage: it must work from the v2 protobuf document alone,
// including `kubectl explain` and its client-side validation from the definitions.
// Get it with `apt-get download kubernetes-client && dpkg-deb -x kubernetes-client_*.deb /opt/kubectl-1.20`,
// or point KUBECTL_1_20 at any kubectl binary of that age.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { kubectlSuite, waitFor } from './harness';

const RECYCLE_WARNING =
  'Warning: spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.\n';

const candidates = [process.env.KUBECTL_1_20, '/opt/kubectl-1.20/usr/bin/kubectl'].filter((p): p is string => !!p);
const bin = candidates.find((p) => existsSync(p));
if (!bin) console.log(`skipping kubectl 1.20 tests: none of ${candidates.join(', ')} exists (see the comment in ${path.basename(import.meta.filename)})`);

const manifest = (f: string) => path.join(import.meta.dirname, 'manifests', f);

describe.skipIf(!bin)('kubectl 1.20', () => {
  const { h, kubectl } = kubectlSuite(bin!);

  async function ok(args: string[], input?: string): Promise<string> {
    const r = await kubectl(args, { input });
    // The manifest is upstream's nfs-pv example (Recycle): kubectl prints the server's warning.
    expect(r.stderr.replace(RECYCLE_WARNING, ''), `kubectl ${args.join(' ')}`).toBe('');
    expect(r.code).toBe(0);
    return r.stdout;
  }

  test('api-resources, create -f and get with the upstream columns', async () => {
    expect(await ok(['api-resources'])).toMatch(/^persistentvolumes\s+pv\s+v1\s+false\s+PersistentVolume$/m);
    await ok(['create', '-f', manifest('storage-class.yaml')]);
    const created = await kubectl(['create', '-f', manifest('nfs-pv.yaml')]);
    expect(created).toEqual({ code: 0, stdout: 'persistentvolume/pv0003 created\n', stderr: RECYCLE_WARNING });
    expect(await ok(['create', '-f', manifest('claim.yaml')])).toBe('persistentvolumeclaim/myclaim created\n');
    expect(await ok(['get', 'pv'])).toMatch(/^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+REASON\s+AGE\npv0003\s+5Gi\s+RWO\s+Recycle\s+Pending\s+slow\s+\d+s\n$/);
    expect(await ok(['get', 'pvc', '-A'])).toMatch(/^NAMESPACE\s+NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+AGE\nteam-a\s+myclaim\s+Pending\s+slow\s+\d+s\n$/);
    expect(await ok(['get', 'sc'])).toMatch(/^slow \(default\)\s+example.com\/external-nfs\s+Retain\s+WaitForFirstConsumer\s+true\s+\d+s$/m);
  });

  test('apply round-trips; patch of each type; server dry run', async () => {
    const file = path.join(h().dir, 'legacy-pv.yaml');
    writeFileSync(file, readFileSync(manifest('nfs-pv.yaml'), 'utf8').replace('pv0003', 'legacy-pv'));
    expect(await ok(['apply', '-f', file])).toBe('persistentvolume/legacy-pv created\n');
    expect(await ok(['apply', '-f', file])).toBe('persistentvolume/legacy-pv unchanged\n');
    writeFileSync(file, readFileSync(file, 'utf8').replace('tier: gold', 'tier: bronze'));
    expect(await ok(['apply', '-f', file, '--dry-run=server'])).toBe('persistentvolume/legacy-pv configured (server dry run)\n');
    expect(await ok(['get', 'pv', 'legacy-pv', '-o', 'jsonpath={.metadata.labels.tier}'])).toBe('gold');
    expect(await ok(['apply', '-f', file])).toBe('persistentvolume/legacy-pv configured\n');
    await ok(['patch', 'pv', 'legacy-pv', '--type', 'json', '-p', '[{"op":"add","path":"/metadata/labels/a","value":"1"}]']);
    await ok(['patch', 'pv', 'legacy-pv', '--type', 'merge', '-p', '{"metadata":{"labels":{"b":"2"}}}']);
    await ok(['patch', 'pv', 'legacy-pv', '-p', '{"metadata":{"labels":{"c":"3"}}}']);
    expect(JSON.parse(await ok(['get', 'pv', 'legacy-pv', '-o', 'jsonpath={.metadata.labels}']))).toEqual({ tier: 'bronze', a: '1', b: '2', c: '3' });
  });

  test('explain pv and explain pvc.spec read the definitions of the v2 document', async () => {
    const pv = await ok(['explain', 'pv']);
    expect(pv).toMatch(/^KIND:\s+PersistentVolume\nVERSION:\s+v1\n/);
    expect(pv).toContain('A piece of storage in the cluster');
    expect(pv).toMatch(/^ {3}spec\t<Object>$/m);
    const spec = await ok(['explain', 'pvc.spec']);
    expect(spec).toMatch(/^RESOURCE:\s+spec <Object>$/m);
    for (const field of ['accessModes\t<[]string>', 'resources\t<Object>', 'storageClassName\t<string>', 'volumeName\t<string>']) expect(spec).toContain(`   ${field}\n`);
    expect(spec).toContain('The class to bind or provision from; the default class when left out.');
    const nested = await ok(['explain', 'sc.allowedTopologies.matchLabelExpressions']);
    expect(nested).toMatch(/^ {3}key\t<string>$/m);
  });

  test('manifests are validated against the definitions before they are sent', async () => {
    const file = path.join(h().dir, 'typo-pv.yaml');
    writeFileSync(file, readFileSync(manifest('nfs-pv.yaml'), 'utf8').replace('pv0003', 'typo-pv').replace('  accessModes:', '  acessModes:'));
    const r = await kubectl(['create', '-f', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('unknown field "acessModes"');
    // The pod manifest's fields Stowage does not model (ports, env, probes ...) pass.
    expect(await ok(['create', '-n', 'team-a', '-f', manifest('pod.yaml'), '--dry-run=server'])).toBe('pod/web-0 created (server dry run)\n');
  });

  test('create namespace (1.20 sends JSON, unlike 1.32); auth can-i answers from the roles', async () => {
    expect(await ok(['create', 'namespace', 'legacy-ns'])).toBe('namespace/legacy-ns created\n');
    expect(await ok(['get', 'ns', 'legacy-ns', '-o', 'jsonpath={.status.phase}'])).toBe('Active');
    expect((await kubectl(['auth', 'can-i', 'create', 'pv'])).stdout).toBe('yes\n');
    const no = await kubectl(['auth', 'can-i', 'create', 'pv'], { user: 'dev' });
    expect(no.code).toBe(1);
    expect(no.stdout).toMatch(/^no\b/);
  });

  test('get -w and errors', async () => {
    const child = kubectl.spawn(['get', 'pv', 'legacy-pv', '-w']);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    try {
      await waitFor(() => out.includes('legacy-pv'), 'the listed row');
      await ok(['patch', 'pv', 'legacy-pv', '--type', 'merge', '-p', '{"spec":{"persistentVolumeReclaimPolicy":"Retain"}}']);
      await waitFor(() => /legacy-pv\s+5Gi\s+RWO\s+Retain/.test(out), 'the change');
    } finally {
      child.kill();
    }
    const nf = await kubectl(['get', 'pv', 'nope']);
    expect(nf.stderr).toBe('Error from server (NotFound): persistentvolumes "nope" not found\n');
    const forbidden = await kubectl(['get', 'pv'], { user: 'dev' });
    expect(forbidden.stderr).toMatch(/^Error from server \(Forbidden\): persistentvolumes is forbidden/);
  });
});
