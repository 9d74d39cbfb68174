// The agent inside `stowage start` publishes pods' volumes under the data dir. When it
// stops, nothing may stay mounted there (an `rm -rf` of the data dir would reach into the
// volumes): it unpublishes everything, and the volume's data is untouched. A node's own
// agent (without unpublishOnStop) leaves its pods' volumes in place, as a kubelet does.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentApi } from './agent-client';
import { AgentLoop } from './agent-loop';
import { realAgentOs } from './os';
import { Publisher } from './publisher';
import { mountTargets, realPublishOs } from './publish-os';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) {
    await new Publisher(realPublishOs, path.join(d, 'pods')).unpublishAll();
    await fs.rm(d, { recursive: true, force: true });
  }
});

async function agentWithOnePod(unpublishOnStop: boolean) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'stowage-agent-stop-'));
  dirs.push(dir);
  const podsDir = path.join(dir, 'pods');
  await fs.mkdir(path.join(dir, 'vol1'));
  await fs.writeFile(path.join(dir, 'vol1', 'data.txt'), 'keep me');
  let reported = 0;
  const api = {
    whoami: async () => ({ nodeName: 'node-s' }),
    config: async () => ({ classes: [], resourceVersion: '1' }),
    heartbeat: async () => ({}),
    discoveries: async () => ({}),
    claim: async () => ({ jobs: [] }),
    pods: async () => ({
      pods: [{ namespace: 'apps', name: 'web', uid: 'uid-1', deleting: false, volumes: [{ name: 'data', claimName: 'c1', readOnly: false, pvName: 'pv-1', volumeMode: 'Filesystem', hostPath: path.join(dir, 'vol1') }] }],
    }),
    podStatus: async () => {
      reported++;
      return {};
    },
    podDone: async () => ({ deleted: true }),
  } as unknown as AgentApi;
  const loop = new AgentLoop({ api, os: realAgentOs, nodeName: 'node-s', podsDir, publishMs: 20, unpublishOnStop, log: pino({ level: 'silent' }) });
  await loop.start();
  const deadline = Date.now() + 15_000;
  while (reported === 0) {
    if (Date.now() > deadline) throw new Error('the pod was never published');
    await new Promise((r) => setTimeout(r, 20));
  }
  const published = path.join(podsDir, 'uid-1', 'volumes', 'data');
  expect(await fs.readFile(path.join(published, 'data.txt'), 'utf8')).toBe('keep me');
  return { loop, dir, podsDir, published };
}

describe('stopping an agent', () => {
  it('with unpublishOnStop: nothing stays published or mounted under the pods dir; the data is untouched', async () => {
    const { loop, dir, podsDir } = await agentWithOnePod(true);
    await loop.stop();
    expect(await fs.readdir(podsDir)).toEqual([]);
    expect([...mountTargets(await fs.readFile('/proc/self/mountinfo', 'utf8'))].filter((m) => m.startsWith(podsDir))).toEqual([]);
    expect(await fs.readFile(path.join(dir, 'vol1', 'data.txt'), 'utf8')).toBe('keep me');
  });

  it('without it (a node agent): the pod keeps its volume', async () => {
    const { loop, published } = await agentWithOnePod(false);
    await loop.stop();
    expect(await fs.readFile(path.join(published, 'data.txt'), 'utf8')).toBe('keep me');
  });
});
