import { describe, expect, it } from 'vitest';
import { MASK, isMaskedParameter, parameterRows } from './class-parameters';

describe('isMaskedParameter', () => {
  const cases: [string, boolean][] = [
    ['csi.storage.k8s.io/provisioner-secret-name', true],
    ['csi.storage.k8s.io/node-stage-secret-namespace', true],
    ['adminPassword', true],
    ['authToken', true],
    ['cloudCredentials', true],
    ['encryptionKey', true],
    ['ssh-key', true],
    ['basePath', false],
    ['fsType', false],
    ['keyring-path', false],
  ];
  for (const [key, masked] of cases) it(`${key} is ${masked ? '' : 'not '}masked`, () => expect(isMaskedParameter(key)).toBe(masked));
});

describe('parameterRows', () => {
  it('masks secret values, keeps the others, sorted by key', () => {
    expect(parameterRows({ 'csi.storage.k8s.io/provisioner-secret-name': 'top', basePath: '/srv' })).toEqual([
      { key: 'basePath', value: '/srv', masked: false },
      { key: 'csi.storage.k8s.io/provisioner-secret-name', value: MASK, masked: true },
    ]);
  });
  it('masks what the server already redacted', () => {
    expect(parameterRows({ odd: '(redacted)' })[0]).toEqual({ key: 'odd', value: MASK, masked: true });
  });
  it('is empty without parameters', () => expect(parameterRows(undefined)).toEqual([]));
});
