// The helper that runs the agent's commands: execFile's semantics (argv, no shell; stdout;
// a failure with its stderr and exit status), many at once, and a helper that died is
// replaced on the next call.
import { afterAll, describe, expect, test } from 'vitest';
import { CommandError, CommandRunner } from './command-runner';

const runner = new CommandRunner();
afterAll(() => runner.close());

describe('the command runner', () => {
  test('runs argv without a shell and answers stdout', async () => {
    const r = await runner.run('printf', ['%s|', 'a b', '$(echo no)', ';rm -rf x']);
    expect(r.stdout).toBe('a b|$(echo no)|;rm -rf x|');
  });

  test('a failing command rejects with its exit status and stderr', async () => {
    const err = await runner.run('sh', ['-c', 'echo oops >&2; exit 3']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommandError);
    expect((err as CommandError).code).toBe(3);
    expect((err as CommandError).stderr).toBe('oops\n');
  });

  test('a command that does not exist rejects', async () => {
    const err = await runner.run('no-such-command-here', []).catch((e: unknown) => e);
    expect((err as CommandError).code).toBe('ENOENT');
  });

  test('many at once each get their own answer', async () => {
    const outs = await Promise.all(Array.from({ length: 20 }, (_, i) => runner.run('echo', [String(i)])));
    expect(outs.map((o) => o.stdout.trim())).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
  });

  test('the time limit ends a command', async () => {
    const err = await runner.run('sleep', ['5'], { timeoutMs: 100 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommandError);
  });

  test('a helper that died is started again', async () => {
    await runner.run('true', []);
    runner.close();
    expect((await runner.run('echo', ['again'])).stdout).toBe('again\n');
  });
});
