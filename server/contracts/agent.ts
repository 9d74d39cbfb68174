// The wire contract between the node agent (its own process: discovery, cleanup and
// publishing on this machine's disks) and the server (the agent API, the local-volume
// manager, pod publishing). Plain data only, so it can cross HTTP as JSON and be stored
// as-is; types and constants only, no I/O. Byte counts are decimal strings: they may exceed 2^53.
import type { CleanupMethod } from '../domain/cleanup-method';
import type { LocalClassConfig } from '../domain/local-volume-config';

/** Where the server serves this contract (over the Kubernetes API's TLS) and the agent calls it. */
export const AGENT_API_PREFIX = '/apis/agent.stowage.io/v1/';

// --- Configuration and reporting ------------------------------------------------------------

/** What the server hands an agent: its node's local-volume classes. */
export interface AgentConfig {
  nodeName: string;
  classes: LocalClassConfig[];
  /** Set when the stored map does not parse (it is validated on write, so only for old data). */
  error?: string;
  resourceVersion: string;
}

/** What an agent reports about its node now and then. */
export interface HeartbeatInput {
  labels?: Record<string, string>;
  nodeInfo?: { operatingSystem?: string; architecture?: string; kernelVersion?: string; osImage?: string };
  addresses?: { type: string; address: string }[];
  /** host:port where this node's agent takes replication transfers (its listener), if it runs one. */
  replicationEndpoint?: string;
}

/** An agent asking for cleanup jobs to run. */
export interface ClaimInput {
  instance: string;
  /** Job ids this instance is running (their leases are renewed). */
  running: string[];
  /** How many new jobs it may take now. */
  max: number;
}

// --- Discovery and cleanup ------------------------------------------------------------------

/** What discovery saw at one entry of a discovery directory. */
export interface DiscoveredEntry {
  className: string;
  /** The entry's base name inside hostDir (used in the PV name hash). */
  entryName: string;
  /** The host path (hostDir + "/" + entryName): what spec.local.path carries. */
  hostPath: string;
  volumeMode: 'Filesystem' | 'Block';
  capacityBytes: string;
  eligible: boolean;
  /** Why an entry is not offered (set when eligible is false). */
  reason?: string;
  /** Device identity (major:minor, or st_dev:st_ino for directories) to detect duplicates. */
  deviceId?: string;
  /** Set when the agent is wiping this entry right now (then eligible is false). */
  cleanupRunning?: boolean;
}

/** A cleanup the manager asks the agent to run (one row of the cleanup-job table). */
export interface CleanupRequest {
  jobId: string;
  pvName: string;
  className: string;
  hostPath: string;
  volumeMode: 'Filesystem' | 'Block';
  method: CleanupMethod;
  /** argv of a custom command (method "custom"); the device is in LOCAL_PV_BLKDEVICE. */
  command?: string[];
  fsType?: string;
  attempt: number;
}

export interface CleanupProgress {
  jobId: string;
  /** "bytes" for block methods, "entries" for file cleanup. */
  unit: 'bytes' | 'entries';
  done: string;
  total: string;
  /** Units per second over the last interval. */
  rate: number;
  /** Seconds left; undefined when unknown. */
  etaSeconds?: number;
}

export interface CleanupResult {
  jobId: string;
  ok: boolean;
  exitCode?: number;
  error?: string;
  /** The last lines of the method's output (stdout and stderr), for failures. */
  outputTail?: string[];
  durationMs: number;
  /** The agent refused the request before touching the disk (path outside the discovery directory, wrong class or mode). */
  refused?: boolean;
  /** Refused because a cleanup of the same hostPath is already running: not a failure of the disk. */
  busy?: boolean;
  /** Stopped by the AbortSignal: the disk is partly wiped and must not be offered. */
  cancelled?: boolean;
}

// --- Publishing: the storage half of a kubelet ---------------------------------------------

/** One claim volume of a pod, resolved by the server to what the agent must publish. */
export interface PodVolume {
  /** The pod's volume name (spec.volumes[].name): the directory or device name under the pod. */
  name: string;
  claimName: string;
  readOnly: boolean;
  /** The bound PV, when there is one. */
  pvName?: string;
  volumeMode: 'Filesystem' | 'Block';
  /** The host path to publish: a directory (Filesystem) or a device node (Block). */
  hostPath?: string;
  /** Why the volume cannot be published yet (then hostPath is absent), e.g. the claim is not bound. */
  waiting?: string;
}

/** A pod placed on the agent's node. */
export interface AgentPod {
  namespace: string;
  name: string;
  uid: string;
  /** The pod is Terminating: unpublish its volumes, then report it done. */
  deleting: boolean;
  volumes: PodVolume[];
}

/** What the agent did for one volume of a pod. */
export interface VolumeReport {
  name: string;
  ready: boolean;
  /** Why not (FailedMount's text), or how it was published ("bind mount", "symlink", "device link"). */
  message?: string;
  /** Bytes used on the volume's filesystem (decimal string), when the agent could tell. */
  usedBytes?: string;
  capacityBytes?: string;
}

export interface PodReport {
  namespace: string;
  name: string;
  uid: string;
  volumes: VolumeReport[];
}

// --- Pools: btrfs subvolumes with qgroup limits (stowage.io/btrfs) ---------------------------

/** A pool the agent's node may have: a btrfs class's `pool` parameter. */
export interface PoolAssignment {
  className: string;
  path: string;
}

/**
 * A volume of a pool the agent must bring to its desired state: `present` (the subvolume
 * exists with its qgroup limit at `limitBytes`) or `absent` (subvolume and qgroup gone).
 * Made from the intent record, which the server wrote before asking.
 */
export interface PoolVolumeWork {
  pvName: string;
  pool: string;
  /** `<pool>/<pvName>`: the only path the agent touches for it. */
  path: string;
  want: 'present' | 'absent';
  /** The qgroup limit (decimal string), for `present`. */
  limitBytes: string;
  /** The subvolume's id once it was made (so a delete cut short can still find its qgroup). */
  subvolumeId?: string;
  /**
   * Made as a snapshot of this subvolume of the same pool (`<pool>/pvc-…` or
   * `<pool>/snapcontent-…`) instead of empty: a VolumeSnapshot, a restore or a clone.
   */
  from?: string;
  /** A read-only snapshot (a VolumeSnapshot's content): no qgroup limit is set on it. */
  readOnly?: boolean;
}

/** What the server hands an agent: its pools and the volumes to settle. */
export interface PoolWork {
  pools: PoolAssignment[];
  volumes: PoolVolumeWork[];
  /** A token for this list of volumes: asked with it as `seen`, the server holds an unchanged list. */
  version?: string;
}

/** The agent settled a volume: it is `present` with this limit, or `absent`. */
export interface PoolVolumeDone {
  state: 'present' | 'absent' | 'failed';
  limitBytes?: string;
  subvolumeId?: string;
  /** Why the agent could not settle it (state failed); it tries again. */
  error?: string;
}

/** What an agent sees of one pool: its figures, or why it cannot serve. */
export interface PoolReport {
  className: string;
  path: string;
  usable: boolean;
  /** Why not (set when usable is false): missing, not btrfs, no quotas. */
  reason?: string;
  totalBytes?: string;
  freeBytes?: string;
  /**
   * The statfs of the pool's path, from which totalBytes and freeBytes come (decimal
   * strings): the server holds the figures to it. Required with usable.
   */
  filesystem?: { blockSize: string; blocks: string; availableBlocks: string };
  /** Referenced bytes per volume (pvName -> decimal string), from the qgroups. */
  usedBytes?: Record<string, string>;
}
