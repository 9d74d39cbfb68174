// Compiles the server, the CLI and the node agent (one program: server/cli/main.ts) to
// one JavaScript file, dist/stowage.mjs, which bin/stowage.mjs runs. npm packages stay
// imports (resolved from node_modules at run time), so only our own code is bundled.
// dist/build-info.json records a hash of every source file that went in, so that
// bin/stowage.mjs can tell when the sources changed since.
//   node scripts/build-server.mjs [--quiet]      (part of `npm run build`)
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const outdir = path.join(root, 'dist');
const quiet = process.argv.includes('--quiet');
const started = Date.now();

const result = await esbuild.build({
  absWorkingDir: root,
  entryPoints: { stowage: 'server/cli/main.ts' },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  packages: 'external',
  // Error classes keep their names in logs (pino's `type`) even where bundling renames them.
  keepNames: true,
  sourcemap: 'linked',
  sourcesContent: false,
  define: { STOWAGE_COMPILED: 'true' },
  banner: { js: '// Compiled by scripts/build-server.mjs from server/cli/main.ts; do not edit.' },
  metafile: true,
  write: false,
  logLevel: 'warning',
});

// Write beside, then rename: a `stowage` starting meanwhile sees the old build or the new
// one, never half a file; two builds at once (tests) write the same bytes.
function writeAtomically(file, contents) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, file);
}

mkdirSync(outdir, { recursive: true });
const outputs = [...result.outputFiles].sort((a, b) => Number(a.path.endsWith('.mjs')) - Number(b.path.endsWith('.mjs')));
for (const f of outputs) writeAtomically(f.path, f.contents);

// Size and mtime let the check skip reading unchanged files; the hash decides for the others.
const inputs = {};
for (const file of Object.keys(result.metafile.inputs).sort()) {
  const full = path.join(root, file);
  const { size, mtimeMs } = statSync(full);
  inputs[file] = { sha256: createHash('sha256').update(readFileSync(full)).digest('hex'), size, mtimeMs };
}
writeAtomically(path.join(outdir, 'build-info.json'), `${JSON.stringify({ inputs }, null, 1)}\n`);

if (!quiet) {
  const size = outputs.find((f) => f.path.endsWith('.mjs'))?.contents.length ?? 0;
  console.log(`Compiled ${Object.keys(inputs).length} files to dist/stowage.mjs (${(size / 1024).toFixed(0)} KiB) in ${Date.now() - started} ms`);
}
