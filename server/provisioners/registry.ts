// In-tree provisioner plugins by provisioner name. The binder imports
// `inTreeProvisionerNames` to know which classes Stowage itself provisions (no
// ExternalProvisioning event for those); the provisioning controllers get the plugins.
import type { Logger } from 'pino';
import type { AssetStore } from '../store/provisioned-assets';
import { createHostPathPlugin } from './host-path';
import { createLoopPlugin } from './loop';
import type { HostOs } from './os';
import { hostPathCapabilities } from './host-path';
import { loopCapabilities } from './loop';
import { ANY_CAPABILITIES, type PluginCapabilities, type ProvisionerPlugin } from './plugin';
import { btrfsProvisioner, hostPathProvisioner, loopProvisioner } from '../domain/well-known/provisioners';
import { btrfsCapabilities, createBtrfsPlugin, type BtrfsDeps } from './btrfs';

export const inTreeProvisionerNames: ReadonlySet<string> = new Set([hostPathProvisioner, loopProvisioner, btrfsProvisioner]);
/** In-tree plugins that make volumes only on the machine their controller runs on. */
export const thisNodeProvisionerNames: ReadonlySet<string> = new Set([hostPathProvisioner, loopProvisioner]);

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

export interface PluginDeps {
  os: HostOs;
  assets: AssetStore;
  /** The node this process provisions on (default: the OS hostname). */
  nodeName?: string;
  log?: Logger;
  /** Tuning and capacity source of the agent-backed btrfs plugin. */
  btrfs?: Omit<BtrfsDeps, 'assets' | 'log'>;
}

export type PluginRegistry = ReadonlyMap<string, ProvisionerPlugin>;

export function createPlugins(deps: PluginDeps): PluginRegistry {
  const plugins = [createHostPathPlugin(deps), createLoopPlugin(deps), createBtrfsPlugin({ assets: deps.assets, log: deps.log, ...deps.btrfs })];
  return new Map(plugins.map((p) => [p.name, p]));
}
