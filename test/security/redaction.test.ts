// Secrets never leave the admin: a secret is planted in every field a user can reach
// (StorageClass parameters, the last-applied copy kubectl keeps, other annotations, a
// volume's attributes, Event messages, error messages), then every read path a developer
// and a viewer have is searched for it: get (JSON and YAML), list, list across namespaces,
// the Table kubectl asks for (with and without the objects), metadata-only get and list,
// watch (objects and Tables), and tRPC get, list and events. An admin still sees them.
// Also: the Secret kind through kubectl (create for admins, 403 for a developer).
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AppContext } from '../../server/wiring/context';
import type { Principal } from '../../server/domain/authorization';
import { appRouter } from '../../server/trpc/root';
import { apiClient } from '../kube/api-client';
import { findKubectl, kubectlFor, startKubeHarness, type KubeHarness } from '../kube/harness';
import { collectionPath, OWN_NS, type Kind } from './access-table';
import { annLastAppliedConfiguration } from '../../server/domain/well-known/annotations';

const PLANT = 'PLANTED';
let h: KubeHarness;
let api: ReturnType<typeof apiClient>;
let viewerToken: string;
const principals: Record<string, Principal> = {};

function storageClass(): Record<string, any> {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'planted', annotations: { 'x-api_keys': `${PLANT}-1`, note: `see mysql://root:${PLANT}-2@h/db` } },
    provisioner: 'example.com/csi',
    parameters: {
      password: `${PLANT}-3`,
      userKey: `${PLANT}-4`,
      passphrase: `${PLANT}-5`,
      dsn: `postgres://app:${PLANT}-6@db:5432/x`,
      'csi.storage.k8s.io/provisioner-secret-name': 'csi-creds',
      'csi.storage.k8s.io/provisioner-secret-namespace': 'default',
    },
  };
}

beforeAll(async () => {
  h = await startKubeHarness();
  api = apiClient(h);
  await h.app.users.create({ name: 'val', role: 'viewer' });
  viewerToken = await h.app.users.createToken('val');
  principals.admin = (await h.app.users.authenticate(h.adminToken))!;
  principals.developer = (await h.app.users.authenticate(h.devToken))!;
  principals.viewer = (await h.app.users.authenticate(viewerToken))!;

  // The class as `kubectl apply` leaves it: the whole object again in the last-applied annotation.
  const sc = storageClass();
  sc.metadata.annotations[annLastAppliedConfiguration] = `${JSON.stringify(storageClass())}\n`;
  expect((await api({ method: 'POST', path: collectionPath('StorageClass'), body: sc })).status).toBe(201);
  const pv = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'planted-pv', annotations: { 'db.password': `${PLANT}-7` } },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      csi: { driver: 'csi.example.com', volumeHandle: 'h1', volumeAttributes: { token: `${PLANT}-8`, size: '1' } },
    },
  };
  const pvRes = await api({ method: "POST", path: collectionPath("PersistentVolume"), body: pv });
  expect(pvRes.status, pvRes.text).toBe(201);
  const claim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'planted-claim', namespace: OWN_NS, annotations: { 'backup-url': `s3://AKIA:${PLANT}-9@bucket/x` } },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'planted' },
  };
  expect((await api({ method: 'POST', path: collectionPath('PersistentVolumeClaim', OWN_NS), body: claim })).status).toBe(201);
  const event = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'planted-event', namespace: OWN_NS },
    involvedObject: { kind: 'PersistentVolumeClaim', namespace: OWN_NS, name: 'planted-claim' },
    reason: 'ProvisioningFailed',
    message: `Failed to provision: connect postgres://app:${PLANT}-10@db failed; password=${PLANT}-11`,
    type: 'Warning',
  };
  expect((await api({ method: 'POST', path: collectionPath('Event', OWN_NS), body: event })).status).toBe(201);
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'csi-creds', namespace: 'default' }, stringData: { password: `${PLANT}-12` } };
  expect((await api({ method: 'POST', path: collectionPath('Secret', 'default'), body: secret })).status).toBe(201);
}, 60_000);
afterAll(async () => h?.close());

/** Reads a watch until `done` says so or 5 s pass, then closes it. */
function readWatch(path: string, token: string, accept: string, done: (text: string) => boolean): Promise<string> {
  const url = new URL(h.url);
  return new Promise((resolve, reject) => {
    let text = '';
    const req = https.request(
      { host: url.hostname, port: url.port, path, method: 'GET', headers: { Authorization: `Bearer ${token}`, Accept: accept }, ca: h.caPem },
      (res) => {
        const timer = setTimeout(finish, 5000);
        function finish() {
          clearTimeout(timer);
          req.destroy();
          resolve(text);
        }
        res.on('data', (c: Buffer) => {
          text += c.toString('utf8');
          if (done(text)) finish();
        });
        res.on('end', finish);
      },
    );
    req.on('error', (e) => (e.message.includes('socket hang up') ? undefined : reject(e)));
    req.end();
  });
}

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const PARTIAL = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';
const PARTIAL_LIST = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io';

interface Target {
  kind: Kind;
  ns?: string;
  name: string;
}
const readers: { who: string; token: () => string; targets: Target[] }[] = [
  {
    who: 'developer',
    token: () => h.devToken,
    targets: [
      { kind: 'StorageClass', name: 'planted' },
      { kind: 'PersistentVolumeClaim', ns: OWN_NS, name: 'planted-claim' },
      { kind: 'Event', ns: OWN_NS, name: 'planted-event' },
    ],
  },
  {
    who: 'viewer',
    token: () => viewerToken,
    targets: [
      { kind: 'StorageClass', name: 'planted' },
      { kind: 'PersistentVolume', name: 'planted-pv' },
      { kind: 'PersistentVolumeClaim', ns: OWN_NS, name: 'planted-claim' },
      { kind: 'Event', ns: OWN_NS, name: 'planted-event' },
    ],
  },
];

/** Every REST read path for one object: [path description, response text]. */
async function restReads(t: Target, token: string): Promise<[string, string][]> {
  const coll = collectionPath(t.kind, t.ns);
  const item = `${coll}/${t.name}`;
  const out: [string, string][] = [];
  const get = async (what: string, path: string, accept = 'application/json') => {
    const r = await api({ path, token, headers: { Accept: accept } });
    expect(r.status, `${what}: ${r.text}`).toBe(200);
    expect(r.text, what).toContain(t.name);
    out.push([what, r.text]);
  };
  await get('get', item);
  await get('get as YAML', item, 'application/yaml');
  await get('list', coll);
  if (t.ns) await get('list across namespaces', collectionPath(t.kind));
  await get('list as Table', coll, TABLE);
  await get('list as Table with objects', `${coll}?includeObject=Object`, TABLE);
  await get('get as Table with object', `${item}?includeObject=Object`, TABLE);
  await get('get metadata only', item, PARTIAL);
  await get('list metadata only', coll, PARTIAL_LIST);
  for (const [what, accept, path] of [
    ['watch', 'application/json', `${coll}?watch=1`],
    ['watch as Table with objects', TABLE, `${coll}?watch=1&includeObject=Object`],
  ] as const) {
    const text = await readWatch(path, token, accept, (s) => s.includes(t.name));
    expect(text, what).toContain(t.name);
    out.push([what, text]);
  }
  return out;
}

describe.each(readers)('a $who', ({ who, token, targets }) => {
  test.each(targets.map((t) => [`${t.kind} ${t.name}`, t] as const))('finds no planted secret on any REST read path of %s', async (_n, t) => {
    for (const [what, text] of await restReads(t, token())) expect(text, `${who} ${what}`).not.toContain(PLANT);
  });

  test.each(targets.map((t) => [`${t.kind} ${t.name}`, t] as const))('finds no planted secret through tRPC get, list and events of %s', async (_n, t) => {
    const c = appRouter.createCaller({ app: h.app as unknown as AppContext, principal: principals[who], setSessionCookie: () => {} }).objects;
    const texts = [
      JSON.stringify(await c.get({ kind: t.kind, namespace: t.ns, name: t.name })),
      JSON.stringify(await c.list({ kind: t.kind, namespace: t.ns })),
      JSON.stringify(await c.list({ kind: t.kind })),
    ];
    for (const text of texts) {
      expect(text).toContain(t.name);
      expect(text).not.toContain(PLANT);
    }
    expect(JSON.stringify(await c.events({ kind: t.kind, namespace: t.ns, name: t.name }))).not.toContain(PLANT);
  });

  test('cannot read Secrets at all', async () => {
    const r = await api({ path: `${collectionPath('Secret', 'default')}/csi-creds`, token: token() });
    expect(r.status).toBe(403);
    expect(r.text).not.toContain(PLANT);
  });
});

test("the names of Secrets a class refers to are not secrets: shown to developers, as upstream", async () => {
  const r = await api({ path: `${collectionPath('StorageClass')}/planted`, token: h.devToken });
  expect(r.json.parameters['csi.storage.k8s.io/provisioner-secret-name']).toBe('csi-creds');
  expect(JSON.parse(r.json.metadata.annotations[annLastAppliedConfiguration]).parameters.password).toBe('(redacted)');
});

test('error messages do not quote a credential back', async () => {
  const bad = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: `password=${PLANT}-13`, namespace: OWN_NS },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  };
  const r = await api({ method: 'POST', path: collectionPath('PersistentVolumeClaim', OWN_NS), token: h.devToken, body: bad });
  expect(r.status).toBe(422);
  expect(r.text, r.text).not.toContain(PLANT);
});

test('an admin sees every planted value (the redaction is for others only)', async () => {
  const sc = (await api({ path: `${collectionPath('StorageClass')}/planted` })).text;
  for (const n of [1, 2, 3, 4, 5, 6]) expect(sc).toContain(`${PLANT}-${n}`);
  const secret = (await api({ path: `${collectionPath('Secret', 'default')}/csi-creds` })).json;
  expect(Buffer.from(secret.data.password, 'base64').toString()).toBe(`${PLANT}-12`);
});

const kubectl = findKubectl();
describe('the Secret kind through kubectl', () => {
  test('an admin creates and reads a Secret; a developer is refused', async (ctx) => {
    if (!kubectl) {
      console.log('kubectl not found: skipping the kubectl Secret check');
      ctx.skip();
      return;
    }
    const k = kubectlFor(h, kubectl);
    // `kubectl create secret generic` sends a protobuf body.
    const created = await k(['create', 'secret', 'generic', 'db-pass', '-n', OWN_NS, `--from-literal=password=${PLANT}-k`]);
    expect(created.stderr, created.stderr).toBe('');
    expect(created.stdout).toBe('secret/db-pass created\n');
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'from-file', namespace: OWN_NS }, stringData: { token: 'x' } });
    expect((await k(['create', '-f', '-'], { input: manifest })).stdout).toBe('secret/from-file created\n');
    const got = await k(['get', 'secret', 'db-pass', '-n', OWN_NS, '-o', 'jsonpath={.data.password}']);
    expect(Buffer.from(got.stdout, 'base64').toString()).toBe(`${PLANT}-k`);
    const table = await k(['get', 'secrets', '-n', OWN_NS]);
    expect(table.stdout).toMatch(/^NAME\s+TYPE\s+DATA\s+AGE\ndb-pass\s+Opaque\s+1\s+/);
    expect((await k(['create', 'namespace', 'made-by-kubectl'])).stdout).toBe('namespace/made-by-kubectl created\n');
    const dryDev = await k(['create', 'secret', 'generic', 'dev-made', '-n', OWN_NS, '--from-literal=a=b'], { user: 'dev' });
    expect(dryDev.code).not.toBe(0);
    expect(dryDev.stderr).toMatch(/forbidden/i);
    const dev = await k(['get', 'secret', 'db-pass', '-n', OWN_NS], { user: 'dev' });
    expect(dev.code).not.toBe(0);
    expect(dev.stderr).toMatch(/Forbidden|forbidden/);
    expect(dev.stdout + dev.stderr).not.toContain(PLANT);
  });
});
