// The `stowage` commander program with every command registered, not yet parsed: main.ts
// runs it; tests read its commands and options (the deploy manifests must name real ones).
import { Command } from 'commander';
import { registerAccessCommands } from './access-commands';
import { registerBackupCommands } from './backup-commands';
import { registerNodeCommands } from './node-commands';
import { registerProcessCommands } from './process-commands';
import { registerSetupCommands } from './setup-commands';

export function cliProgram(): Command {
  const program = new Command('stowage').description('Stowage: a storage control plane with a web dashboard');
  // Registered in this order, which is the order of `stowage --help`.
  registerProcessCommands(program);
  registerAccessCommands(program);
  registerNodeCommands(program);
  registerBackupCommands(program);
  registerSetupCommands(program);
  return program;
}
