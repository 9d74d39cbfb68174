// `stowage start | server | migrate | user add | user list | token create | kubeconfig | bootstrap | backup [FILE | create | list | restore | verify | delete | targets] | restore | pool create`
import { isStowageError } from '../domain/errors';
import { cliProgram } from './program';

process.env.NEXT_TELEMETRY_DISABLED = '1';

const program = cliProgram();

const longRunning = new Set(['start', 'server', 'controllers', 'agent', 'api-worker']);
program
  .parseAsync(process.argv)
  .then(() => {
    // One-shot commands end here; libraries' idle timers must not keep the process alive.
    if (!longRunning.has(process.argv[2] ?? '')) process.exit(0);
  })
  .catch((e: unknown) => {
    process.stderr.write(`error: ${isStowageError(e) ? e.message : ((e as Error)?.message ?? String(e))}\n`);
    process.exit(1);
  });
