import { describe, expect, it } from 'vitest';
import { noteGone, touches, type ChangeNotice, type Gone } from './live-invalidation';

const claim = (type: ChangeNotice['type'], deleting = false): ChangeNotice => ({
  type,
  kind: 'PersistentVolumeClaim',
  namespace: 'default',
  name: 'data',
  resourceVersion: '7',
  object: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) } },
});
const doctorKey = [['claims', 'doctor'], { input: { namespace: 'default', name: 'data' }, type: 'query' }];
const claimEvents = [['objects', 'events'], { input: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data' }, type: 'query' }];
const claimGet = [['objects', 'get'], { input: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data' }, type: 'query' }];

function goneAfter(...notices: ChangeNotice[]): Gone {
  const gone: Gone = new Map();
  for (const n of notices) noteGone(gone, n);
  return gone;
}

describe('touches', () => {
  it.each([
    { what: 'a claim page doctor, on a volume change', key: doctorKey, kinds: ['PersistentVolume'], want: true },
    { what: 'a claim page doctor, on an event', key: doctorKey, kinds: ['Event'], want: false },
    { what: 'the claim itself, on a claim change', key: claimGet, kinds: ['PersistentVolumeClaim'], want: true },
    { what: 'the claim itself, on a volume change', key: claimGet, kinds: ['PersistentVolume'], want: false },
    { what: 'its events, on an event', key: claimEvents, kinds: ['Event'], want: true },
    { what: 'the home page counts, on a claim change', key: [['lists', 'health'], {}], kinds: ['PersistentVolumeClaim'], want: true },
    { what: 'an unrelated procedure', key: [['auth', 'me'], {}], kinds: ['PersistentVolumeClaim'], want: false },
  ])('$what: $want', ({ key, kinds, want }) => {
    expect(touches(key, new Set(kinds), false)).toBe(want);
  });

  it('after a resync everything the stream shows is asked again', () => {
    expect(touches(claimGet, new Set(), true)).toBe(true);
    expect(touches(doctorKey, new Set(), true)).toBe(true);
  });
});

describe('gone objects', () => {
  it('a terminating claim is not asked about by its doctor, in this batch or later ones', () => {
    const gone = goneAfter(claim('MODIFIED', true));
    expect(touches(doctorKey, new Set(['PersistentVolumeClaim']), false, gone)).toBe(false);
    expect(touches(doctorKey, new Set(['PersistentVolume']), false, gone)).toBe(false);
    expect(touches(doctorKey, new Set(), true, gone)).toBe(false);
    // Its own get and events still are: it exists until its finalizers are done.
    expect(touches(claimGet, new Set(['PersistentVolumeClaim']), false, gone)).toBe(true);
    expect(touches(claimEvents, new Set(['Event']), false, gone)).toBe(true);
  });

  it('a deleted claim: neither its doctor nor its events, but its get (the page then says it is gone)', () => {
    const gone = goneAfter(claim('MODIFIED', true), claim('DELETED', true));
    expect(touches(doctorKey, new Set(['PersistentVolume']), false, gone)).toBe(false);
    expect(touches(claimEvents, new Set(['Event']), false, gone)).toBe(false);
    expect(touches(claimGet, new Set(['PersistentVolumeClaim']), false, gone)).toBe(true);
  });

  it('a claim created again under the same name is asked about again', () => {
    const gone = goneAfter(claim('DELETED', true), claim('ADDED'));
    expect(gone.size).toBe(0);
    expect(touches(doctorKey, new Set(['PersistentVolume']), false, gone)).toBe(true);
  });

  it('a change without its object does not forget a terminating claim', () => {
    const bare = { ...claim('MODIFIED'), object: undefined };
    expect(goneAfter(claim('MODIFIED', true), bare).get('PersistentVolumeClaim/default/data')).toBe('terminating');
  });

  it('remembers at most 2000 objects, forgetting the oldest first', () => {
    const gone: Gone = new Map();
    for (let i = 0; i <= 2000; i++) noteGone(gone, { ...claim('DELETED'), name: `c${i}` });
    expect(gone.size).toBe(2000);
    expect(gone.has('PersistentVolumeClaim/default/c0')).toBe(false);
    expect(gone.has('PersistentVolumeClaim/default/c2000')).toBe(true);
  });
});
