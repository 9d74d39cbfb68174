// What the benches that run the product in their own process share: a Postgres of their
// own with the API server on it, a btrfs pool from a file, an agent for this node,
// waiting for a condition with a deadline, and nearest-rank percentiles. Their temp
// directory goes with releaseAndWarn (server/provisioners/testing.ts), mounts and loop
// devices included.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { agentHttpClient } from '../server/agent/agent-client';
import { AgentLoop, type AgentLoopOptions } from '../server/agent/agent-loop';
import { realAgentOs } from '../server/agent/os';
import { createPool, poolSupport } from '../server/agent/pool-setup';
import { createAppContext, type AppContext } from '../server/wiring/context';
import { startApiServer, type RunningApiServer } from '../server/kube/api-server';
import { releaseAndWarn } from '../server/provisioners/testing';
import { logger } from '../server/services/logger';
import { ensureDatabase, startEmbeddedPostgres } from '../server/store/database';
import { migrate } from '../server/store/migrate';

/**
 * Releases `work` (mounts, loop devices, files) also when the bench is stopped early: by
 * SIGINT or SIGTERM, or by a reader that went away (`| head` closes stdout, and the next
 * write would otherwise end the process before its own cleanup). The bench's `finally`
 * still releases it on a normal end.
 */
export function releaseOnEarlyExit(work: string): void {
  let releasing = false;
  const release = async (code: number) => {
    if (releasing) return;
    releasing = true;
    await releaseAndWarn(work);
    process.exit(code);
  };
  process.once('SIGINT', () => void release(130));
  process.once('SIGTERM', () => void release(143));
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') void release(0);
  });
}

/** The value at percentile `p` (nearest rank) of `xs`; p 50 is the lower median. */
export const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];
export const median = (xs: number[]) => pct(xs, 50);

/** A wait for `probe` to hold, looking every `everyMs`; it throws after `timeoutMs` (or the call's own). */
export function untilWith({ everyMs, timeoutMs }: { everyMs: number; timeoutMs: number }) {
  return async (what: string, probe: () => Promise<boolean>, deadlineMs = timeoutMs): Promise<void> => {
    const deadline = Date.now() + deadlineMs;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  };
}

export interface Stack {
  url: string;
  app: AppContext;
  api: RunningApiServer;
  /** The API server, the app and Postgres, stopped in that order. */
  stop(): Promise<void>;
}

/** An embedded Postgres under `<work>/pg`, migrated, the app on it, the HTTPS API on a free port, and `namespaces`. */
export async function startStack(work: string, namespaces: string[]): Promise<Stack> {
  const pg = await startEmbeddedPostgres(path.join(work, 'pg'));
  const url = await ensureDatabase(pg.baseUrl, 'stowage');
  await migrate(url);
  const app = await createAppContext(url);
  const api = await startApiServer({ app, dataDir: work, host: '127.0.0.1', port: 0 });
  for (const ns of namespaces) await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  return {
    url,
    app,
    api,
    async stop() {
      await api.close();
      await app.close();
      await pg.stop();
    },
  };
}

/** A btrfs pool of `sizeBytes` mounted at `<work>/pool` (backing file `<work>/pool.img`); its path. */
export async function makeBenchPool(work: string, sizeBytes: bigint): Promise<string> {
  const pool = path.join(work, 'pool');
  await createPool({ source: path.join(work, 'pool.img'), mount: pool, sizeBytes });
  return pool;
}

/** An agent for `node` on the real OS, talking to the stack's API with a node token of its own; started. */
export async function startBenchAgent(s: Stack, node: string, o: Omit<AgentLoopOptions, 'api' | 'os' | 'nodeName' | 'log'>): Promise<AgentLoop> {
  const agent = new AgentLoop({
    api: agentHttpClient({ server: s.api.url, token: await s.app.nodeAgent.createToken(node), caPem: s.api.caPem }),
    os: realAgentOs,
    nodeName: node,
    log: logger.child({ component: 'agent' }),
    ...o,
  });
  await agent.start();
  return agent;
}

/**
 * A bench that needs btrfs pools: on a machine that cannot make one it says why and exits 0;
 * else a new temp directory `<base>/<prefix>…` (released also on an early exit).
 */
export async function poolBenchDir(prefix: string, base = os.tmpdir()): Promise<string> {
  const support = await poolSupport();
  if (!support.ok) {
    console.log(`skipped: ${support.reason}`);
    process.exit(0);
  }
  const work = await fs.mkdtemp(path.join(base, prefix));
  releaseOnEarlyExit(work);
  return work;
}
