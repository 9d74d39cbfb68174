// The parameters of Stowage's own provisioners, checked when a StorageClass is written
// (dry run included), so a class that could never provision is refused at once with the
// parameter named, rather than at the first claim. The plugins apply the same rules again
// when they provision. Pure: what needs the node's filesystem (symlinks) is checked by the
// plugin on the node.
import path from 'node:path';
import { btrfsProvisioner, hostPathProvisioner, loopProvisioner } from '../../domain/well-known/provisioners';
import { replicationParameters } from '../../domain/replication';

export interface ParameterProblem {
  /** The parameter at fault; undefined for the set as a whole. */
  parameter?: string;
  message: string;
}

const KNOWN: Record<string, readonly string[]> = {
  [hostPathProvisioner]: ['basePath', 'mode'],
  [loopProvisioner]: ['basePath', 'fsType'],
  [btrfsProvisioner]: ['pool', 'replicas', 'replicationInterval'],
};

export const LOOP_FS_TYPES = ['ext4', 'ext3', 'ext2', 'xfs'] as const;

/**
 * System directories no base path may be or lie under: provisioning writes and, on delete,
 * removes directories there. (/var, /srv, /mnt, /home and /opt hold data and stay open.)
 */
export const SYSTEM_DIRECTORIES = ['/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/root', '/run', '/sbin', '/sys', '/usr', '/var/lib/dpkg', '/var/lib/apt', '/var/log'];
/** Directories that are refused themselves, though their subdirectories are fine. */
const SYSTEM_PARENTS = ['/', '/var', '/var/lib', '/home', '/mnt', '/media', '/opt', '/srv', '/tmp'];

export function basePathProblems(plugin: string, basePath: string | undefined): string[] {
  if (basePath === undefined || basePath === '') return [`parameter "basePath" is required by ${plugin}`];
  if (!path.posix.isAbsolute(basePath)) return [`parameter "basePath" must be an absolute path, got "${basePath}"`];
  const clean = path.posix.normalize(basePath).replace(/\/+$/, '');
  if (clean === '') return [`parameter "basePath" may not be "/"`];
  if (clean !== basePath) return [`parameter "basePath" must be a normalized path ("${clean}"), got "${basePath}"`];
  const system = SYSTEM_DIRECTORIES.find((d) => basePath === d || basePath.startsWith(`${d}/`));
  if (system) return [`parameter "basePath" may not be in the system directory ${system}, got "${basePath}"`];
  if (SYSTEM_PARENTS.includes(basePath)) return [`parameter "basePath" may not be ${basePath} itself; name a directory of its own under it`];
  return [];
}

/** The `pool` of a btrfs class: an absolute, normalized path, not a system directory (the agent makes subvolumes in it). */
export function poolPathProblems(plugin: string, pool: string | undefined): string[] {
  return basePathProblems(plugin, pool).map((m) => m.replace('parameter "basePath"', 'parameter "pool"'));
}

/** Octal permissions, and none that let every user write. */
export function modeProblems(mode: string | undefined): string[] {
  if (mode === undefined) return [];
  if (!/^0?[0-7]{3}$/.test(mode)) return [`parameter "mode" must be octal permissions such as 0750, got "${mode}"`];
  if ((parseInt(mode, 8) & 0o002) !== 0) return [`parameter "mode" may not let every user write (o+w), got "${mode}"`];
  return [];
}

/** Problems with the parameters of an in-tree provisioner's class; none for other provisioners. */
export function inTreeParameterProblems(provisioner: string, parameters: Record<string, string>): ParameterProblem[] {
  const known = Object.hasOwn(KNOWN, provisioner) ? KNOWN[provisioner] : undefined;
  if (!known) return [];
  const out: ParameterProblem[] = [];
  for (const k of Object.keys(parameters)) {
    if (!known.includes(k)) out.push({ parameter: k, message: `unknown parameter "${k}" for ${provisioner} (supported: ${known.join(', ')})` });
  }
  if (provisioner === btrfsProvisioner) {
    for (const message of poolPathProblems(provisioner, parameters.pool)) out.push({ parameter: 'pool', message });
    for (const message of replicationParameters(parameters).problems) out.push({ parameter: /^parameter "replicas"/.test(message) ? 'replicas' : 'replicationInterval', message });
    return out;
  }
  for (const message of basePathProblems(provisioner, parameters.basePath)) out.push({ parameter: 'basePath', message });
  if (provisioner === hostPathProvisioner) {
    for (const message of modeProblems(parameters.mode)) out.push({ parameter: 'mode', message });
  }
  if (provisioner === loopProvisioner && parameters.fsType !== undefined && !(LOOP_FS_TYPES as readonly string[]).includes(parameters.fsType)) {
    out.push({ parameter: 'fsType', message: `parameter "fsType" must be one of ${LOOP_FS_TYPES.join(', ')}, got "${parameters.fsType}"` });
  }
  return out;
}
