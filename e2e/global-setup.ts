// Starts one Stowage for the whole run: `stowage start` with its own temporary data dir
// and free ports; reads the first admin's password from its output and an admin token
// from the kubeconfig it writes; adds a developer with the CLI. Returns the teardown,
// which stops Stowage with SIGTERM (as Ctrl-C would) and removes the data dir.
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { freePort } from '../server/store/free-port';
import { E2E_ENV, DEV_USER } from './env';
import { createObject, signInSession } from './api';

const root = path.resolve(import.meta.dirname, '..');
const bin = path.join(root, 'bin', 'stowage.mjs');
const START_TIMEOUT_MS = 240_000; // the first start builds the dashboard


function waitForStart(child: ChildProcess, output: { text: string }): Promise<{ url: string; password: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Stowage did not start within ${START_TIMEOUT_MS / 1000}s:\n${output.text}`)), START_TIMEOUT_MS);
    const check = () => {
      const url = /Stowage is running at (\S+)/.exec(output.text)?.[1];
      const password = /Password:\s+(\S+)/.exec(output.text)?.[1];
      if (url && password && output.text.includes('Press Ctrl-C')) {
        clearTimeout(timer);
        resolve({ url, password });
      }
    };
    child.stdout!.on('data', (d) => {
      output.text += d;
      check();
    });
    child.stderr!.on('data', (d) => (output.text += d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Stowage exited (code ${code}) before it was ready:\n${output.text}`));
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export default async function globalSetup() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'stowage-e2e-'));
  // Embedded Postgres runs as its own user, which must be able to enter the dir.
  chmodSync(dataDir, 0o755);
  const [port, apiPort] = [await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    STOWAGE_DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    STOWAGE_API_PORT: String(apiPort),
    NEXT_TELEMETRY_DISABLED: '1',
  };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, [bin, 'start'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { text: '' };
  const teardown = async () => {
    await stop(child);
    if (!process.env.STOWAGE_E2E_KEEP) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const { url, password } = await waitForStart(child, output);
    const kubeconfig = parse(readFileSync(path.join(dataDir, 'admin.kubeconfig'), 'utf8')) as { users: { user: { token: string } }[] };
    process.env[E2E_ENV.url] = url;
    process.env[E2E_ENV.adminPassword] = password;
    process.env[E2E_ENV.adminToken] = kubeconfig.users[0].user.token;
    process.env[E2E_ENV.adminSession] = await signInSession('admin', password);

    await promisify(execFile)(
      process.execPath,
      [bin, 'user', 'add', DEV_USER.name, '--role', 'developer', '--namespace', DEV_USER.namespace, '--password', DEV_USER.password],
      { cwd: root, env },
    );
    for (const ns of [DEV_USER.namespace, DEV_USER.otherNamespace]) {
      await createObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }
  } catch (e) {
    await teardown();
    throw e;
  }
  return teardown;
}
