// A cleanup job whose lease ran out is handed out again: to another agent instance (its
// holder died), and to the same instance when that instance no longer runs it (it gave up
// reporting the end through a long outage). A job the instance does run keeps its lease.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CleanupJobStore } from '../../server/store/cleanup-jobs';
import { openTestStore, rawQuery, type TestStore } from '../db';

let t: TestStore;
let jobs: CleanupJobStore;

beforeAll(async () => {
  t = await openTestStore();
  jobs = new CleanupJobStore(t.store);
});
afterAll(() => t.close());

async function newJob(entry: string): Promise<string> {
  const { job } = await jobs.record({
    nodeName: 'node-a',
    pvName: `pv-${entry}`,
    pvUid: `uid-${entry}`,
    hostPath: `/mnt/disks/${entry}`,
    className: 'fast',
    volumeMode: 'Filesystem',
    method: 'dd-zero',
    command: [],
    fsType: '',
    state: 'queued',
  });
  return job.id;
}

const expire = (id: string) => rawQuery(t.url, `UPDATE cleanup_jobs SET lease_until = now() - interval '1 second' WHERE id = $1::uuid`, [id]);

it.each([
  { name: 'another instance takes an expired job (its holder died)', claimer: 'agent-2', running: [] as string[], handed: true },
  { name: 'the same instance takes back an expired job it no longer runs', claimer: 'agent-1', running: [], handed: true },
  { name: 'the same instance still running it: not handed out twice', claimer: 'agent-1', running: ['SELF'], handed: false },
])('$name', async ({ claimer, running, handed }) => {
  const id = await newJob(`${claimer}-${running.length}-${handed}`);
  const first = await jobs.claim('node-a', 'agent-1', 60_000, 10);
  expect(first.map((j) => j.id)).toContain(id);
  await expire(id);
  const again = await jobs.claim('node-a', claimer, 60_000, 10, running.map((r) => (r === 'SELF' ? id : r)));
  expect(again.some((j) => j.id === id)).toBe(handed);
  if (handed) expect(again.find((j) => j.id === id)?.attempt).toBe(2);
  // Leave nothing open for the next row.
  await rawQuery(t.url, `UPDATE cleanup_jobs SET state = 'succeeded' WHERE id = $1::uuid`, [id]);
});
