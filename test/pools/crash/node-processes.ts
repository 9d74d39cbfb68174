// The agent and the controllers of the pool and snapshot restart tests, each in a process of
// its own (run-agent.ts, run-controllers.ts) beside a local harness's API server and
// database: started (ready once they print their first line), killed with SIGKILL as a
// crash, and started again.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { firstLine, kill9, startScript } from '../../local/crash/children';
import type { LocalHarness } from '../../local-volumes/harness';
import { waitFor } from '../../controllers/fixtures';

export type Which = 'agent' | 'controllers';

export interface NodeProcesses {
  start(which: Which): Promise<void>;
  /** kill -9 of each named process, then all of them started again. */
  crash(which: Which[]): Promise<void>;
  /** kill -9 of whatever still runs (the tests' afterAll). */
  killAll(): Promise<void>;
}

/** Where an agent works (run-agent.ts), and which controllers run (`all`: every one, run-controllers.ts). */
export interface NodeProcessOptions {
  agent?: { poolRoot?: string; podsDir?: string; replicationListen?: string };
  controllers?: 'all';
}

/** The processes of node `node`: its agent (with a node token and the harness's CA) and the controllers. */
export async function nodeProcesses(h: LocalHarness, node: string, o: NodeProcessOptions = {}): Promise<NodeProcesses> {
  const caFile = path.join(h.dir, 'ca.crt');
  await fs.writeFile(caFile, h.api.caPem);
  const token = await h.tokenFor(node);
  const children: Partial<Record<Which, ChildProcess>> = {};
  const start = async (which: Which) => {
    const child =
      which === 'agent'
        ? startScript('../../pools/crash/run-agent.ts', [h.api.url, token, caFile, node, ...(o.agent ? [JSON.stringify(o.agent)] : [])])
        : startScript('../../pools/crash/run-controllers.ts', [h.url, ...(o.controllers ? [o.controllers] : [])]);
    children[which] = child;
    await firstLine(child, 60_000);
  };
  return {
    start,
    async crash(which) {
      for (const w of which) {
        await kill9(children[w]!);
        children[w] = undefined;
      }
      await Promise.all(which.map(start));
    },
    async killAll() {
      for (const c of Object.values(children)) if (c) await kill9(c);
    },
  };
}

/** Waits until `inFlight` finds work in the middle (intent records), or `done` holds; how many were in flight (-1: done first). */
export function midway(inFlight: () => Promise<unknown[]>, done: () => Promise<boolean>, what = 'work in flight'): Promise<number> {
  return waitFor(what, async () => (await inFlight()).length || ((await done()) ? -1 : undefined), 60_000);
}
