import { describe, expect, test } from 'vitest';
import type { Principal } from './authorization';
import { isSecretParameter, REDACTED, redactStorageClass } from './redaction';

const admin: Principal = { type: 'user', id: '1', name: 'a', role: 'admin', namespaces: [] };
const dev: Principal = { type: 'user', id: '2', name: 'd', role: 'developer', namespaces: ['x'] };
const viewer: Principal = { type: 'user', id: '3', name: 'v', role: 'viewer', namespaces: [] };

describe('isSecretParameter', () => {
  test.each([
    ['csi.storage.k8s.io/provisioner-secret-name', true],
    ['csi.storage.k8s.io/node-stage-secret-namespace', true],
    ['adminPassword', true],
    ['token', true],
    ['credentials', true],
    ['encryption-key', true],
    ['privateKeyPath', true],
    ['basePath', false],
    ['fsType', false],
    ['keyring-monitor', false],
    ['type', false],
  ])('%s → %s', (key, want) => expect(isSecretParameter(key)).toBe(want));
});

describe('redactStorageClass', () => {
  const sc = { kind: 'StorageClass', parameters: { fsType: 'ext4', 'csi.storage.k8s.io/provisioner-secret-name': 'db-creds' } };
  test.each([
    { who: 'admin', p: admin, want: 'db-creds' },
    { who: 'developer', p: dev, want: REDACTED },
    { who: 'viewer', p: viewer, want: REDACTED },
  ])('$who sees $want', ({ p, want }) => {
    const out = redactStorageClass(p, sc);
    expect(out.parameters['csi.storage.k8s.io/provisioner-secret-name']).toBe(want);
    expect(out.parameters.fsType).toBe('ext4');
  });
  test('the stored object is not changed', () => {
    redactStorageClass(dev, sc);
    expect(sc.parameters['csi.storage.k8s.io/provisioner-secret-name']).toBe('db-creds');
  });
  test('other kinds pass through', () => {
    const pv = { kind: 'PersistentVolume', parameters: { password: 'x' } };
    expect(redactStorageClass(dev, pv)).toBe(pv);
  });
});
