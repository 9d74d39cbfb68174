import { describe, expect, test } from 'vitest';
import { describeChange, type Described } from './history-summary';

const claim = (status: string, extra: Record<string, any> = {}) => ({
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', ...(extra.metadata ?? {}) },
  spec: { ...(extra.spec ?? {}) },
  status: { phase: status },
});
const pv = (phase: string, claimRef?: Record<string, string>, annotations?: Record<string, string>) => ({
  kind: 'PersistentVolume',
  metadata: { name: 'pv-1', ...(annotations ? { annotations } : {}) },
  spec: claimRef ? { claimRef } : {},
  status: { phase },
});

const cases: { name: string; prev?: Record<string, any>; row: Described; says: string[] }[] = [
  { name: 'a created claim', row: { type: 'ADDED', action: 'create', object: claim('Pending') }, says: ['Created', 'Phase Pending'] },
  {
    name: 'a provisioned volume names its provisioner',
    row: { type: 'ADDED', action: 'create', object: pv('Pending', { namespace: 'a', name: 'data' }, { 'pv.kubernetes.io/provisioned-by': 'stowage.io/host-path' }) },
    says: ['Created', 'Provisioned by stowage.io/host-path', 'Phase Pending', 'Claimed by a/data'],
  },
  {
    name: 'a binding of the claim',
    prev: claim('Pending'),
    row: { type: 'MODIFIED', action: 'update', object: claim('Pending', { spec: { volumeName: 'pv-1' } }) },
    says: ['Bound to volume pv-1'],
  },
  { name: 'a phase change', prev: claim('Pending'), row: { type: 'MODIFIED', action: 'status', object: claim('Bound') }, says: ['Phase Pending → Bound'] },
  {
    name: 'a claim handed to provisioning',
    prev: claim('Pending'),
    row: { type: 'MODIFIED', action: 'update', object: claim('Pending', { metadata: { annotations: { 'volume.kubernetes.io/storage-provisioner': 'p.io/x' } } }) },
    says: ['Handed to provisioner p.io/x'],
  },
  {
    name: 'a delete held by a finalizer is a deletion request',
    prev: claim('Bound'),
    row: { type: 'MODIFIED', action: 'delete', object: claim('Bound', { metadata: { deletionTimestamp: '2026-01-01T00:00:00Z' } }) },
    says: ['Deletion requested'],
  },
  { name: 'a removal', prev: claim('Bound'), row: { type: 'DELETED', action: 'update', object: claim('Bound') }, says: ['Deleted'] },
  { name: 'a released volume loses nothing but its phase', prev: pv('Bound', { namespace: 'a', name: 'data' }), row: { type: 'MODIFIED', action: 'status', object: pv('Released', { namespace: 'a', name: 'data' }) }, says: ['Phase Bound → Released'] },
  { name: 'a cleared claimRef', prev: pv('Released', { namespace: 'a', name: 'data' }), row: { type: 'MODIFIED', action: 'update', object: pv('Released') }, says: ['Claim reference to a/data cleared'] },
  { name: 'a label change is an update', prev: claim('Bound'), row: { type: 'MODIFIED', action: 'update', object: claim('Bound', { metadata: { labels: { a: 'b' } } }) }, says: ['Updated'] },
  { name: 'a status write with no phase change', prev: claim('Bound'), row: { type: 'MODIFIED', action: 'status', object: claim('Bound') }, says: ['Status updated'] },
];

describe('describeChange', () => {
  test.each(cases)('$name', ({ prev, row, says }) => {
    expect(describeChange(prev, row)).toEqual(says);
  });
});
