// What each in-tree provisioner can make, known without its plugin: the claim form offers
// only these, the claim check and the claim doctor say why not, the binder and the
// snapshot controller tell in-tree provisioners from external ones. The plugins
// (server/provisioners/) carry the same objects. Pure values: no I/O.
import { btrfsProvisioner, hostPathProvisioner, loopProvisioner } from './well-known/provisioners';

export type VolumeMode = 'Filesystem' | 'Block';

/** What a plugin can make: the claim form offers only these, and the claim check says why not. */
export interface PluginCapabilities {
  readonly accessModes: readonly string[];
  readonly volumeModes: readonly VolumeMode[];
  /** The smallest volume it makes, in bytes (a decimal string), if it has a minimum. */
  readonly minBytes?: string;
  /** It takes snapshots, and populates volumes from snapshots and from volumes (restore, clone). */
  readonly snapshots?: boolean;
}

/** External provisioners declare nothing to us: every mode is offered. */
export const ANY_CAPABILITIES: PluginCapabilities = {
  accessModes: ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod'],
  volumeModes: ['Filesystem', 'Block'],
};

export const hostPathCapabilities: PluginCapabilities = { accessModes: ['ReadWriteOnce', 'ReadWriteOncePod'], volumeModes: ['Filesystem'], snapshots: true };

export const loopCapabilities: PluginCapabilities = {
  accessModes: ['ReadWriteOnce', 'ReadWriteOncePod'],
  volumeModes: ['Filesystem', 'Block'],
  minBytes: String(1n << 20n),
  snapshots: true,
};

export const btrfsCapabilities: PluginCapabilities = {
  accessModes: ['ReadWriteOnce', 'ReadWriteOncePod'],
  volumeModes: ['Filesystem'],
  minBytes: String(1n << 20n),
  snapshots: true,
};

export const inTreeProvisionerNames: ReadonlySet<string> = new Set([hostPathProvisioner, loopProvisioner, btrfsProvisioner]);

/** What each in-tree plugin can make (the same objects the plugins carry). */
const inTreeCapabilities: ReadonlyMap<string, PluginCapabilities> = new Map([
  [hostPathProvisioner, hostPathCapabilities],
  [loopProvisioner, loopCapabilities],
  [btrfsProvisioner, btrfsCapabilities],
]);

/** What a class's provisioner can make: an in-tree plugin's declaration; external ones: anything. */
export function capabilitiesOf(provisioner: string): PluginCapabilities {
  return inTreeCapabilities.get(provisioner) ?? ANY_CAPABILITIES;
}
