// Setting a machine up: `stowage bootstrap` (agent manifests) and `stowage pool create` (a btrfs pool).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { bootstrapFiles, caFileName, generateBootstrap, storageClassMapFromFile, tokenDirOnHost, tokenFileName } from '../agent/bootstrap';
import { createPool } from '../agent/pool-setup';
import { poolFstabLine, poolStorageClassYaml } from '../domain/btrfs-pool';
import { isNegative, isZero, parseQuantity, quantityToBytes } from '../domain/quantity';
import { btrfsProvisioner } from '../domain/well-known/provisioners';
import { poolPathProblems } from '../resources/storage-class/in-tree-parameters';
import { say } from './common';

export function registerSetupCommands(program: Command): void {
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
}
