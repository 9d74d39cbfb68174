// The commands that run or prepare a Stowage process: version, build, start, server, api-worker, controllers, migrate.
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { buildDashboard } from '../wiring/build';
import { loadConfig } from '../wiring/config';
import { runApiWorker } from './api-worker';
import { compiledBuild } from '../domain/build';
import { openDatabase } from '../store/database';
import { projectRoot } from '../store/migrate';
import { say, STOP_SIGNALS } from './common';
import { run } from './run';

export function registerProcessCommands(program: Command): void {
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
}
