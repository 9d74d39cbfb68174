// `npm run chaos [-- --short | --duration SECONDS] [--seed N] [--node-lost | --no-node-lost]`:
// a steady workload against a real topology (see ../cluster/topology.ts) while servers,
// controllers and agents are SIGKILLed and SIGSTOPped, an agent's network is cut, Postgres
// restarts and fails over to its synchronous standby; last (in the full run, or with
// --node-lost), a replicated claim's node goes down and comes back (node-failover.ts:
// the claim runs on its replica with the acknowledged data; the returned node is fenced and
// resynced), and a node is lost for good and its claims are restored from their backups on
// another node (node-lost.ts). Then it checks the invariants (invariants.ts) and prints
// counts per fault and per invariant, and the failover figures. Exit status 1 on any violation.
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chaosPortBase } from '../cluster/settings';
import { Topology } from '../cluster/topology';
import { untilDone } from './client';
import { NS, say } from './common';
import { args, rng } from './options';
import { printReport } from './report';
import { runChaos } from './run';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

async function main(): Promise<void> {
  const opt = args();
  const rand = rng(opt.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const missing = await Topology.missing();
  if (missing) {
    // `npm test` runs the short form with --if-possible: a machine without root, Postgres
    // binaries or HAProxy skips it, saying why.
    say(`chaos: ${opt.ifPossible ? 'skipped' : 'cannot run'}: this machine cannot run the topology: ${missing}`);
    process.exit(opt.ifPossible ? 0 : 2);
  }
  const dir = path.join(os.tmpdir(), `stowage-chaos-${process.pid}`);
  // Its own ports, namespaces and Postgres data (named by the base), beside any `npm run cluster`.
  const portBase = chaosPortBase(process.env);
  const t = new Topology({ dir, kind: 'x', portBase, servers: 3, controllers: 2, agents: 3, disksPerNode: 2, pools: opt.nodeLost, root, log: (m) => say(`[topology] ${m}`) });
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    say('Stopping the topology ...');
    await t.down().catch((e) => say(`teardown: ${(e as Error).message}`));
    // A failed run keeps its logs for a look afterwards.
    if (!opt.keep && process.exitCode !== 1) rmSync(dir, { recursive: true, force: true });
    else say(`Logs kept in ${dir}/logs`);
  };
  process.on('SIGINT', () => void cleanup().then(() => process.exit(130)));
  const started = Date.now();
  say(`chaos: seed ${opt.seed}, ${opt.durationMs / 1000} s of faults, ${opt.clients} clients; logs in ${dir}/logs`);
  try {
    await t.up();
    say(`[topology] up in ${Math.round((Date.now() - started) / 1000)} s`);
    const k = t.kube!;
    await untilDone(k, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, Date.now() + 30_000, (s) => s === 201 || s === 409);
    const report = await runChaos(t, k, opt, rand, pick);
    printReport(report);
    process.exitCode = report.verdicts.some(([, v]) => v.violations.length > 0) ? 1 : 0;
  } catch (e) {
    say(`chaos: FAILED to run: ${(e as Error).stack ?? String(e)}`);
    process.exitCode = 1;
  } finally {
    await cleanup();
  }
}

main().catch((e: unknown) => {
  say(`chaos: cannot run: ${(e as Error).message}`);
  process.exit(2);
});
