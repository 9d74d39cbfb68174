// Nodes and their agents: `stowage node add | revoke | drain | uncordon` and `stowage agent`.
import { Command } from 'commander';
import { writePrivateFile } from '../wiring/private-file';
import { parseLabelList } from '../domain/node-lifecycle';
import { startStandaloneAgent } from './agent';
import { CLI_PRINCIPAL } from './backup-verbs';
import type { DrainPlan } from '../services/replication';
import { say, STOP_SIGNALS, withApp } from './common';

/** A drain plan as the CLI prints it. */
const planText = (plan: DrainPlan, applied: boolean): string => {
  const lines = [`node ${plan.node}: ${applied ? 'cordoned' : plan.cordoned ? 'cordoned already' : 'would be cordoned'}`];
  for (const m of plan.moves) lines.push(`  move   ${m.pvName}${m.claim ? ` (${m.claim})` : ''} -> ${m.to}${m.behindSeconds !== undefined ? `, replica ${m.behindSeconds} s behind; a final transfer first` : ''}`);
  for (const s of plan.stays) lines.push(`  stays  ${s.pvName}${s.claim ? ` (${s.claim})` : ''}: ${s.stays}`);
  for (const p of plan.podsToStop) lines.push(`  pod    ${p.namespace}/${p.name} uses ${p.claims.join(', ')}: its volumes move once it is deleted`);
  if (plan.moves.length + plan.stays.length === 0) lines.push('  no pool volume is active on this node');
  return lines.join('\n');
};

export function registerNodeCommands(program: Command): void {
  const node = program.command('node').description('manage nodes and their agents');
  node
    .command('add <name>')
    .description('register a node and print a node token for its agent (shown once; stored hashed)')
    .option('-o, --out <file>', 'write the token to this file (mode 600) instead of printing it')
    .action((name: string, o: { out?: string }) =>
      withApp(async (app) => {
        const token = await app.nodeAgent.createToken(name, 'stowage node add');
        if (o.out) {
          await writePrivateFile(o.out, `${token}\n`);
          say(`Node ${name} registered; its token is in ${o.out}`);
        } else say(token);
      }),
    );
  node
    .command('revoke <name>')
    .description("revoke every token of a node's agent")
    .action((name: string) =>
      withApp(async (app) => {
        say(`${await app.nodeAgent.revoke(name)} token(s) revoked`);
      }),
    );

  node
    .command('drain <name>')
    .description('move the active copy of every replicated volume on a node to a replica (after a final transfer) and cordon it')
    .option('--dry-run', 'show what would move, change nothing')
    .action((name: string, o: { dryRun?: boolean }) =>
      withApp(async (app) => {
        say(planText(await app.replication.drain(CLI_PRINCIPAL, name, { dryRun: o.dryRun }), !o.dryRun));
      }),
    );
  node
    .command('uncordon <name>')
    .description('let pods be placed on a node again')
    .action((name: string) =>
      withApp(async (app) => {
        await app.replication.uncordon(CLI_PRINCIPAL, name);
        say(`node ${name}: schedulable`);
      }),
    );

  program
    .command('agent')
    .description("run a node agent: discovers this machine's local disks and wipes released ones")
    .requiredOption('--server <url>', 'the Stowage API (https://HOST:6443)')
    .requiredOption('--token-file <file>', 'a file holding the node token (`stowage node add NAME`)')
    .option('--node <name>', 'the node to act for (must be the token\'s; default: the token\'s)')
    .option('--ca-file <file>', "the API's CA certificate (<data dir>/pki/ca.crt of the server)")
    .option('--insecure-skip-tls-verify', 'do not verify the server certificate')
    .option('--max-parallel <n>', 'cleanups at once on this node, all classes together', '4')
    .option('--pods-dir <dir>', "where the volumes of this node's pods are published", '/var/lib/stowage/pods')
    .option('--state-dir <dir>', "the agent's state: its running cleanup commands, ended at the next start after a crash", '/var/lib/stowage/agent')
    .option('--pool-root <dir>', "where this agent sees the host's / for btrfs pool paths (an agent in a container with the host mounted there)")
    .option('--replication-listen <host:port>', "take replicas of btrfs pool volumes on this address (TLS with a one-time key per transfer); without it this node holds no replicas")
    .option('--replication-advertise <host:port>', 'the address other nodes send replicas to (default: the listen address, or the first non-internal IPv4 and its port when listening on 0.0.0.0 or ::)')
    .action(async (o: { server: string; tokenFile: string; node?: string; caFile?: string; insecureSkipTlsVerify?: boolean; maxParallel: string; podsDir: string; stateDir: string; poolRoot?: string; replicationListen?: string; replicationAdvertise?: string }) => {
      const maxParallel = Number(o.maxParallel);
      if (!Number.isInteger(maxParallel) || maxParallel < 1 || maxParallel > 64) throw new Error('--max-parallel must be a whole number from 1 to 64');
      const labels = parseLabelList(process.env.STOWAGE_NODE_LABELS);
      if (labels.errors.length) throw new Error(`STOWAGE_NODE_LABELS: ${labels.errors.join('; ')}`);
      // The flags, else the settings a unit file's environment gives (STOWAGE_REPLICATION_LISTEN, _ADVERTISE).
      const listen = o.replicationListen ?? (process.env.STOWAGE_REPLICATION_LISTEN || undefined);
      const advertise = o.replicationAdvertise ?? (process.env.STOWAGE_REPLICATION_ADVERTISE || undefined);
      if (advertise && !listen) throw new Error('--replication-advertise (STOWAGE_REPLICATION_ADVERTISE) needs --replication-listen (STOWAGE_REPLICATION_LISTEN)');
      const replication = listen ? { listen, ...(advertise ? { advertise } : {}) } : undefined;
      const loop = await startStandaloneAgent({ ...o, maxParallel, labels: labels.labels, replication });
      say(`Agent of node ${loop.nodeName} running against ${o.server}${replication ? `, taking replicas at ${loop.replicationEndpoint()}` : ''}; press Ctrl-C to stop.`);
      let stopping: string | undefined;
      const stop = (signal: string) => {
        if (stopping) return say(`${signal}: already stopping (${stopping}); the stop goes on to its end.`);
        stopping = signal;
        say(`${signal}: stopping the agent ...`);
        setTimeout(() => {
          say('The agent did not stop within 10 s; exiting now (status 1).');
          process.exit(1);
        }, 10_000).unref();
        void loop.stop().then(() => {
          say('Stopped.');
          process.exit(0);
        });
      };
      for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal));
    });
}
