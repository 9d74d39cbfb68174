// SnapshotSchedule's rules: the field errors a user sees from kubectl apply and the dashboard.
import { describe, expect, test } from 'vitest';
import { createErrors, created, lines, patched } from '../testing';
import type { KubeObject } from '../types';
import { lastSnapshotAge, snapshotScheduleStrategy } from './strategy';

const base: KubeObject = {
  apiVersion: 'snapshot.stowage.io/v1',
  kind: 'SnapshotSchedule',
  metadata: { name: 'nightly', namespace: 'team-a' },
  spec: { every: '6h', keep: 7, target: { claimName: 'data' } },
};

describe('SnapshotSchedule on create', () => {
  test.each<{ rule: string; obj: KubeObject; want: (string | RegExp)[] }>([
    { rule: 'a schedule of one claim is valid', obj: base, want: [] },
    { rule: 'a schedule by label selector is valid', obj: patched(base, { spec: { target: { claimName: null, selector: { matchLabels: { backup: 'yes' } } } } }), want: [] },
    { rule: 'spec is required', obj: { ...base, spec: undefined }, want: ['spec: Required value'] },
    { rule: 'every is required', obj: patched(base, { spec: { every: null } }), want: ['spec.every: Required value: an interval such as 6h'] },
    { rule: 'every below 5m is refused', obj: patched(base, { spec: { every: '1m' } }), want: ['spec.every: Invalid value: "1m": must be at least 5m'] },
    { rule: 'every must be a duration', obj: patched(base, { spec: { every: 'daily' } }), want: ['spec.every: Invalid value: "daily": must be a duration such as 30m, 6h or 1d (units s, m, h, d)'] },
    { rule: 'keep is required', obj: patched(base, { spec: { keep: null } }), want: ['spec.keep: Required value: how many snapshots to keep per claim (1..100)'] },
    { rule: 'keep 0 is refused', obj: patched(base, { spec: { keep: 0 } }), want: ['spec.keep: Invalid value: 0: must be between 1 and 100'] },
    { rule: 'keep 101 is refused', obj: patched(base, { spec: { keep: 101 } }), want: ['spec.keep: Invalid value: 101: must be between 1 and 100'] },
    { rule: 'target is required', obj: patched(base, { spec: { target: null } }), want: ['spec.target: Required value: a claimName or a selector'] },
    { rule: 'target with both is refused', obj: patched(base, { spec: { target: { selector: {} } } }), want: ['spec.target: Invalid value: "object": exactly one of claimName and selector must be set'] },
    { rule: 'target with neither is refused', obj: patched(base, { spec: { target: { claimName: null } } }), want: ['spec.target: Invalid value: "object": exactly one of claimName and selector must be set'] },
    { rule: 'a bad claim name is refused', obj: patched(base, { spec: { target: { claimName: 'Data_1' } } }), want: [/^spec\.target\.claimName: Invalid value: "Data_1"/] },
    { rule: 'a bad selector is refused', obj: patched(base, { spec: { target: { claimName: null, selector: { matchLabels: { 'a b': 'x' } } } } }), want: [/^spec\.target\.selector\.matchLabels/] },
    { rule: 'an empty class name is refused', obj: patched(base, { spec: { snapshotClassName: '' } }), want: [/^spec\.snapshotClassName: Invalid value: ""/] },
    { rule: 'the name is a DNS label (it is a label value on the snapshots)', obj: patched(base, { metadata: { name: 'a.b' } }), want: [/^metadata\.name: Invalid value: "a\.b"/] },
    { rule: 'a backup to the default target, keep 30, is valid', obj: patched(base, { spec: { backup: { keep: 30 } } }), want: [] },
    { rule: 'a backup to a named target is valid', obj: patched(base, { spec: { backup: { targetName: 'nfs', keep: 1000 } } }), want: [] },
    { rule: 'backup keep is required', obj: patched(base, { spec: { backup: { targetName: 'nfs' } } }), want: ['spec.backup.keep: Required value: how many backups to keep per claim (1..1000)'] },
    { rule: 'backup keep 0 is refused', obj: patched(base, { spec: { backup: { keep: 0 } } }), want: ['spec.backup.keep: Invalid value: 0: must be between 1 and 1000'] },
    { rule: 'backup keep 1001 is refused', obj: patched(base, { spec: { backup: { keep: 1001 } } }), want: ['spec.backup.keep: Invalid value: 1001: must be between 1 and 1000'] },
    { rule: 'a bad target name is refused', obj: patched(base, { spec: { backup: { targetName: 'NFS!', keep: 3 } } }), want: [/^spec\.backup\.targetName: Invalid value: "NFS!"/] },
    { rule: 'unknown backup fields are refused', obj: patched(base, { spec: { backup: { keep: 3, every: '1d' } } }), want: [/every/] },
    { rule: 'unknown fields are refused', obj: patched(base, { spec: { often: true } }), want: [/often/] },
  ])('$rule', ({ obj, want }) => {
    const got = lines(createErrors(snapshotScheduleStrategy, obj));
    expect(got).toHaveLength(want.length);
    want.forEach((w, i) => (typeof w === 'string' ? expect(got[i]).toBe(w) : expect(got[i]).toMatch(w)));
  });

  test("status is the controller's: a create drops it", () => {
    expect(created(snapshotScheduleStrategy, { ...base, status: { lastScheduleTime: 'x' } }).status).toBeUndefined();
  });

  test('kubectl get prints every, keep and the target', () => {
    const row = snapshotScheduleStrategy.table.row(base as never, new Date());
    expect(row.slice(0, 4)).toEqual(['nightly', '6h', 7, 'data']);
  });
});

describe('the LASTSNAPSHOT column', () => {
  // A 1d schedule made at 09:00:00 UTC took its snapshot at once: its slot began at 00:00 UTC.
  const now = new Date('2026-11-26T09:00:03Z');
  test.each<{ rule: string; status: Record<string, string> | undefined; want: string }>([
    { rule: 'a snapshot taken 3 s ago reads 3s, not the 9h since its slot began', status: { lastScheduleTime: '2026-11-26T00:00:00Z', lastSnapshotTime: '2026-11-26T09:00:00Z' }, want: '3s' },
    { rule: 'a snapshot taken 2 days ago reads 2d', status: { lastScheduleTime: '2026-11-24T00:00:00Z', lastSnapshotTime: '2026-11-24T09:00:03Z' }, want: '2d' },
    { rule: 'a status from before snapshot times were recorded reads the slot', status: { lastScheduleTime: '2026-11-26T06:00:00Z' }, want: '3h' },
    { rule: 'no snapshot yet is empty', status: undefined, want: '' },
  ])('$rule', ({ status, want }) => {
    const s = { ...base, spec: { ...(base.spec as object), every: '1d' }, status } as never;
    expect(lastSnapshotAge(s, now)).toBe(want);
    expect(snapshotScheduleStrategy.table.row(s, now)[5]).toBe(want);
  });
});
