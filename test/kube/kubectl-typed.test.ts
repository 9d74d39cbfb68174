// kubectl's typed commands: they send protobuf bodies (`create namespace`), and
// `auth can-i` / `auth whoami` answer from Stowage's roles through SelfSubjectAccessReview
// and SelfSubjectReview (nothing is stored).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiClient } from './api-client';
import { DEV_NAMESPACE, findKubectl, kubectlFor, startKubeHarness, type Kubectl, type KubeHarness } from './harness';

const bin = findKubectl();
if (!bin) console.log('skipping kubectl auth tests: no kubectl on PATH (set KUBECTL to a binary to run them)');

let h: KubeHarness;

beforeAll(async () => {
  h = await startKubeHarness();
});
afterAll(async () => {
  await h?.close();
});

function post(path: string, token: 'admin' | 'dev', body: unknown) {
  return apiClient(h)({ method: 'POST', path, token, body: body as object });
}

describe('SelfSubjectAccessReview over HTTP', () => {
  test.each([
    { user: 'admin', verb: 'delete', resource: 'persistentvolumes', namespace: '', allowed: true },
    { user: 'dev', verb: 'get', resource: 'persistentvolumes', namespace: '', allowed: false },
    { user: 'dev', verb: 'create', resource: 'persistentvolumeclaims', namespace: DEV_NAMESPACE, allowed: true },
    { user: 'dev', verb: 'create', resource: 'persistentvolumeclaims', namespace: 'kube-system', allowed: false },
  ])('$user $verb $resource in "$namespace" -> $allowed', async ({ user, verb, resource, namespace, allowed }) => {
        const r = await post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', user as 'admin' | 'dev', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb, resource, namespace } },
    });
    expect(r.status).toBe(201);
    expect(r.json.kind).toBe('SelfSubjectAccessReview');
    expect(r.json.status.allowed).toBe(allowed);
  });

  test('a review with neither attribute set is Invalid (422), and GET is not allowed', async () => {
    const r = await post('/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', 'dev', { spec: {} });
    expect(r.status).toBe(422);
    expect(r.json.kind).toBe('Status');
    const g = await apiClient(h)({ path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', token: 'dev' });
    expect(g.status).toBe(405);
  });
});

describe.skipIf(!bin)('kubectl auth', () => {
  let kubectl: Kubectl;
  beforeAll(() => {
    kubectl = kubectlFor(h, bin!);
  });

  test.each([
    { user: 'admin' as const, args: ['create', 'pv'], answer: 'yes' },
    { user: 'dev' as const, args: ['create', 'pv'], answer: 'no' },
    { user: 'dev' as const, args: ['create', 'pvc', '-n', DEV_NAMESPACE], answer: 'yes' },
    { user: 'dev' as const, args: ['delete', 'pvc', '-n', 'other'], answer: 'no' },
    { user: 'dev' as const, args: ['list', 'storageclasses'], answer: 'yes' },
  ])('$user: auth can-i $args -> $answer', async ({ user, args, answer }) => {
    const r = await kubectl(['auth', 'can-i', ...args], { user });
    // kubectl prints the review's reason after a "no".
    expect(r.stdout.trim().split(' - ')[0]).toBe(answer);
    expect(r.code).toBe(answer === 'yes' ? 0 : 1);
  });

  test('create namespace (a protobuf body) creates it; a second time says AlreadyExists', async () => {
    const r = await kubectl(['create', 'namespace', 'team-proto']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('namespace/team-proto created\n');
    expect((await h.ts.store.get('Namespace', undefined, 'team-proto')).metadata.name).toBe('team-proto');
    const again = await kubectl(['create', 'namespace', 'team-proto']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('AlreadyExists');
  });

  test.each([
    { args: ['create', 'namespace', 'team-pb'], out: 'namespace/team-pb created\n', code: 201 },
    { args: ['create', 'configmap', 'cm-pb', '-n', 'team-pb', '--from-literal=a=b'], out: 'configmap/cm-pb created\n', code: 201 },
    { args: ['create', 'secret', 'generic', 's-pb', '-n', 'team-pb', '--from-literal=a=b'], out: 'secret/s-pb created\n', code: 201 },
    { args: ['auth', 'can-i', 'create', 'pv'], out: 'yes\n', code: 201 },
    { args: ['create', 'namespace', 'team-pb'], out: '', code: 409 },
  ])('kubectl $args reads a protobuf answer ($code)', async ({ args, out, code }) => {
    const r = await kubectl([...args, '-v=8']);
    expect(r.stdout).toBe(out);
    // kubectl asks for protobuf first, and logs the answer's content type.
    expect(r.stderr).toContain('Accept: application/vnd.kubernetes.protobuf,application/json');
    const answer = r.stderr.slice(r.stderr.lastIndexOf('Response Status:'));
    expect(answer).toMatch(new RegExp(`^Response Status: ${code} `));
    expect(answer).toMatch(/Content-Type: application\/vnd\.kubernetes\.protobuf\n/);
    if (code === 409) expect(r.stderr).toContain('Error from server (AlreadyExists): namespaces "team-pb" already exists');
  });

  test('kubectl describe reads the volume, its claim and their events as protobuf', async () => {
    await h.ts.store.create({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pb-described', labels: { tier: 'gold' } }, spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Delete', nfs: { server: 'nfs.example.com', path: '/export' } } });
    const pv = await h.ts.store.get('PersistentVolume', undefined, 'pb-described');
    await h.ts.store.create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'pb-described.1', namespace: 'default' },
      involvedObject: { kind: 'PersistentVolume', name: 'pb-described', uid: pv.metadata.uid, apiVersion: 'v1' },
      reason: 'VolumeFailedDelete',
      message: 'no volume plugin matched',
      type: 'Warning',
      count: 1,
      source: { component: 'persistentvolume-controller' },
      firstTimestamp: '2026-11-24T19:58:46Z',
      lastTimestamp: '2026-11-24T19:58:46Z',
    });
    const r = await kubectl(['describe', 'pv', 'pb-described', '-v=8']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Name:\s+pb-described$/m);
    expect(r.stdout).toMatch(/Warning\s+VolumeFailedDelete\s+.*no volume plugin matched/);
    // Each request that asked for protobuf first (the volume, then its events) was answered in protobuf.
    const lines = r.stderr.split('\n').map((l) => l.replace(/^.*?\] /, '').trim());
    const answers: string[] = [];
    let asked = false;
    for (const l of lines) {
      if (l.startsWith('Accept: ')) asked = l.startsWith('Accept: application/vnd.kubernetes.protobuf');
      if (asked && l.startsWith('Content-Type: ')) answers.push(l.slice('Content-Type: '.length));
    }
    expect(answers).toEqual(['application/vnd.kubernetes.protobuf', 'application/vnd.kubernetes.protobuf']);
  });

  test('auth whoami names the user and their role group', async () => {
    const r = await kubectl(['auth', 'whoami', '-o', 'json'], { user: 'dev' });
    expect(r.code, r.stderr).toBe(0);
    const info = JSON.parse(r.stdout).status.userInfo;
    expect(info.groups).toContain('stowage:developers');
    expect(info.username).not.toBe('');
  });
});
