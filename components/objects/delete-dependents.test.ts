import { describe, expect, test } from 'vitest';
import { dependentsSentences, sampleText, type ReferenceCount } from './delete-dependents';

const r = (kind: string, count: number, names: string[], phases: Record<string, number> = {}): ReferenceCount => ({ kind, count, names, phases });

describe('sampleText', () => {
  test.each([
    { names: [], total: 0, want: '' },
    { names: ['a'], total: 1, want: 'a' },
    { names: ['a', 'b'], total: 2, want: 'a and b' },
    { names: ['a', 'b', 'c'], total: 3, want: 'a, b and c' },
    { names: ['a', 'b', 'c', 'd', 'e'], total: 5, want: 'a, b, c and 2 more' },
    { names: ['a', 'b', 'c', 'd', 'e'], total: 10000, want: 'a, b, c and 9997 more' },
  ])('$names of $total -> "$want"', ({ names, total, want }) => {
    expect(sampleText(names, total)).toBe(want);
  });
});

describe('dependentsSentences', () => {
  test.each([
    {
      what: 'a class nothing names',
      d: { kind: 'StorageClass', name: 'fast', isDefault: false, references: [r('PersistentVolumeClaim', 0, []), r('PersistentVolume', 0, [])] },
      want: { stays: [], stops: [] },
    },
    {
      what: 'a default class with bound and pending claims and volumes',
      d: {
        kind: 'StorageClass',
        name: 'fast',
        isDefault: true,
        references: [r('PersistentVolumeClaim', 5, ['a/x', 'a/y'], { Bound: 3, Pending: 2 }), r('PersistentVolume', 3, ['pv-1', 'pv-2', 'pv-3'], { Bound: 3 })],
      },
      want: {
        stays: ['3 claims of this class keep their volumes.', 'Its 3 volumes (pv-1, pv-2 and pv-3) stay; each is reclaimed by its own policy when released.'],
        stops: [
          '2 Pending claims of this class will not get a volume: they stay Pending until a class named fast exists again.',
          'It is the default class: new claims that name no class get none (they bind only to volumes without a class) until another class is made the default.',
        ],
      },
    },
    {
      what: 'one pending claim, one volume',
      d: { kind: 'StorageClass', name: 's', isDefault: false, references: [r('PersistentVolumeClaim', 1, ['a/x'], { Pending: 1 }), r('PersistentVolume', 1, ['pv-1'])] },
      want: {
        stays: ['Its 1 volume (pv-1) stays; each is reclaimed by its own policy when released.'],
        stops: ['1 Pending claim of this class will not get a volume: it stays Pending until a class named s exists again.'],
      },
    },
    {
      what: 'a snapshot class with snapshots and a schedule',
      d: { kind: 'VolumeSnapshotClass', name: 'snap', isDefault: false, references: [r('VolumeSnapshot', 12, ['a/s1', 'a/s2', 'a/s3', 'a/s4', 'a/s5']), r('SnapshotSchedule', 1, ['a/nightly'])] },
      want: {
        stays: ['12 snapshots of this class (a/s1, a/s2, a/s3 and 9 more) stay: their contents keep their own deletion policy.'],
        stops: ['1 schedule (a/nightly) names this class: its next snapshots fail until a class named snap exists again.'],
      },
    },
    {
      what: 'a default backup target with backups and schedules',
      d: { kind: 'BackupTarget', name: 'nfs', isDefault: true, references: [r('VolumeBackup', 2, ['a/b1', 'b/b2']), r('SnapshotSchedule', 2, ['a/n', 'b/n'])] },
      want: {
        stays: ["The data of its 2 backups (a/b1 and b/b2) stays at the target's path."],
        stops: [
          'Those 2 backups cannot be restored or verified until a target named nfs exists again, and deleting them then leaves their data where it is.',
          '2 schedules (a/n and b/n) back up into it: their backups wait until a target named nfs exists again.',
          'It is the default target: backups and schedules that name no target wait until another target is made the default.',
        ],
      },
    },
    {
      what: 'a kind it knows nothing of',
      d: { kind: 'Pod', name: 'p', isDefault: true, references: [r('Pod', 3, ['x'])] },
      want: { stays: [], stops: [] },
    },
  ])('$what', ({ d, want }) => {
    expect(dependentsSentences(d)).toEqual(want);
  });
});
