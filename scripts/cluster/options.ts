// What a topology is made of (its options and nodes) and the storage classes it sets up.
import type { NodeLink } from './netns';

export interface TopologyOptions {
  /** Everything but the Postgres data lives here. */
  dir: string;
  /** 'c' for `npm run cluster`, 'x' for the chaos run; with the port base it names everything (settings.ts). */
  kind: 'c' | 'x';
  portBase: number;
  servers: number;
  controllers: number;
  agents: number;
  disksPerNode: number;
  /**
   * A btrfs pool per node (a loop file, mounted privately to the node's agent at the one
   * path the class POOL_CLASS names), for volumes that live and die with their node.
   */
  pools?: boolean;
  /** Where the project is (bin/stowage.mjs). */
  root: string;
  log: (line: string) => void;
}

export interface NodeInfo {
  name: string;
  link: NodeLink;
  dir: string;
  /** Host-side discovery entries: name → loop device. */
  disks: Map<string, string>;
}

export const DISK_CLASS = 'cluster-disks';
export const DISK_MIB = 16;
/** The btrfs class over every node's own pool (with `pools`), and its snapshot class. */
export const POOL_CLASS = 'cluster-pooled';
/** The same pools, each volume with a replica on another node (replicas 2, every 5 s). */
export const REPLICATED_CLASS = 'cluster-replicated';
export const POOL_SNAPSHOT_CLASS = 'cluster-pooled-snapshots';
export const POOL_MIB = 160;
