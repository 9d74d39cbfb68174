// Publishing through the agent loop, against a stand-in API: a new pod is reported ready at
// once, before its volume's usage is measured; the agent goes over its pods again after a
// quiet wait (an unchanged answer), and that report carries the usage. Real directories.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, expect, it, vi } from 'vitest';
import type { AgentApi } from './agent-client';
import type { AgentPod, PodReport } from '../contracts/agent';
import { AgentLoop } from './agent-loop';
import { realAgentOs } from './os';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

it('reports a new pod ready at once, and its usage with a later report after a quiet wait', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-agent-publish-'));
  dirs.push(dir);
  mkdirSync(path.join(dir, 'vol1'));
  writeFileSync(path.join(dir, 'vol1', 'data.bin'), Buffer.alloc(64 * 1024, 1));
  const pod: AgentPod = {
    namespace: 'apps',
    name: 'p1',
    uid: 'u1',
    deleting: false,
    volumes: [{ name: 'data', claimName: 'c1', readOnly: false, pvName: 'pv-1', volumeMode: 'Filesystem', hostPath: path.join(dir, 'vol1') }],
  };
  const reports: PodReport[] = [];
  let asks = 0;
  const api = {
    whoami: async () => ({ nodeName: 'node-p' }),
    config: async () => ({ classes: [], resourceVersion: '1' }),
    heartbeat: async () => ({}),
    discoveries: async () => ({}),
    claim: async () => ({ jobs: [] }),
    poolWork: async () => ({ pools: [], volumes: [] }),
    pods: async (_node: string, wait?: { waitMs: number; seen?: string }) => {
      asks++;
      // The same answer every time; an ask naming it is held a moment (as the server holds it).
      if (wait?.seen === 'v1') await new Promise((r) => setTimeout(r, Math.min(wait.waitMs, 100)));
      return { pods: [pod], version: 'v1' };
    },
    podStatus: async (_node: string, report: PodReport) => {
      reports.push(report);
      return { phase: 'Running' };
    },
    podDone: async () => ({}),
  } as unknown as AgentApi;
  const loop = new AgentLoop({ api, os: realAgentOs, nodeName: 'node-p', podsDir: path.join(dir, 'pods'), publishMs: 50, unpublishOnStop: true, log: pino({ level: 'silent' }) });
  await loop.start();
  try {
    await vi.waitFor(() => expect(reports.length).toBeGreaterThanOrEqual(1), { timeout: 10_000 });
    expect(reports[0].volumes[0]).toMatchObject({ name: 'data', ready: true });
    expect(reports[0].volumes[0].usedBytes).toBeUndefined();
    // No change on the server: the next report comes from a pass after a quiet wait.
    await vi.waitFor(() => expect(reports.at(-1)?.volumes[0].usedBytes).toBeDefined(), { timeout: 10_000 });
    expect(BigInt(reports.at(-1)!.volumes[0].usedBytes!)).toBeGreaterThanOrEqual(64n * 1024n);
    expect(asks).toBeGreaterThanOrEqual(2);
  } finally {
    await loop.stop();
  }
});
