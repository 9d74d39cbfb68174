import { describe, expect, it } from 'vitest';
import { decideDependent, type OwnerFacts } from './decide';

const o = (uid: string, state: OwnerFacts['state']): OwnerFacts => ({ uid, state });

describe('decideDependent (upstream attemptToDeleteItem, background)', () => {
  it.each<{ name: string; owners: OwnerFacts[]; deleting?: boolean; want: unknown }>([
    { name: 'no owners: nothing', owners: [], want: { action: 'none' } },
    { name: 'its owner exists: nothing', owners: [o('a', 'solid')], want: { action: 'none' } },
    { name: 'its only owner is gone: deleted', owners: [o('a', 'dangling')], want: { action: 'delete' } },
    { name: 'every owner gone: deleted', owners: [o('a', 'dangling'), o('b', 'dangling')], want: { action: 'delete' } },
    { name: 'one of two owners gone: kept, the gone reference dropped', owners: [o('a', 'dangling'), o('b', 'solid')], want: { action: 'dropReferences', uids: ['a'] } },
    { name: 'an owner of an unserved kind: never deleted for it', owners: [o('a', 'dangling'), o('x', 'unresolvable')], want: { action: 'none' } },
    { name: 'already being deleted: left to its finalizers', owners: [o('a', 'dangling')], deleting: true, want: { action: 'none' } },
  ])('$name', ({ owners, deleting, want }) => {
    expect(decideDependent({ deleting: deleting ?? false }, owners)).toMatchObject(want as object);
  });
});
