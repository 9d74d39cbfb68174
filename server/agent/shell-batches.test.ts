// ShellBatches runs real shells (through the agent's helper): calls made together share one
// shell, each call gets its own answer, values stay values.
import { afterAll, describe, expect, it } from 'vitest';
import { commands } from './command-runner';
import { ShellBatches } from './shell-batches';

afterAll(() => commands.close());

// One argument per call: "ok" answers ok, "n:..." answers with its value, anything else fails with its value.
const echoing = () =>
  new ShellBatches(
    `while [ "$#" -ge 1 ]; do
  case "$1" in
    ok) echo ok ;;
    n:*) printf 'ok %s\\n' "\${1#n:}" ;;
    *) printf 'bad %s\\n' "$1" ;;
  esac
  shift
done`,
    1,
    ([v]) => `check ${v}`,
  );

describe('ShellBatches', () => {
  it('answers each call on its own: the ok ones resolve, the others reject with their line', async () => {
    const b = echoing();
    const r = await Promise.allSettled(['ok', 'no', 'ok', 'x y'].map((v) => b.run(v)));
    expect(r.map((x) => x.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect(String((r[1] as PromiseRejectedResult).reason)).toContain('bad no');
    expect(String((r[3] as PromiseRejectedResult).reason)).toContain('bad x y');
  });

  it('a call answered with a value resolves with it; a plain ok with ""', async () => {
    const b = echoing();
    expect(await Promise.all([b.run('n:257'), b.run('ok'), b.run('n:a b')])).toEqual(['257', '', 'a b']);
  });

  it('calls made while a shell runs go together into the next one', async () => {
    let shells = 0;
    const counted = new ShellBatches(
      `while [ "$#" -ge 1 ]; do echo ok; shift; done; echo shell`,
      1,
      () => 'count',
    );
    const original = commands.run.bind(commands);
    commands.run = async (file, args, o) => {
      if (file === 'sh') shells++;
      return original(file, args, o);
    };
    try {
      await Promise.all(Array.from({ length: 20 }, (_, i) => counted.run(String(i))));
    } finally {
      commands.run = original;
    }
    // The first call runs alone at once; the 19 made meanwhile share the next shell.
    expect(shells).toBe(2);
  });

  it('shell words in a value are not run', async () => {
    const b = echoing();
    await expect(b.run('$(echo ok)')).rejects.toThrow('bad $(echo ok)');
    await expect(b.run('`echo ok`; echo ok')).rejects.toThrow('bad `echo ok`; echo ok');
  });

  it('refuses a value with a line break, and a call with the wrong number of values, without running', async () => {
    const b = echoing();
    await expect(b.run('ok\nok')).rejects.toThrow(/line break/);
    await expect(b.run('ok', 'ok')).rejects.toThrow(/expected 1 arguments/);
  });

  it('a shell that answers too few lines fails the calls it did not answer', async () => {
    const short = new ShellBatches(`echo ok`, 1, ([v]) => `short ${v}`);
    const r = await Promise.allSettled([short.run('a')].concat([short.run('b'), short.run('c')]));
    expect(r[0].status).toBe('fulfilled');
    // b and c went together into the second shell, which answered b only.
    expect(r[1].status).toBe('fulfilled');
    expect(r[2].status).toBe('rejected');
    expect(String((r[2] as PromiseRejectedResult).reason)).toContain('short c: the shell ended before answering');
  });
});
