// A process playing the node agent: reaps as an agent does at start, then starts a
// long-running cleanup command (a shell that started a child of its own) through the
// agent's OS layer and ledger, prints {"pid", "startTime"} of it, and then, with "hold", runs until
// it is killed; with "exit", exits at once, as an agent stopped by process.exit would.
import { CleanupLedger } from '../../../server/agent/cleanup-ledger';
import { realAgentOs } from '../../../server/agent/os';

const [stateDir, mode] = process.argv.slice(2);
const ledger = new CleanupLedger(realAgentOs, stateDir);
await ledger.reapLeftovers();
const announce = {
  started(p: { pid: number; startTime: string }, argv: string[]) {
    ledger.started(p, argv);
    process.stdout.write(`${JSON.stringify(p)}\n`, () => {
      if (mode === 'exit') process.exit(0);
    });
  },
  ended: (pid: number) => ledger.ended(pid),
};
void realAgentOs.run(['sh', '-c', 'sleep 600 & wait'], { ledger: announce });
setInterval(() => {}, 1 << 30);
