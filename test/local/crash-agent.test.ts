// A cleanup command must never outlive its agent: `kill -9` of an agent leaves its command
// running (that cannot be prevented), and the restarted agent ends it before it takes any
// job, so the same disk is never wiped by two commands at once. Real processes throughout:
// the command is `sh -c 'sleep 600 & wait'`, a shell with a child of its own, as a custom
// cleanup script that starts dd would be.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AgentApi } from '../../server/agent/agent-client';
import { AgentLoop } from '../../server/agent/agent-loop';
import { stillRunning } from '../../server/agent/cleanup-ledger';
import { realAgentOs, type SpawnedProcess } from '../../server/agent/os';
import { waitFor } from '../controllers/fixtures';
import { firstLine, kill9, startScript } from './crash/children';

const dirs: string[] = [];
/** Every command started, for the clean-up after a failure. */
const commands: SpawnedProcess[] = [];
let child: ChildProcess | undefined;

function stateDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'stowage-crash-agent-'));
  dirs.push(d);
  return d;
}

const members = (pgid: number) => realAgentOs.processGroup(pgid);

/** Starts the agent-playing child; resolves with the command's pid once the command and its own child run. */
async function agentWithCommand(dir: string, mode: 'hold' | 'exit'): Promise<number> {
  child = startScript('run-cleanup.ts', [dir, mode]);
  const started = await firstLine<SpawnedProcess>(child, 30_000);
  commands.push(started);
  const { pid } = started;
  if (mode === 'hold') await waitFor('the command and its child', async () => (await members(pid)).length >= 2);
  return pid;
}

/** An API with no jobs, noting for each claim whether the old command's group still had processes. */
function stubApi(watch: number) {
  const claims: number[] = [];
  const api = {
    whoami: async () => ({ nodeName: 'node-c' }),
    config: async () => ({ classes: [], resourceVersion: '1' }),
    heartbeat: async () => ({}),
    discoveries: async () => ({}),
    claim: async () => {
      claims.push((await members(watch)).length);
      return { jobs: [] };
    },
  } as unknown as AgentApi;
  return { api, claims };
}

afterEach(async () => {
  if (child) await kill9(child);
  child = undefined;
});

afterAll(async () => {
  // Only groups that are still those commands' (a pid may have been given to another process).
  for (const c of commands) {
    if (stillRunning({ ...c, bootId: '', command: '' }, await members(c.pid))) realAgentOs.signalGroup(c.pid, 'SIGKILL');
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('cleanup commands after their agent dies', () => {
  it('kill -9 of the agent: the restarted agent ends the leftover command before taking any job', async () => {
    const dir = stateDir();
    const pid = await agentWithCommand(dir, 'hold');
    await kill9(child!);
    child = undefined;
    expect((await members(pid)).length).toBe(2); // the agent is gone, its wipe is not

    const { api, claims } = stubApi(pid);
    const loop = new AgentLoop({ api, os: realAgentOs, nodeName: 'node-c', stateDir: dir, claimMs: 50, log: pino({ level: 'silent' }) });
    const t0 = performance.now();
    await loop.start();
    const ms = performance.now() - t0;
    try {
      expect(await members(pid)).toEqual([]);
      await waitFor('the first claims', async () => claims.length >= 3);
      expect(claims.every((n) => n === 0)).toBe(true);
      console.log(`restarted agent ended the leftover cleanup command in ${ms.toFixed(0)} ms, before its first claim`);
    } finally {
      await loop.stop();
    }
  });

  it('an agent that exits (process.exit) takes its commands with it', async () => {
    const pid = await agentWithCommand(stateDir(), 'exit');
    await new Promise<void>((resolve) => (child!.exitCode !== null ? resolve() : child!.once('exit', () => resolve())));
    await waitFor('the command group to end', async () => (await members(pid)).length === 0, 10_000);
  });

  it('aborting a command ends its whole process group, not only the command', async () => {
    const abort = new AbortController();
    let pid = 0;
    const ledger = { started: (p: SpawnedProcess) => commands.push(p) && (pid = p.pid), ended: () => {} };
    const done = realAgentOs.run(['sh', '-c', 'sleep 600 & wait'], { signal: abort.signal, ledger });
    await waitFor('the command and its child', async () => (await members(pid)).length >= 2);
    abort.abort();
    expect((await done).signal).toBe('SIGTERM');
    await waitFor('the whole group to end', async () => (await members(pid)).length === 0, 10_000);
  });
});
