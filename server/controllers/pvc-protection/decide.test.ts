import { describe, expect, test } from 'vitest';
import { claimChangeNeedsLook, decideClaimProtection, type ProtectionAction } from './decide';
import { pvcProtectionFinalizer } from '../../domain/well-known/finalizers';

const claim = (o: { finalizer: boolean; deleting: boolean }) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: {
    name: 'c',
    namespace: 'ns',
    finalizers: o.finalizer ? ['example.com/other', pvcProtectionFinalizer] : ['example.com/other'],
    ...(o.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
});

const rows: { finalizer: boolean; deleting: boolean; usedBy: string[]; want: ProtectionAction }[] = [
  { finalizer: false, deleting: false, usedBy: [], want: { kind: 'add' } },
  { finalizer: false, deleting: false, usedBy: ['p1'], want: { kind: 'add' } },
  { finalizer: true, deleting: false, usedBy: ['p1'], want: { kind: 'none' } },
  { finalizer: true, deleting: false, usedBy: [], want: { kind: 'none' } },
  { finalizer: true, deleting: true, usedBy: ['p1', 'p2'], want: { kind: 'wait', usedBy: ['p1', 'p2'] } },
  { finalizer: true, deleting: true, usedBy: [], want: { kind: 'remove' } },
  { finalizer: false, deleting: true, usedBy: ['p1'], want: { kind: 'none' } },
];

describe('decideClaimProtection', () => {
  test.each(rows.map((r) => ({ ...r, name: `finalizer=${r.finalizer} deleting=${r.deleting} usedBy=[${r.usedBy.join(',')}] -> ${r.want.kind}` })))(
    '$name',
    ({ finalizer, deleting, usedBy, want }) => {
      expect(decideClaimProtection(claim({ finalizer, deleting }), usedBy)).toEqual(want);
    },
  );
});

describe('claimChangeNeedsLook', () => {
  const looks = [
    { finalizer: false, deleting: false, want: true },
    { finalizer: true, deleting: false, want: false },
    { finalizer: true, deleting: true, want: true },
    { finalizer: false, deleting: true, want: false },
  ];
  test.each(looks.map((r) => ({ ...r, name: `finalizer=${r.finalizer} deleting=${r.deleting} -> ${r.want ? 'look' : 'skip'}` })))(
    '$name',
    ({ finalizer, deleting, want }) => {
      expect(claimChangeNeedsLook(claim({ finalizer, deleting }))).toBe(want);
    },
  );
});
