import { describe, expect, it } from 'vitest';
import { locateFieldPath, parseFieldPath } from './yaml-paths';

const pv = `apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv1
  labels:
    app.kubernetes.io/name: web
spec:
  capacity:
    storage: lots
  accessModes:
    - ReadWriteOnce
    - Sometimes
  hostPath:
    path: /tmp/x
`;

describe('parseFieldPath', () => {
  it.each([
    ['spec.capacity.storage', ['spec', 'capacity', 'storage']],
    ['spec.accessModes[1]', ['spec', 'accessModes', 1]],
    ['metadata.labels[app.kubernetes.io/name]', ['metadata', 'labels', 'app.kubernetes.io/name']],
    ['spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values', ['spec', 'nodeAffinity', 'required', 'nodeSelectorTerms', 0, 'matchExpressions', 0, 'values']],
    ['metadata.name', ['metadata', 'name']],
  ])('%s', (path, want) => {
    expect(parseFieldPath(path)).toEqual(want);
  });
});

describe('locateFieldPath', () => {
  it.each([
    ['spec.capacity.storage', { line: 9, exact: true }],
    ['spec.accessModes[1]', { line: 12, exact: true }],
    ['metadata.labels[app.kubernetes.io/name]', { line: 6, exact: true }],
    ['metadata.name', { line: 4, exact: true }],
    ['spec.persistentVolumeReclaimPolicy', { line: 7, exact: false }],
    ['spec.hostPath.type', { line: 13, exact: false }],
  ])('%s', (path, want) => {
    expect(locateFieldPath(pv, path)).toEqual(want);
  });

  it('finds nothing for a path whose first segment is absent', () => {
    expect(locateFieldPath(pv, 'status.phase')).toBeUndefined();
  });

  it('finds nothing in text that does not parse', () => {
    expect(locateFieldPath('a: [', 'a')).toBeUndefined();
  });

  it('works on JSON too', () => {
    expect(locateFieldPath('{\n  "spec": {\n    "capacity": {"storage": "x"}\n  }\n}', 'spec.capacity.storage')).toEqual({ line: 3, exact: true });
  });
});

it.each([
  ['spec.resources[storage]', 5],
  ['volumeMode', 6],
  ['metadata.annotations.volume.beta.kubernetes.io/storage-class', 3],
  ['spec.capacity[storage]', 8],
])('upstream path %s marks line %d', (path, line) => {
  const text = 'metadata:\n  annotations:\n    volume.beta.kubernetes.io/storage-class: gold\nspec:\n  resources: {requests: {storage: 0}}\n  volumeMode: Block\n  capacity:\n    storage: 1Gi\n';
  expect(locateFieldPath(text, path)?.line).toBe(line);
});

