// `npm run bench`: every benchmark in turn, each in its own process (own embedded
// Postgres), printing figures. Nothing here asserts; read the numbers.
//   npm run bench                 all of them
//   npm run bench -- binder api   only those
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const benches: Record<string, { file: string; what: string }> = {
  binder: { file: 'binder.ts', what: 'binder: 10,000-claim burst, raw transaction rate, 1,000 vs 100,000 volumes' },
  api: { file: 'api.ts', what: 'REST API: kubectl get pv / lists of 10,000 PVs, watch latency under writes' },
  'idle-bind': { file: 'idle-bind.ts', what: 'idle claim latency through stowage start: create -> Bound on a watch, one claim at a time, and where the time goes' },
  'write-path': { file: 'write-path.ts', what: 'write path: REST creates with 16 clients and watch delivery, vs pgbench -N' },
  provisioning: { file: 'provisioning.ts', what: 'provisioning soak: 1,000 volumes with injected failures, leaked assets' },
  dashboard: { file: 'dashboard.ts', what: 'dashboard in Chromium: Volumes list with 10,000 PVs and 10,000 claims (first rows, sort, filter, live, idle)' },
  'local-cleanup': { file: 'local-cleanup.ts', what: 'local-volume cleanup: 100,000 files vs rm -rf, dd-zero vs raw dd on a loop device' },
  'local-discovery': { file: 'local-discovery.ts', what: 'local-volume discovery: 1,000 entries under one directory' },
  startup: { file: 'startup.ts', what: 'start-up: time until a serving process answers /healthz and its first page, and its RSS, TypeScript through tsx vs compiled' },
  'crash-restart': { file: 'crash-restart.ts', what: 'restart after kill -9 of stowage start: time until /readyz answers again, no human action' },
  'btrfs-pool': { file: 'btrfs-pool.ts', what: 'btrfs pools: 100 WaitForFirstConsumer claims with pods (created -> Bound, -> published), subvolume create+limit through Stowage vs a raw btrfs loop' },
  snapshots: { file: 'snapshots.ts', what: 'snapshots: a btrfs volume of 10,000 files / 1 GiB snapshot -> ready and restore -> Bound; host-path snapshot copy vs cp -a of the same tree' },
  replication: { file: 'replication.ts', what: 'replicated pool volumes: steady transfers (bytes sent vs changed, CPU), failover time after the grace, the data-loss window' },
  'replication-agent': { file: 'replication-agent.ts', what: 'replication, agent side: 1 GiB full transfer through the TLS-PSK listener vs raw btrfs send | btrfs receive, incremental after 1% changed' },
  backup: { file: 'backup.ts', what: 'backups: full backup of 1 GiB vs cp, incremental after 10 MiB changed (btrfs changed ranges), restore vs cp, checksums' },
  million: { file: 'million.ts', what: 'a million volumes: 1,000,000 PVs + 1,000,000 claims loaded with SQL, then stowage start: start-up, RSS, first list pages, claim create -> Bound' },
  'local-manager': { file: 'local-manager.ts', what: 'local-volume manager: 1,000 disks on 10 simulated agents -> Available PVs, and a release/wipe/re-create wave' },
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = wanted.length ? wanted : Object.keys(benches);
for (const name of names) {
  const b = benches[name];
  if (!b) {
    console.error(`unknown benchmark "${name}"; choose from ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
  console.log(`\n=== ${b.what} ===`);
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, b.file)], { stdio: 'inherit', env: process.env });
  console.log(`=== ${name}: ${r.status === 0 ? 'done' : `exit ${r.status}`} in ${((Date.now() - started) / 1000).toFixed(0)} s ===`);
}
