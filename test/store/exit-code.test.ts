// A process that uses the embedded Postgres still exits with the code it set: the
// module's exit hook (async-exit-hook) calls process.exit(0) when the event loop empties,
// and a failing test run, chaos run or CLI command used to exit 0. The hook itself (it
// stops the servers) still runs, without an error.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const database = path.join(import.meta.dirname, '../../server/store/database.ts');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs `script` (an ES module body) in a fresh Node process: its exit code and stderr. */
function runScript(script: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 60_000 }, (err, _stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr });
    });
  });
}

describe('the exit code of a process that used the embedded Postgres', () => {
  it.each([3, 0])('is the code it set (%i), after starting and stopping a server', async (code) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'stowage-exit-code-'));
    dirs.push(dir);
    const script = `const { startEmbeddedPostgres } = await import(${JSON.stringify(database)}); const pg = await startEmbeddedPostgres(${JSON.stringify(dir)}); await pg.stop(); process.exitCode = ${code};`;
    const r = await runScript(script);
    expect(r.stderr).not.toMatch(/TypeError|is not a function/);
    expect(r.code).toBe(code);
  });
});
