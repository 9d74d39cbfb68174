// The system under test of bench/write-path.ts --api-workers N: a real `stowage start`
// (bin/stowage.mjs, the compiled build) on the bench's database, the dashboard's pages off,
// with N API worker processes, as `npm start` runs it: the controllers, the agent and the API
// all there. Its CPU is read from /proc for the whole process tree (bench/pg-cpu.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort } from '../server/store/free-port';
import { processTreeCpuMs } from './pg-cpu';

export interface RunningStowage {
  pid: number;
  apiUrl: string;
  caPem: string;
  /** CPU of every Stowage process so far (ms). */
  cpuMs(): number;
  /** Resolves once the whole tree used under 5 % of a core for two seconds in a row (at most `limitMs`). */
  quiet(limitMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startStowage(o: { databaseUrl: string; dataDir: string; apiWorkers: number; nodeFlags?: string[] }): Promise<RunningStowage> {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: o.databaseUrl,
    STOWAGE_DATA_DIR: o.dataDir,
    STOWAGE_DASHBOARD: 'off',
    STOWAGE_NODE_NAME: 'bench-node',
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    STOWAGE_API_PORT: String(await freePort()),
    STOWAGE_LOG_LEVEL: 'warn',
    STOWAGE_API_WORKERS: String(o.apiWorkers),
  };
  const child: ChildProcess = spawn(process.execPath, [...(o.nodeFlags ?? []), path.join(root, 'bin', 'stowage.mjs'), 'start'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const apiUrl = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`stowage start exited (${code}):\n${out}`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const api = /Kubernetes-compatible API: (https:\/\/\S+)/.exec(out);
      if (api && out.includes('Press Ctrl-C')) resolve(api[1]);
    });
  });
  child.stdout!.on('data', () => {}); // keep the pipe drained
  const pid = child.pid!;
  const cpuMs = () => processTreeCpuMs(pid) ?? NaN;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid,
    apiUrl,
    caPem: readFileSync(path.join(o.dataDir, 'pki', 'ca.crt'), 'utf8'),
    cpuMs,
    quiet: async (limitMs = 120_000) => {
      const deadline = Date.now() + limitMs;
      let calm = 0;
      let last = cpuMs();
      while (calm < 4 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        const now = cpuMs();
        calm = now - last < 25 ? calm + 1 : 0;
        last = now;
      }
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
