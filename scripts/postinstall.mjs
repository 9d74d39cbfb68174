// Runs after `npm install` / `npm ci` of this project (not of its dependencies):
// generates the Prisma client offline and puts the schema engine's wasm where
// @prisma/migrate looks for it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

const internalsDir = path.dirname(require.resolve('@prisma/internals/package.json'));
const target = path.join(internalsDir, 'build', 'schema_engine_bg.wasm');
if (!existsSync(target)) {
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(path.join(path.dirname(require.resolve('prisma/package.json')), 'build', 'schema_engine_bg.wasm'), target);
}

// The generator never runs the schema engine; pointing the variable at any executable
// stops the CLI from trying to download it.
execFileSync(process.execPath, [path.join(root, 'node_modules', 'prisma', 'build', 'index.js'), 'generate'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' },
});
