// A process that loads the embedded Postgres still exits with the code it set: the
// module's exit hook (async-exit-hook) used to call process.exit(0) when the event loop
// emptied, so a failing test run, chaos run or CLI command exited 0.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const database = path.join(import.meta.dirname, '../../server/store/database.ts');

describe('the exit code of a process that loaded the embedded Postgres', () => {
  it.each([3, 0])('is the code it set (%i)', async (code) => {
    const script = `const { loadEmbeddedPostgres } = await import(${JSON.stringify(database)}); await loadEmbeddedPostgres(); process.exitCode = ${code};`;
    const outcome = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]).then(
      () => 0,
      (e: { code?: number }) => e.code,
    );
    expect(outcome).toBe(code);
  });
});
