// SnapshotSchedule (snapshot.stowage.io/v1) with kubectl: a developer applies one in their
// namespace, gets it with its columns, describes it, sees clear field errors, and may not
// touch another namespace's.
import { describe, expect, test } from 'vitest';
import { DEV_NAMESPACE, findKubectl, kubectlSuite } from './harness';

const bin = findKubectl();
if (!bin) console.log('skipping snapshot schedule kubectl tests: no kubectl on PATH');

const schedule = (every: string, keep: number, ns = '') => `apiVersion: snapshot.stowage.io/v1
kind: SnapshotSchedule
metadata:
  name: nightly${ns ? `\n  namespace: ${ns}` : ''}
spec:
  every: ${every}
  keep: ${keep}
  target:
    claimName: data
`;

describe.skipIf(!bin)('snapshot.stowage.io with kubectl', () => {
  const { kubectl } = kubectlSuite(bin!);

  test('api-resources lists the kind', async () => {
    const r = await kubectl(['api-resources', '--api-group', 'snapshot.stowage.io']);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n').slice(1).map((l) => l.split(/\s+/))).toEqual([['snapshotschedules', 'vssched', 'snapshot.stowage.io/v1', 'true', 'SnapshotSchedule']]);
  });

  test('a developer applies, re-applies, gets and describes a schedule', async () => {
    const a = await kubectl(['apply', '-f', '-'], { user: 'dev', input: schedule('6h', 7) });
    expect(a.stderr).toBe('');
    expect(a.stdout).toBe('snapshotschedule.snapshot.stowage.io/nightly created\n');
    const b = await kubectl(['apply', '-f', '-'], { user: 'dev', input: schedule('12h', 3) });
    expect(b.stdout).toBe('snapshotschedule.snapshot.stowage.io/nightly configured\n');
    const g = await kubectl(['get', 'snapshotschedules'], { user: 'dev' });
    expect(g.stderr).toBe('');
    const [header, row] = g.stdout.trim().split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['NAME', 'EVERY', 'KEEP', 'TARGET', 'LASTSNAPSHOT', 'AGE']);
    expect(row.split(/\s+/).slice(0, 4)).toEqual(['nightly', '12h', '3', 'data']);
    const d = await kubectl(['describe', 'vssched', 'nightly'], { user: 'dev' });
    expect(d.stderr).toBe('');
    expect(d.stdout).toMatch(/^Name:\s+nightly$/m);
    expect(d.stdout).toMatch(/Every:\s+12h/);
  });

  test('explain describes the fields', async () => {
    const r = await kubectl(['explain', 'snapshotschedule.spec.every'], { user: 'dev' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('at least 5m');
  });

  test('field errors say what is wrong', async () => {
    const r = await kubectl(['apply', '-f', '-'], { user: 'dev', input: schedule('1m', 0).replace('nightly', 'bad') });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('spec.every: Invalid value: "1m": must be at least 5m');
    expect(r.stderr).toContain('spec.keep: Invalid value: 0: must be between 1 and 100');
  });

  test('a developer may not schedule snapshots in another namespace', async () => {
    const r = await kubectl(['apply', '-f', '-'], { user: 'dev', input: schedule('6h', 7, 'default') });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('forbidden');
    expect(DEV_NAMESPACE).not.toBe('default');
  });
});
