// The node agent given a data mover runs its node's data jobs and reports on the backup
// targets, over the real agent API, and stops cleanly.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { agentHttpClient } from '../../server/agent/agent-client';
import { AgentLoop } from '../../server/agent/agent-loop';
import { realAgentOs } from '../../server/agent/os';
import { DataJobStore } from '../../server/store/data-jobs';
import { TargetReports } from '../../server/store/target-reports';
import { waitFor } from '../controllers/fixtures';
import { openLocalHarness, type LocalHarness } from '../local-volumes/harness';
import { copyMover } from './copy-mover';

let h: LocalHarness;
let dir: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-data-jobs-'));
  await fs.mkdir(path.join(dir, 'target'));
  await fs.mkdir(path.join(dir, 'src'));
  await fs.writeFile(path.join(dir, 'src', 'f.txt'), 'some data');
  h = await openLocalHarness({ agent: { backupTargets: async () => [{ name: 'nfs', path: path.join(dir, 'target') }] } });
});
afterAll(async () => {
  await h?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

it('runs a backup job of its node and reports the target, then stops cleanly', async () => {
  const api = agentHttpClient({ server: h.api.url, token: await h.tokenFor('node-m'), caPem: h.api.caPem });
  // The agent sees the host under poolRoot (as in a container): a job's volume paths are read there, the target's are not.
  const root = path.join(dir, 'root');
  await fs.mkdir(path.join(root, dir), { recursive: true });
  await fs.rename(path.join(dir, 'src'), path.join(root, dir, 'src'));
  const loop = new AgentLoop({ api, os: realAgentOs, nodeName: 'node-m', dataMover: copyMover(), poolRoot: root, log: pino({ level: 'silent' }) });
  await loop.start();
  try {
    const jobs = new DataJobStore(h.app.store);
    await jobs.ensure('backup/bm', 'node-m', {
      kind: 'backup',
      backupId: 'bm',
      targetPath: path.join(dir, 'target'),
      format: 'files',
      sourcePath: path.join(dir, 'src'),
      origin: { namespace: 'default', claimName: 'c', volumeBackupName: 'bm', sizeBytes: '1024', installation: 'test' },
    });
    const done = await waitFor('backup/bm succeeded', async () => ((await jobs.get('backup/bm'))?.state === 'succeeded' ? true : undefined));
    expect(done).toBe(true);
    expect(await fs.readFile(path.join(dir, 'target/copy-backups/bm/data/f.txt'), 'utf8')).toBe('some data');
    const rows = await waitFor('a report of node-m', async () => {
      const r = (await new TargetReports(h.app.store).list()).filter((x) => x.node === 'node-m' && x.report.backups.length === 1);
      return r.length ? r : undefined;
    });
    expect(rows[0].report).toMatchObject({ name: 'nfs', reachable: true, writable: true });
  } finally {
    await loop.stop();
  }
});
