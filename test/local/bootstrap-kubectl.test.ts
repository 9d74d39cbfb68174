// `kubectl apply --dry-run=client -f` accepts what `stowage bootstrap` prints. kubectl needs
// an API server for discovery even in client dry run; a small discovery-only server on
// 127.0.0.1 answers for the kinds the manifests use (and 404 for every object: nothing
// exists yet). Skips with the reason when kubectl is not installed.
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDiscoveryStub, type DiscoveryGroups, type DiscoveryStub } from '../kube/discovery-stub';

const run = promisify(execFile);
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
const haveKubectl = kubectl.status === 0;
if (!haveKubectl) console.log('[skip] bootstrap manifests with kubectl: kubectl is not on PATH');

const groups: DiscoveryGroups = {
  '/api/v1': [
    { name: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true },
    { name: 'configmaps', kind: 'ConfigMap', namespaced: true },
    { name: 'namespaces', kind: 'Namespace', namespaced: false },
  ],
  '/apis/apps/v1': [{ name: 'daemonsets', kind: 'DaemonSet', namespaced: true }],
  '/apis/rbac.authorization.k8s.io/v1': [
    { name: 'clusterroles', kind: 'ClusterRole', namespaced: false },
    { name: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false },
    { name: 'roles', kind: 'Role', namespaced: true },
    { name: 'rolebindings', kind: 'RoleBinding', namespaced: true },
  ],
};

let stub: DiscoveryStub;
let dir: string;
let kubeconfig: string;

beforeAll(async () => {
  stub = await startDiscoveryStub(groups, 'stowage-bootstrap-');
  ({ dir, kubeconfig } = stub);
});
afterAll(async () => {
  await stub?.close();
});

describe.runIf(haveKubectl)('stowage bootstrap output and kubectl', () => {
  it('kubectl apply --dry-run=client accepts every object', async () => {
    const scm = path.join(dir, 'config.yaml');
    await fs.writeFile(
      scm,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local-volume-config\n  namespace: kube-system\ndata:\n  storageClassMap: |\n    fast-disks:\n      hostDir: /mnt/fast-disks\n    slow-disks:\n      hostDir: /mnt/slow\n      blockCleanerCommand: ["dd-zero", "2"]\n',
    );
    const out = path.join(dir, 'out');
    const cli = await run(process.execPath, ['bin/stowage.mjs', 'bootstrap', scm, '--server', 'https://stowage.example:8443', '--node', 'node-a', '--out', out]);
    expect(cli.stdout).toContain('manifests.yaml');
    expect(JSON.parse(await fs.readFile(path.join(out, 'nodes', 'node-a.json'), 'utf8'))).toMatchObject({ nodeName: 'node-a' });

    // --validate=false: this discovery-only server publishes no OpenAPI schema to validate against.
    const { stdout, stderr } = await run('kubectl', ['--kubeconfig', kubeconfig, 'apply', '--dry-run=client', '--validate=false', '-f', path.join(out, 'manifests.yaml')]);
    expect(stderr.trim()).toBe('');
    expect(stdout.trim().split('\n').sort()).toEqual(
      [
        'clusterrole.rbac.authorization.k8s.io/local-storage-admin-node-reader created (dry run)',
        'clusterrolebinding.rbac.authorization.k8s.io/local-storage-admin-node-reader created (dry run)',
        'configmap/local-volume-config created (dry run)',
        'daemonset.apps/stowage-agent created (dry run)',
        'role.rbac.authorization.k8s.io/local-storage-admin-config-reader created (dry run)',
        'rolebinding.rbac.authorization.k8s.io/local-storage-admin-config-reader created (dry run)',
        'serviceaccount/local-storage-admin created (dry run)',
      ].sort(),
    );
    // Client dry run: kubectl only read (discovery and the objects), it wrote nothing.
    expect(stub.requests.filter((r) => !r.startsWith('GET '))).toEqual([]);
  });

  it('a malformed storageClassMap is refused with the field named', async () => {
    const bad = path.join(dir, 'bad.yaml');
    await fs.writeFile(bad, 'fast:\n  hostDir: relative/path\n');
    const r = await run(process.execPath, ['bin/stowage.mjs', 'bootstrap', bad, '--server', 'https://s:1']).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('storageClassMap.fast.hostDir: must be an absolute path');
  });
});
