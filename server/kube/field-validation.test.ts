import { expect, test } from 'vitest';
import { strategyForKind } from '../resources/registry';
import type { KubeObject } from '../resources/types';
import { applyFieldValidation, splitFieldPath } from './field-validation';

test.each([
  ['spec.speed', ['spec', 'speed']],
  ['spec.accessModes[0]', ['spec', 'accessModes', '0']],
  ['metadata.labels[app.kubernetes.io/name]', ['metadata', 'labels', 'app.kubernetes.io/name']],
  ['[odd-key].x', ['odd-key', 'x']],
])('splitFieldPath(%s)', (path, want) => {
  expect(splitFieldPath(path)).toEqual(want);
});

/** A PersistentVolume as a client may send it, with fields the kind does not have. */
interface SentPV extends KubeObject {
  spec: { capacity: { storage: string }; accessModes: string[]; hostPath: { path: string; extra?: number }; speed?: string };
  bogus?: boolean;
}

const pv = (): SentPV => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'p' },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/x', extra: 1 }, speed: 'fast' },
  bogus: true,
});

test('Strict refuses unknown fields with upstream strict-decoding wording', () => {
  expect(() => applyFieldValidation(strategyForKind('PersistentVolume')!, pv(), 'Strict')).toThrow(
    /PersistentVolume in version "v1" cannot be handled as a PersistentVolume: strict decoding error: unknown field/,
  );
});

test('Warn drops them and says so; Ignore drops them silently', () => {
  const s = strategyForKind('PersistentVolume')!;
  const warned = pv();
  const warnings = applyFieldValidation(s, warned, 'Warn');
  expect(warnings.sort()).toEqual(['unknown field "bogus"', 'unknown field "spec.hostPath.extra"', 'unknown field "spec.speed"']);
  expect(warned).toEqual({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'p' },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/x' } },
  });
  const ignored = pv();
  expect(applyFieldValidation(s, ignored, 'Ignore')).toEqual([]);
  expect(ignored).toEqual(warned);
});

test('an object with only known fields is left alone', () => {
  const o = pv();
  delete o.bogus;
  delete o.spec.speed;
  delete o.spec.hostPath.extra;
  const before = structuredClone(o);
  expect(applyFieldValidation(strategyForKind('PersistentVolume')!, o, 'Strict')).toEqual([]);
  expect(o).toEqual(before);
});
