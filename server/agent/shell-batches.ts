// Short commands run in batches by one small shell. Starting a process from Node costs far
// more than from a shell: the agent made 30-45 pool volumes a second with two execFiles
// each where a shell loop made 200, and in a burst of new volumes and pods that was its
// limit. So calls made while a batch runs go together into the next one: one shell
// (through the agent's helper, command-runner.ts) runs a fixed script over all of them.
//
// The script is fixed text; each call's values reach it only as the shell's positional
// arguments, never as script text, so no value is ever parsed as shell words. The script
// takes `arity` arguments per call, runs its commands, and prints one line per call: "ok"
// (or "ok VALUE", a value the call answers with), or what failed and its error output on
// one line. A value with a line break is refused (its answer could not be told apart), as
// is a script that answers fewer lines.
import { commandErrorText, commands } from './command-runner';

/** Calls run by one shell at most (its argument list stays small). */
const CALLS_AT_ONCE = 32;

interface Call {
  args: string[];
  resolve(value: string): void;
  reject(e: Error): void;
}

/**
 * The commands of one kind of call. `script` loops over "$@" taking `arity` arguments per
 * call (see the scripts beside its users); `what(args)` names a call in errors.
 */
export class ShellBatches {
  private readonly waiting: Call[] = [];
  private running = false;

  constructor(
    private readonly script: string,
    private readonly arity: number,
    private readonly what: (args: string[]) => string,
    private readonly timeoutMs = 60_000,
  ) {}

  /** Runs one call (alone, or with those made meanwhile); resolves with its answer's value ("" for a plain "ok"), rejects with its own error. */
  run(...args: string[]): Promise<string> {
    if (args.length !== this.arity) return Promise.reject(new Error(`${this.what(args)}: expected ${this.arity} arguments`));
    if (args.some((a) => /[\n\r]/.test(a))) return Promise.reject(new Error(`${this.what(args)}: refusing a value with a line break`));
    return new Promise<string>((resolve, reject) => {
      this.waiting.push({ args, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.waiting.length > 0) await this.runBatch(this.waiting.splice(0, CALLS_AT_ONCE));
    } finally {
      this.running = false;
    }
  }

  private async runBatch(batch: Call[]): Promise<void> {
    let lines: string[];
    try {
      const r = await commands.run('sh', ['-c', this.script, 'stowage-batch', ...batch.flatMap((c) => c.args)], { timeoutMs: this.timeoutMs, maxBuffer: 4 * 1024 * 1024 });
      lines = r.stdout.split('\n');
    } catch (e) {
      for (const c of batch) c.reject(new Error(`${this.what(c.args)}: ${commandErrorText(e)}`));
      return;
    }
    batch.forEach((c, i) => {
      const line = lines[i] ?? '';
      if (line === 'ok') c.resolve('');
      else if (line.startsWith('ok ')) c.resolve(line.slice(3));
      else c.reject(new Error(line || `${this.what(c.args)}: the shell ended before answering`));
    });
  }
}
