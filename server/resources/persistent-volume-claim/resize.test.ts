import { describe, expect, test } from 'vitest';
import type { StorageClass } from '../storage-class/schema';
import type { PersistentVolumeClaim } from './schema';
import { mayExpand, notBoundMessage, notExpandableMessage, resizeRefusal } from './resize';

const claim = (size: string, phase: string): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'ns' },
  spec: { storageClassName: 'fast', resources: { requests: { storage: size } } },
  status: { phase },
});
const sc = (allow?: boolean): StorageClass => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'x', ...(allow === undefined ? {} : { allowVolumeExpansion: allow }) });

const rows: { from: string; to: string; phase: string; allow?: boolean; noClass?: boolean; want?: string }[] = [
  { from: '1Gi', to: '2Gi', phase: 'Bound', allow: true, want: undefined },
  { from: '1Gi', to: '1024Mi', phase: 'Bound', allow: false, want: undefined },
  { from: '1Gi', to: '2Gi', phase: 'Bound', allow: false, want: notExpandableMessage },
  { from: '1Gi', to: '2Gi', phase: 'Bound', allow: undefined, want: notExpandableMessage },
  { from: '1Gi', to: '2Gi', phase: 'Bound', noClass: true, want: notExpandableMessage },
  { from: '1Gi', to: '2Gi', phase: 'Pending', allow: true, want: notBoundMessage },
  { from: '2Gi', to: '1Gi', phase: 'Bound', allow: false, want: undefined },
];

describe('resizeRefusal', () => {
  test.each(rows.map((r) => ({ ...r, name: `${r.from}->${r.to} ${r.phase} allowVolumeExpansion=${r.noClass ? 'no class' : r.allow} -> ${r.want ?? 'allowed'}` })))('$name', (r) => {
    expect(resizeRefusal(claim(r.to, r.phase), claim(r.from, r.phase), r.noClass ? undefined : sc(r.allow))).toBe(r.want);
  });

  test.each([
    { phase: 'Bound', allow: true, want: true },
    { phase: 'Bound', allow: false, want: false },
    { phase: 'Pending', allow: true, want: false },
  ])('mayExpand $phase allow=$allow -> $want', ({ phase, allow, want }) => {
    expect(mayExpand(claim('1Gi', phase), sc(allow))).toBe(want);
  });
});
