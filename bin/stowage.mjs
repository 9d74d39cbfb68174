#!/usr/bin/env node
// The `stowage` command. It runs the compiled CLI, dist/stowage.mjs (`npm run build`).
// When there is none, or a source file changed since it was compiled, it compiles it
// first (about a second, in a child process: the running server never loads a compiler).
// Only when that is impossible (no esbuild installed, a read-only install) does it run the
// TypeScript sources through tsx, and says so.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');

/** Whether dist/ holds a build of exactly the sources there are now. */
function compiledIsCurrent() {
  let info;
  try {
    info = JSON.parse(readFileSync(path.join(dist, 'build-info.json'), 'utf8'));
  } catch {
    return false;
  }
  if (!existsSync(path.join(dist, 'stowage.mjs'))) return false;
  for (const [file, was] of Object.entries(info.inputs)) {
    const full = path.join(root, file);
    const now = statSync(full, { throwIfNoEntry: false });
    if (!now) continue; // sources left out of a deployment: the build is all there is
    if (now.size !== was.size) return false;
    if (now.mtimeMs !== was.mtimeMs && createHash('sha256').update(readFileSync(full)).digest('hex') !== was.sha256) return false;
  }
  return true;
}

function compile() {
  process.stderr.write('Compiling the server (first run, or its sources changed) ...\n');
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build-server.mjs'), '--quiet'], { stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
  if (r.status === 0) return true;
  const lines = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n');
  const why = (lines.find((l) => /error/i.test(l)) ?? lines[0]).trim();
  process.stderr.write(`Could not compile the server (${why}); running its TypeScript sources through tsx instead.\n`);
  return false;
}

if (process.env.STOWAGE_FROM_SOURCES !== '1' && (compiledIsCurrent() || compile())) {
  await import(pathToFileURL(path.join(dist, 'stowage.mjs')).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../server/cli/main.ts');
}
