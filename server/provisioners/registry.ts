// In-tree provisioner plugins by provisioner name, for the provisioning controllers. Which
// provisioners are in-tree and what each can make is domain knowledge
// (domain/provisioner-capabilities.ts), shared with the services.
import type { Logger } from 'pino';
import type { AssetStore } from '../store/provisioned-assets';
import { createHostPathPlugin } from './host-path';
import { createLoopPlugin } from './loop';
import type { HostOs } from './os';
import type { ProvisionerPlugin } from './plugin';
import { hostPathProvisioner, loopProvisioner } from '../domain/well-known/provisioners';
import { createBtrfsPlugin, type BtrfsDeps } from './btrfs';

/** In-tree plugins that make volumes only on the machine their controller runs on. */
export const thisNodeProvisionerNames: ReadonlySet<string> = new Set([hostPathProvisioner, loopProvisioner]);

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
