// Backups: `stowage backup [FILE | state | create | list | restore | verify | delete | targets]` and `stowage restore FILE`.
import { createReadStream, mkdirSync } from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { loadConfig } from '../wiring/config';
import { pkiConflict, pkiDir, readPkiFiles, writePkiFiles } from '../wiring/pki-files';
import { privateFileTargetProblem, writePrivateStream } from '../wiring/private-file';
import { restoreBackup, writeBackup } from '../store/backup';
import { openDatabase } from '../store/database';
import { BackupVerbs } from './backup-verbs';
import { processAlive, readRuntimeFile } from './runtime-file';
import { connect, runtimeFile, say, withApp } from './common';

const nsOption = () => new Option('-n, --namespace <ns>', 'the namespace').default('default');
/** Runs one verb against this data dir's database and prints its answer. */
const backupVerbs = (fn: (verbs: BackupVerbs) => Promise<string>): Promise<void> =>
  withApp(async (app) => {
    say(await fn(new BackupVerbs({ objects: app.objects, backups: app.backups })));
  });

export function registerBackupCommands(program: Command): void {
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
}
