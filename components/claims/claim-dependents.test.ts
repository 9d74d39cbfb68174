import { describe, expect, it, test } from 'vitest';
import { dependentsText, mergeDependents, someNames } from './claim-dependents';

describe('dependentsText: what a claim delete leaves and what it stops', () => {
  it.each([
    { name: 'nothing made from it', d: { snapshots: [], schedules: [], backups: [] }, stays: [], stops: [], toPause: [] },
    {
      name: 'one snapshot, one backup',
      d: { snapshots: ['s1'], schedules: [], backups: ['b1'] },
      stays: ['Snapshot s1 stays: it can still be restored to a new claim.', 'Backup b1 stays in its target: a new claim can restore from it.'],
      stops: [],
      toPause: [],
    },
    {
      name: 'many snapshots and backups',
      d: { snapshots: ['s1', 's2', 's3', 's4', 's5'], schedules: [], backups: ['b1', 'b2'] },
      stays: ['Its 5 snapshots stay (s1, s2, s3 and 2 more): each can still be restored to a new claim.', 'Its 2 backups stay in their targets (b1 and b2): a new claim can restore from them.'],
      stops: [],
      toPause: [],
    },
    {
      name: 'an active schedule stops and is offered for pausing',
      d: { snapshots: [], schedules: [{ name: 'data-6h', suspended: false }], backups: [] },
      stays: [],
      stops: ['Schedule data-6h stops: there is no claim left to snapshot. Pause it (or delete it) so it does not keep failing; the snapshots already taken stay.'],
      toPause: ['data-6h'],
    },
    {
      name: 'a paused schedule stays paused; the active ones stop',
      d: { snapshots: [], schedules: [{ name: 'old', suspended: true }, { name: 'a', suspended: false }, { name: 'b', suspended: false }], backups: [] },
      stays: ['Schedule old is paused and stays so.'],
      stops: ['Schedules a and b stop: there is no claim left to snapshot. Pause them (or delete them) so they do not keep failing; the snapshots already taken stay.'],
      toPause: ['a', 'b'],
    },
  ])('$name', ({ d, stays, stops, toPause }) => expect(dependentsText(d)).toEqual({ stays, stops, toPause }));

  it.each([
    { names: [], want: '' },
    { names: ['a'], want: 'a' },
    { names: ['a', 'b', 'c'], want: 'a, b and c' },
    { names: ['a', 'b', 'c', 'd'], want: 'a, b, c and 1 more' },
  ])('someNames($names) = "$want"', ({ names, want }) => expect(someNames(names)).toBe(want));
});

describe('mergeDependents (a bulk delete)', () => {
  test('names once each, in order; a schedule of several claims once', () => {
    expect(
      mergeDependents([
        { snapshots: ['a/s1'], schedules: [{ name: 'a/nightly', suspended: false }], backups: ['a/b1'] },
        { snapshots: ['a/s2', 'a/s1'], schedules: [{ name: 'a/nightly', suspended: false }, { name: 'a/weekly', suspended: true }], backups: [] },
        { snapshots: [], schedules: [], backups: [] },
      ]),
    ).toEqual({
      snapshots: ['a/s1', 'a/s2'],
      schedules: [
        { name: 'a/nightly', suspended: false },
        { name: 'a/weekly', suspended: true },
      ],
      backups: ['a/b1'],
    });
    expect(mergeDependents([])).toEqual({ snapshots: [], schedules: [], backups: [] });
  });
});
