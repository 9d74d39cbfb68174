// A cleanup that finished while the server could not be reached: the agent keeps the job
// (its lease renewed by each claim) and reports the end again until the server takes it,
// however long the outage; it stops only when the server refuses the report for good.
// Real files in a real directory; the server side is a stand-in API.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentHttpError, type AgentApi } from './agent-client';
import { AgentLoop } from './agent-loop';
import { realAgentOs } from './os';
import { localClass } from './local-class-fixture';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function setup(failures: number, refusal?: number) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-agent-report-'));
  dirs.push(dir);
  mkdirSync(path.join(dir, 'vol1'));
  for (let i = 0; i < 5; i++) writeFileSync(path.join(dir, 'vol1', `f${i}`), 'data');
  const cls = localClass({ hostDir: dir, mountDir: dir });
  let handed = false;
  const reports: number[] = [];
  const running: string[][] = [];
  const api = {
    whoami: async () => ({ nodeName: 'node-r' }),
    config: async () => ({ classes: [cls], resourceVersion: '1' }),
    heartbeat: async () => ({}),
    discoveries: async () => ({}),
    claim: async (_node: string, body: { running: string[] }) => {
      running.push(body.running);
      if (handed) return { jobs: [] };
      handed = true;
      return { jobs: [{ jobId: 'job-1', pvName: 'pv-1', className: 'local', hostPath: path.join(dir, 'vol1'), volumeMode: 'Filesystem', method: 'files', attempt: 1 }] };
    },
    progress: async () => ({ cancel: false }),
    result: async () => {
      reports.push(Date.now());
      if (refusal !== undefined) throw new AgentHttpError(`POST result: ${refusal} not yours`, refusal);
      if (reports.length <= failures) throw new Error('connect ENETUNREACH 10.0.0.1:6443');
      return { state: 'succeeded' };
    },
  } as unknown as AgentApi;
  const loop = new AgentLoop({ api, os: realAgentOs, nodeName: 'node-r', claimMs: 20, reportRetryMs: 10, log: pino({ level: 'silent' }) });
  return { loop, reports, running, dir };
}

describe('reporting the end of a cleanup', () => {
  it('retries through a long outage (12 failed reports) and keeps renewing the job meanwhile', async () => {
    const { loop, reports, running, dir } = setup(12);
    await loop.start();
    try {
      await until('the 13th report', () => reports.length === 13);
      expect(readdirSync(path.join(dir, 'vol1'))).toEqual([]); // the wipe itself ran once, on real files
      // While reporting, each claim named the job as running (so its lease was renewed).
      expect(running.some((r) => r.includes('job-1'))).toBe(true);
      await until('the job to be dropped after the report landed', () => (running.at(-1) ?? ['job-1']).length === 0);
    } finally {
      await loop.stop();
    }
  });

  it('stops at once when the server refuses the report for good (4xx)', async () => {
    const { loop, reports, running } = setup(0, 409);
    await loop.start();
    try {
      await until('the job to be dropped', () => reports.length >= 1 && (running.at(-1) ?? ['job-1']).length === 0);
      expect(reports).toHaveLength(1);
    } finally {
      await loop.stop();
    }
  });
});
