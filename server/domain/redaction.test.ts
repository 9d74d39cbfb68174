import { describe, expect, test } from 'vitest';
import { hideForeignClaims, isSecretKey, redactExplanation, isSecretReference, MASK, maskCredentials, maskValues, REDACTED, redactForReader, restoreRedacted, type Reader } from './redaction';
import { annBindingExplanation, annLastAppliedConfiguration } from './well-known/annotations';

const admin: Reader = { secrets: true, volumes: true, namespaces: 'all' };
const viewer: Reader = { secrets: false, volumes: true, namespaces: 'all' };
const dev: Reader = { secrets: false, volumes: false, namespaces: ['team-a'] };

describe('isSecretKey', () => {
  test.each([
    ['password', true],
    ['adminPassword', true],
    ['passphrase', true],
    ['userKey', true],
    ['apiKey', true],
    ['APIKey', true],
    ['x-api_keys', true],
    ['token', true],
    ['authToken', true],
    ['credentials', true],
    ['aws.credential-file', true],
    ['encryption-key', true],
    ['privateKeyPath', true],
    ['client_secret', true],
    ['db.passwd', true],
    ['csi.storage.k8s.io/provisioner-secret-name', false],
    ['csi.storage.k8s.io/node-stage-secret-namespace', false],
    ['csi.storage.k8s.io/snapshotter-secret-name', false],
    ['snapshot.storage.kubernetes.io/deletion-secret-namespace', false],
    ['adminSecretName', false],
    ['secretRef', false],
    ['basePath', false],
    ['fsType', false],
    ['keyring-monitor', false],
    ['monkey', false],
    ['type', false],
    ['kubectl.kubernetes.io/last-applied-configuration', false],
  ])('%s → %s', (key, want) => expect(isSecretKey(key)).toBe(want));
});

describe('isSecretReference', () => {
  test.each([
    ['csi.storage.k8s.io/provisioner-secret-name', true],
    ['csi.storage.k8s.io/controller-expand-secret-namespace', true],
    ['csi.storage.k8s.io/snapshotter-secret-namespace', true],
    ['snapshot.storage.kubernetes.io/deletion-secret-name', true],
    ['userSecretNamespace', true],
    ['secret', false],
    ['secretData', false],
  ])('%s → %s', (key, want) => expect(isSecretReference(key)).toBe(want));
});

describe('maskCredentials', () => {
  test.each([
    ['postgres://user:pass@db:5432/x', `postgres://user:${MASK}@db:5432/x`],
    ['connect to mysql://root:hunter2@10.0.0.1/db failed', `connect to mysql://root:${MASK}@10.0.0.1/db failed`],
    ['https://token@github.com/x', 'https://token@github.com/x'],
    ['host=db password=hunter2 user=u', `host=db password=${MASK} user=u`],
    ['apiKey: abc123, region: eu', `apiKey: ${MASK}, region: eu`],
    ['{"token":"abc","size":"1Gi"}', `{"token":"${MASK}","size":"1Gi"}`],
    ['secretName=creds', 'secretName=creds'],
    ['at 2026-11-23T10:00:00Z', 'at 2026-11-23T10:00:00Z'],
    ['plain text', 'plain text'],
    ['Invalid value: "password=hunter2": bad', `Invalid value: "password=${MASK}": bad`],
    ['token=a token=b', `token=${MASK} token=${MASK}`],
    ['StorageClass "db-secret": login refused', 'StorageClass "db-secret": login refused'],
    ['{"apiKey": "abc"}', `{"apiKey": "${MASK}"}`],
    ['Authorization: Bearer abc.def-123', `Authorization: Bearer ${MASK}`],
    ['curl -H "Authorization: Bearer s3cr3t" https://h', `curl -H "Authorization: Bearer ${MASK}" https://h`],
    ['authorization=Basic dXNlcjpwYXNz', `authorization=Basic ${MASK}`],
    ['"Authorization": "Bearer abc"', `"Authorization": "${MASK}"`],
    ['stowage start --password hunter2 --port 1', `stowage start --password ${MASK} --port 1`],
    ['run -token abc', `run -token ${MASK}`],
    ['--password=hunter2', `--password=${MASK}`],
    ['{"auths":{"r.io":{"auth":"dXNlcjpwYXNz"}}}', `{"auths":{"r.io":{"auth":"${MASK}"}}}`],
    ['auth: Basic dXNlcjpwYXNz', `auth: Basic ${MASK}`],
    ['authMode: kerberos', 'authMode: kerberos'],
    ['postgres://u:p@ss@db:5432/x', `postgres://u:${MASK}@db:5432/x`],
    ['mysql://root:a@b@c@10.0.0.1/db failed', `mysql://root:${MASK}@10.0.0.1/db failed`],
    ['password: "two words" left', `password: "${MASK}" left`],
    ['token="unclosed', `token=${MASK}`],
    // Key names in validation messages are names, never credentials.
    ['spec.local: unknown key; supported keys: hostDir, mountDir', 'spec.local: unknown key; supported keys: hostDir, mountDir'],
    ['map: {"a":1} does not contain declared merge key: name', 'map: {"a":1} does not contain declared merge key: name'],
    ['key: Invalid value: "a b": must be ...', 'key: Invalid value: "a b": must be ...'],
    ['key=abc', `key=${MASK}`],
    ['{"key":"abc"}', `{"key":"${MASK}"}`],
  ])('%s', (text, want) => expect(maskCredentials(text)).toBe(want));
});

test('maskValues replaces each known value', () => {
  expect(maskValues('failed: wrong key s3cr3t for s3cr3t', ['s3cr3t'])).toBe(`failed: wrong key ${MASK} for ${MASK}`);
});

describe('hideForeignClaims', () => {
  test.each([
    ['is bound to claim team-b/data', 'is bound to another claim'],
    ['is reserved for claim team-a/data (spec.claimRef)', 'is reserved for claim team-a/data (spec.claimRef)'],
    ['belongs to an earlier claim named team-b/x (uid 123), not to this one', 'belongs to an earlier another claim, not to this one'],
    ['which is bound to another claim (team-b/claim-later).', 'which is bound to another claim (another claim).'],
  ])('%s', (text, want) => expect(hideForeignClaims(text, ['team-a'])).toBe(want));
});

test("the binder's explanation hides other volumes' labels from a reader who may not see volumes", () => {
  const text = JSON.stringify({ summary: 's', candidates: [{ name: 'gold', reasons: ["labels {tier=gold} do not match the claim's selector app=db", 'is bound to claim team-b/x'] }] });
  expect(JSON.parse(redactExplanation(text, dev)).candidates).toEqual([
    { name: '(volume 1)', reasons: ["its labels do not match the claim's selector app=db", 'is bound to another claim'] },
  ]);
  expect(JSON.parse(redactExplanation(text, viewer)).candidates[0].reasons[0]).toContain('tier=gold');
});

function storageClass() {
  const applied = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'fast', annotations: { note: 'postgres://u:planted-1@db' } },
    provisioner: 'x.io/p',
    parameters: { password: 'planted-2', 'csi.storage.k8s.io/provisioner-secret-name': 'creds', fsType: 'ext4' },
  };
  return {
    ...applied,
    metadata: {
      name: 'fast',
      annotations: { [annLastAppliedConfiguration]: JSON.stringify(applied), 'x-api_keys': 'planted-3', note: 'postgres://u:planted-1@db' },
      managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:parameters': { 'f:password': {} } } }],
    },
  };
}

describe('redactForReader', () => {
  test.each([
    { who: 'viewer', r: viewer },
    { who: 'developer', r: dev },
  ])('a $who sees no planted secret in a StorageClass', ({ r }) => {
    const sc = storageClass();
    const out = redactForReader(r, sc);
    expect(JSON.stringify(out)).not.toMatch(/planted/);
    expect(out.parameters['csi.storage.k8s.io/provisioner-secret-name']).toBe('creds');
    expect(out.parameters.fsType).toBe('ext4');
    expect(out.parameters.password).toBe(REDACTED);
    expect(out.metadata.managedFields).toBeUndefined();
    const applied = JSON.parse(out.metadata.annotations[annLastAppliedConfiguration]);
    expect(applied.parameters).toEqual({ password: REDACTED, 'csi.storage.k8s.io/provisioner-secret-name': 'creds', fsType: 'ext4' });
    // the stored object is untouched
    expect(JSON.stringify(sc)).toMatch(/planted-2/);
  });

  test('a viewer sees no secret parameter of a VolumeSnapshotClass, as for a StorageClass', () => {
    const applied = {
      apiVersion: 'snapshot.storage.k8s.io/v1',
      kind: 'VolumeSnapshotClass',
      metadata: { name: 'snaps' },
      driver: 'x.io/p',
      deletionPolicy: 'Delete',
      parameters: { password: 'planted-4', 'csi.storage.k8s.io/snapshotter-secret-name': 'creds' },
    };
    const vsc = { ...applied, metadata: { name: 'snaps', annotations: { [annLastAppliedConfiguration]: JSON.stringify(applied) } } };
    const out = redactForReader(viewer, vsc);
    expect(JSON.stringify(out)).not.toMatch(/planted/);
    expect(out.parameters).toEqual({ password: REDACTED, 'csi.storage.k8s.io/snapshotter-secret-name': 'creds' });
    expect(redactForReader(admin, vsc)).toBe(vsc);
  });

  test('an admin sees everything, the same object', () => {
    const sc = storageClass();
    expect(redactForReader(admin, sc)).toBe(sc);
  });

  test('an object with nothing to hide is shared, not copied', () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', annotations: { a: 'b' } } };
    expect(redactForReader(dev, ns)).toBe(ns);
  });

  test('an unparseable last-applied copy is redacted whole', () => {
    const o = { kind: 'StorageClass', metadata: { annotations: { [annLastAppliedConfiguration]: '{not json password=x' } } };
    expect(redactForReader(dev, o).metadata.annotations[annLastAppliedConfiguration]).toBe(REDACTED);
  });

  test('Event messages are masked', () => {
    const ev = { kind: 'Event', metadata: { name: 'e' }, message: 'failed: postgres://a:planted@h' };
    expect(redactForReader(viewer, ev).message).toBe(`failed: postgres://a:${MASK}@h`);
  });

  test('a Secret never carries its data to a non-admin', () => {
    const s = { kind: 'Secret', metadata: { name: 's' }, data: { a: 'cGxhbnRlZA==' }, stringData: { b: 'planted' } };
    const out = redactForReader(viewer, s);
    expect(out.data).toBeUndefined();
    expect(out.stringData).toBeUndefined();
  });

  test('PV volumeAttributes are redacted by key', () => {
    const pv = { kind: 'PersistentVolume', metadata: { name: 'v' }, spec: { csi: { driver: 'd', volumeAttributes: { token: 'planted', size: '1' } } } };
    const out = redactForReader(viewer, pv);
    expect(out.spec.csi.volumeAttributes).toEqual({ token: REDACTED, size: '1' });
    expect(out.spec.csi.driver).toBe('d');
  });

  describe('the binding explanation', () => {
    const claim = () => ({
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: 'c',
        namespace: 'team-a',
        annotations: {
          [annBindingExplanation]: JSON.stringify({
            evaluatedAt: 'now',
            summary: 'The claim asks for volume "pv-9", which is bound to another claim (team-b/claim-later).',
            candidates: [{ name: 'pv-big', reasons: ['is reserved for claim team-b/claim-later (spec.claimRef)', 'capacity 1Gi is less than the requested 2Gi'] }],
          }),
        },
      },
      status: { conditions: [{ type: 'Bindable', message: 'bound to another claim (team-b/claim-later).' }] },
    });
    test('a developer sees counts and reasons, no cluster volume names or other namespaces', () => {
      const out = redactForReader(dev, claim());
      const text = JSON.stringify(out);
      expect(text).not.toMatch(/team-b|claim-later|pv-big/);
      const e = JSON.parse(out.metadata.annotations[annBindingExplanation]);
      expect(e.candidates).toEqual([{ name: '(volume 1)', reasons: ['is reserved for another claim (spec.claimRef)', 'capacity 1Gi is less than the requested 2Gi'] }]);
    });
    test('a viewer (who may list volumes and claims) sees it whole', () => {
      const c = claim();
      expect(JSON.stringify(redactForReader(viewer, c))).toMatch(/team-b\/claim-later.*pv-big/);
    });
  });
});

describe('restoreRedacted', () => {
  test('a redacted annotation sent back keeps its stored value; a real change is kept', () => {
    const prev = storageClass();
    const shown = redactForReader(dev, prev);
    const next = structuredClone(shown);
    next.metadata.annotations.note = 'changed';
    restoreRedacted(dev, next, prev);
    expect(next.metadata.annotations[annLastAppliedConfiguration]).toBe(prev.metadata.annotations[annLastAppliedConfiguration]);
    expect(next.metadata.annotations['x-api_keys']).toBe('planted-3');
    expect(next.metadata.annotations.note).toBe('changed');
  });
});
