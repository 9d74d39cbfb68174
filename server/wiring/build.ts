// Builds the dashboard (next build) when it has never been built or its sources changed.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const SOURCES = ['app', 'components', 'server/resources', 'server/domain', 'server/trpc', 'next.config.js', 'package-lock.json'];

function hashTree(root: string): string {
  const h = createHash('sha256');
  const walk = (p: string) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const e of readdirSync(p).sort()) walk(path.join(p, e));
    } else {
      h.update(path.relative(root, p));
      h.update(readFileSync(p));
    }
  };
  for (const s of SOURCES) walk(path.join(root, s));
  return h.digest('hex');
}

export function dashboardBuildNeeded(root: string): boolean {
  const stamp = path.join(root, '.next', 'stowage-sources.sha256');
  if (!existsSync(path.join(root, '.next', 'BUILD_ID')) || !existsSync(stamp)) return true;
  return readFileSync(stamp, 'utf8').trim() !== hashTree(root);
}

export async function buildDashboard(root: string, log: (m: string) => void, why?: string): Promise<void> {
  log(`Building the dashboard${why ? ` (${why})` : ''}; this takes a minute...`);
  const nextBin = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [nextBin, 'build'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: 'production' },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`next build failed (exit ${code}):\n${out.slice(-4000)}`))));
  });
  writeFileSync(path.join(root, '.next', 'stowage-sources.sha256'), hashTree(root));
  log('Dashboard built.');
}
