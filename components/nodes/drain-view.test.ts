import { describe, expect, test } from 'vitest';
import { behindText, drainErrorText, drainOutcome } from './drain-view';

describe('behindText', () => {
  test.each([
    ['no transfer yet: undefined', undefined, 'no transfer yet'],
    ['no transfer yet: negative (clock skew)', -5, 'no transfer yet'],
    ['no transfer yet: NaN', Number.NaN, 'no transfer yet'],
    ['in sync: zero', 0, 'in sync'],
    ['in sync: one second', 1, 'in sync'],
    ['seconds below two minutes', 42.4, '42 s behind'],
    ['minutes from two minutes', 125, '2 min behind'],
    ['hours from two hours', 3 * 3600, '3 h behind'],
  ])('%s', (_name, seconds, want) => {
    expect(behindText(seconds)).toBe(want);
  });
});

describe('drainOutcome', () => {
  test.each([
    ['nothing to move', { moves: 0, stays: 0, podsToStop: 0 }, 'n1 is cordoned: no new pod is placed on it. No volume moves.'],
    ['one move, no pods', { moves: 1, stays: 0, podsToStop: 0 }, 'n1 is cordoned: no new pod is placed on it. 1 volume will move to its replica (a final transfer, then the switch).'],
    [
      'moves waiting on pods, and stays',
      { moves: 2, stays: 3, podsToStop: 2 },
      'n1 is cordoned: no new pod is placed on it. 2 volumes will move to their replicas (a final transfer, then the switch). Each waits until the 2 pods using it on this node have stopped. 3 volumes stay on this node.',
    ],
    ['one stays', { moves: 0, stays: 1, podsToStop: 0 }, 'n1 is cordoned: no new pod is placed on it. No volume moves. 1 volume stays on this node.'],
  ])('%s', (_name, counts, want) => {
    expect(drainOutcome('n1', counts)).toBe(want);
  });
});

describe('drainErrorText', () => {
  test.each([
    ['forbidden: in words, not RBAC', { code: 'FORBIDDEN', message: 'User "dev" cannot drain nodes: it needs to update nodes and volumes' }, 'drain' as const, 'Only an administrator can drain a node.'],
    ['forbidden uncordon', { code: 'FORBIDDEN', message: 'x' }, 'uncordon' as const, 'Only an administrator can uncordon a node.'],
    ['not found', { code: 'NOT_FOUND', message: 'nodes "n1" not found' }, 'preview' as const, 'This node is gone: it was deleted.'],
    ['a plain message: a sentence', { code: 'BAD_REQUEST', message: '"X" is not a node name' }, 'drain' as const, '"X" is not a node name.'],
    ['a stack trace: only a generic sentence', { code: 'INTERNAL_SERVER_ERROR', message: 'TypeError: x is undefined\n    at f (server/a.ts:1:2)' }, 'drain' as const, 'TypeError: x is undefined.'],
    ['a trace line first: generic', { message: '    at f (server/a.ts:1:2)' }, 'drain' as const, 'The drain did not go through. Try again in a moment.'],
    ['a bare error name: generic', { message: 'Error' }, 'preview' as const, 'The preview could not be made. Try again in a moment.'],
    ['nothing at all: generic', undefined, 'uncordon' as const, 'The uncordon did not go through. Try again in a moment.'],
  ])('%s', (_name, err, action, want) => {
    expect(drainErrorText(err, action)).toBe(want);
  });
  test('a long message is cut', () => {
    const t = drainErrorText({ message: 'x'.repeat(5000) }, 'drain');
    expect(t.length).toBeLessThanOrEqual(302);
    expect(t).toMatch(/…\.$/);
  });
});
