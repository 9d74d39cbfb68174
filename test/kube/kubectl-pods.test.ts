// kubectl and pods against a real Stowage API server: apply of a real Deployment-style pod
// manifest (unknown container fields kept), get pods with the upstream columns, describe
// pod, and `describe pvc` naming the pods that use the claim ("Used By").
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEV_NAMESPACE, findKubectl, kubectlSuite } from './harness';

const bin = findKubectl();
if (!bin) console.log('skipping kubectl pod tests: no kubectl on PATH (set KUBECTL to a binary to run them)');

const manifest = (f: string) => path.join(import.meta.dirname, 'manifests', f);
const cells = (line: string) => line.trim().split(/\s{2,}/);

describe.skipIf(!bin)('kubectl and pods', () => {
  const { h, kubectl, ok } = kubectlSuite(bin!);

  test('api-resources lists pods with its short name', async () => {
    const rows = (await ok(['api-resources'])).trim().split('\n').map(cells);
    expect(rows).toContainEqual(['pods', 'po', 'v1', 'true', 'Pod']);
  });

  test('a developer applies a Deployment-style pod manifest; every field is kept; a second apply is unchanged', async () => {
    const claim = readFileSync(manifest('claim.yaml'), 'utf8').replace('myclaim', 'web-data').replace(/ {2}selector:[\s\S]*$/, '');
    const claimFile = path.join(h().dir, 'web-data.yaml');
    writeFileSync(claimFile, claim);
    expect(await ok(['apply', '-f', claimFile], { user: 'dev' })).toBe('persistentvolumeclaim/web-data created\n');
    expect(await ok(['apply', '-f', manifest('pod.yaml')], { user: 'dev' })).toBe('pod/web-0 created\n');
    expect(await ok(['apply', '-f', manifest('pod.yaml')], { user: 'dev' })).toBe('pod/web-0 unchanged\n');

    const pod = JSON.parse(await ok(['get', 'pod', 'web-0', '-o', 'json'], { user: 'dev' }));
    expect(pod.metadata.namespace).toBe(DEV_NAMESPACE);
    expect(pod.spec.containers.map((c: any) => c.name)).toEqual(['nginx', 'sidecar']);
    expect(pod.spec.containers[0].readinessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(pod.spec.containers[0].env[1].valueFrom.fieldRef.fieldPath).toBe('metadata.name');
    expect(pod.spec.containers[0].resources.requests).toEqual({ cpu: '100m', memory: '128Mi' });
    expect(pod.spec.securityContext).toEqual({ runAsNonRoot: true, runAsUser: 1000, fsGroup: 2000 });
    expect(pod.spec.volumes[1].emptyDir).toEqual({ sizeLimit: '100Mi' });
    expect(pod.spec.initContainers[0].command).toEqual(['sh', '-c', 'chown -R 1000:2000 /data']);
    expect(pod.status.phase).toBe('Pending');

    const yaml = await ok(['get', 'pod', 'web-0', '-o', 'yaml'], { user: 'dev' });
    expect(yaml).toMatch(/^apiVersion: v1\nkind: Pod\n/);
    expect(yaml).toContain('claimName: web-data');

    // A changed image is one of the fields a pod update may change; a new volume is not.
    const changed = readFileSync(manifest('pod.yaml'), 'utf8').replace('nginx:1.27', 'nginx:1.28');
    const changedFile = path.join(h().dir, 'web-0.yaml');
    writeFileSync(changedFile, changed);
    expect(await ok(['apply', '-f', changedFile], { user: 'dev' })).toBe('pod/web-0 configured\n');
    writeFileSync(changedFile, changed.replace('sizeLimit: 100Mi', 'sizeLimit: 200Mi'));
    const refused = await kubectl(['apply', '-f', changedFile], { user: 'dev' });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`');
  });

  test('get pods prints NAME READY STATUS RESTARTS AGE, and IP NODE with -o wide', async () => {
    const rows = (await ok(['get', 'pods'], { user: 'dev' })).trim().split('\n');
    expect(cells(rows[0])).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(rows[1]).toMatch(/^web-0\s+0\/2\s+Pending\s+0\s+\d+s$/);
    const wide = (await ok(['get', 'po', '-o', 'wide'], { user: 'dev' })).trim().split('\n');
    expect(cells(wide[0])).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE']);
    expect(cells(wide[1]).slice(-2)).toEqual(['<none>', '<none>']);
    const forbidden = await kubectl(['get', 'pods', '-n', 'other'], { user: 'dev' });
    expect(forbidden.stderr).toContain('pods is forbidden: User "dev" cannot list resource "pods" in API group "" in the namespace "other"');
  });

  test('describe pvc names the pods that use the claim; describe pod shows its volumes', async () => {
    const d = await ok(['describe', 'pvc', 'web-data'], { user: 'dev' });
    expect(d).toMatch(/^Used By:\s+web-0$/m);
    const dp = await ok(['describe', 'pod', 'web-0'], { user: 'dev' });
    expect(dp).toMatch(/^Name:\s+web-0$/m);
    expect(dp).toMatch(/^Status:\s+Pending$/m);
    expect(dp).toMatch(/ClaimName:\s+web-data/);
  });

  test('deleting an in-use claim waits for its pod; deleting the pod lets it go', async () => {
    // In use means by a pod placed on a node (upstream counts only scheduled pods): web-1 is.
    const placed = readFileSync(manifest('pod.yaml'), 'utf8').replace('name: web-0', 'name: web-1').replace(/^spec:\n/m, 'spec:\n  nodeName: node-1\n');
    const placedFile = path.join(h().dir, 'web-1.yaml');
    writeFileSync(placedFile, placed);
    expect(await ok(['apply', '-f', placedFile], { user: 'dev' })).toBe('pod/web-1 created\n');
    const r = await kubectl(['delete', 'pvc', 'web-data', '--wait=false'], { user: 'dev' });
    expect(r.stdout).toBe('persistentvolumeclaim "web-data" deleted\n');
    const held = JSON.parse(await ok(['get', 'pvc', 'web-data', '-o', 'json'], { user: 'dev' }));
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    expect(held.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    expect((await ok(['get', 'pvc', 'web-data'], { user: 'dev' })).split('\n')[1]).toMatch(/^web-data\s+Terminating\s/);
    // web-0, never placed, does not hold it; web-1 does until it goes.
    const force = await kubectl(['delete', 'pod', 'web-1', '--grace-period=0', '--force'], { user: 'dev' });
    expect(force.code).toBe(0);
    expect(force.stdout).toContain('pod "web-1" force deleted');
    await ok(['wait', '--for=delete', 'pvc/web-data', '--timeout=20s'], { user: 'dev' });
    const gone = await kubectl(['get', 'pvc', 'web-data'], { user: 'dev' });
    expect(gone.stderr).toBe('Error from server (NotFound): persistentvolumeclaims "web-data" not found\n');
  });
});
