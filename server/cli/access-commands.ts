// Users, API tokens and kubeconfigs: `stowage user | token | kubeconfig`.
import path from 'node:path';
import { Command, Option } from 'commander';
import { writeKubeconfig } from '../wiring/bootstrap';
import { apiServerUrl } from '../kube/api-server';
import { runningApiUrl, say, withApp } from './common';

export function registerAccessCommands(program: Command): void {
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
}
