// The in-tree provisioner plugin contract (after sig-storage-lib-external-provisioner
// controller/volume.go, and upstream's ProvisionableVolumePlugin / DeletableVolumePlugin):
//
// - `validateParameters` checks the class parameters and the claim BEFORE anything is
//   made: an unknown parameter, an impossible combination, or a selector the plugin cannot
//   honour is a problem, and a claim with problems gets no asset at all (seed 000:
//   "it SHOULD report an error and it MUST NOT provision a volume");
// - `provision` makes the asset (recording its intent first) and returns the pieces of the
//   PV spec that describe it, with a state: `finished` (the result is final, success or
//   error), `inBackground` (still going on; call again with the same options),
//   `noChange` (could not even find out; the previous state holds), `reschedule` (give up
//   on the selected node);
// - `delete` removes the asset of a PV; 'ignored' means "not mine" (another plugin, another
//   node, or no record that this plugin made it), which the deleter leaves alone. The
//   intent record stays (state deleting) until the deleter forgets it with the PV object;
// - `deleteAsset` removes an asset from its intent record alone (no PV: crash recovery);
// - `snapshots` (plugins that say `capabilities.snapshots`): take a snapshot of a PV's asset
//   under a VolumeSnapshotContent's name and delete it (the CSI snapshotter's part);
//   `provision` with `options.source` populates the new asset from a snapshot or a volume.
import type { LabelSelector } from '../domain/label-selector';
import { quantityFromJSON, quantityToBytes } from '../domain/quantity';
import { pluginParameters } from '../domain/secret-references';
import { dataSourceKind, dataSourceOf } from '../domain/data-source';
import { btrfsProvisioner, hostPathProvisioner, loopProvisioner } from '../domain/well-known/provisioners';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../resources/storage-class/schema';
import type { DiskUsage, UsageBudget } from './os';
import type { VolumeNodeAffinity } from '../resources/node-selector';
import type { AssetRecord } from '../store/provisioned-assets';
import { annSelectedNode } from '../domain/well-known/annotations';
import { labelHostname } from '../domain/well-known/labels';

import type { PluginCapabilities, VolumeMode } from '../domain/provisioner-capabilities';

export type { VolumeMode };

export interface ProvisionOptions {
  /** The PV's name (deterministic: `pvc-<claim uid>`), which names the asset as well. */
  pvName: string;
  claim: PersistentVolumeClaim;
  storageClass: StorageClass;
  /** The class's parameters (opaque to developers; never copied into the PV). */
  parameters: Record<string, string>;
  /** The claim's request, in bytes. */
  requestBytes: bigint;
  accessModes: string[];
  volumeMode: VolumeMode;
  selector?: LabelSelector;
  /** The node the scheduler picked (WaitForFirstConsumer classes). */
  selectedNode?: string;
  /** The decoded data of the Secret the class names (csi.storage.k8s.io/provisioner-secret-name). */
  secrets?: Record<string, string>;
  /** What to populate the volume from (a restore or a clone), checked by the provisioner. */
  source?: VolumeContentSource;
}

/**
 * upstream's CSI VolumeContentSource: a snapshot (the content bound to the claim's
 * VolumeSnapshot, and its handle) or a volume (the PV of the claim being cloned).
 */
export type VolumeContentSource = { kind: 'snapshot'; contentName: string; handle: string } | { kind: 'volume'; pvName: string };

/** A snapshot to take: of the asset behind `pvName`, named after its content. */
export interface SnapshotRequest {
  contentName: string;
  pvName: string;
  /** The volume's size (its PV's capacity), the snapshot's restoreSize. */
  sizeBytes: bigint;
  /** Told now and then how far a copy has come (plugins that copy). */
  onProgress?(progress: CopyProgress): void;
  /** The decoded data of the snapshotter Secret the content names (its deletion-secret annotations). */
  secrets?: Record<string, string>;
}

/** How far a copy has come: bytes in the copy so far, of the source's. */
export interface CopyProgress {
  copiedBytes: bigint;
  totalBytes: bigint;
}

/** A snapshot that exists: its handle (the plugin's own name for it), size and time. */
export interface TakenSnapshot {
  handle: string;
  sizeBytes: bigint;
  createdAt: Date;
}

/**
 *   ready         the snapshot exists
 *   inBackground  being taken (ask again after retryAfterMs)
 *   ignored       not this process's: the volume lives on a node another process serves
 */
export type SnapshotResult =
  | { state: 'ready'; snapshot: TakenSnapshot }
  | { state: 'inBackground'; retryAfterMs?: number; progress?: string }
  | { state: 'ignored' };

export interface SnapshotOps {
  /** Takes the snapshot (intent record first), or continues one begun. Throws on failure. */
  create(request: SnapshotRequest): Promise<SnapshotResult>;
  /** Deletes the snapshot of a content; 'deleted' also when there is none; 'ignored': another node's. Throws on failure. */
  delete(contentName: string, secrets?: Record<string, string>): Promise<DeleteResult>;
  /** Deletes a snapshot known only by its intent record (crash recovery). */
  deleteRecord(record: AssetRecord): Promise<DeleteResult>;
}

/** The deterministic PV name of a claim: a second provisioning of it fails instead of duplicating. */
export const volumeNameFor = (claim: PersistentVolumeClaim) => `pvc-${claim.metadata.uid ?? ''}`;

/** The options a plugin gets for a claim of a class (upstream ProvisionOptions). */
export function provisionOptionsFor(claim: PersistentVolumeClaim, storageClass: StorageClass): ProvisionOptions {
  const request = quantityFromJSON(claim.spec?.resources?.requests?.storage);
  return {
    pvName: volumeNameFor(claim),
    claim,
    storageClass,
    parameters: pluginParameters(storageClass.parameters ?? {}),
    requestBytes: request ? quantityToBytes(request) : 0n,
    accessModes: [...(claim.spec?.accessModes ?? [])],
    volumeMode: claim.spec?.volumeMode === 'Block' ? 'Block' : 'Filesystem',
    selector: claim.spec?.selector ?? undefined,
    selectedNode: claim.metadata.annotations?.[annSelectedNode] || undefined,
  };
}

/** The parts of the PV that the plugin decides; the controller adds the rest. */
export interface ProvisionedVolume {
  /** Real size in bytes, never smaller than requested. */
  capacityBytes: bigint;
  volumeMode: VolumeMode;
  /** Exactly one volume source, e.g. `{ hostPath: {...} }` or `{ local: {...} }`. */
  source: Record<string, unknown>;
  nodeAffinity?: VolumeNodeAffinity;
  /** Labels the PV must carry (at least the selector's); the plugin may add more. */
  labels?: Record<string, string>;
  /** Where the asset is (shown by the dashboard); never secrets. */
  asset: Record<string, unknown>;
}

export type ProvisioningState = 'finished' | 'inBackground' | 'noChange' | 'reschedule';

export type ProvisionResult =
  | { state: 'finished'; volume: ProvisionedVolume; error?: undefined }
  /** `retryAfterMs`: for `inBackground`, when to ask again (default: the controller's background poll). */
  | { state: ProvisioningState; volume?: undefined; error: Error; retryAfterMs?: number };

export type DeleteResult = 'deleted' | 'ignored';

export { ANY_CAPABILITIES, type PluginCapabilities } from '../domain/provisioner-capabilities';

export interface ProvisionerPlugin {
  /** The provisioner name a StorageClass uses, e.g. `stowage.io/host-path`. */
  readonly name: string;
  readonly capabilities: PluginCapabilities;
  /**
   * The plugin acts on any node through that node's agent (its intent records are the
   * agent's instructions), so whichever controller leads settles its records; other
   * plugins act on the machine they run on and settle only that node's records.
   */
  readonly agentBacked?: boolean;
  /** Problems with the parameters or the claim; empty when the claim can be served. */
  validateParameters(parameters: Record<string, string>, claim: PersistentVolumeClaim, storageClass?: StorageClass): string[];
  provision(options: ProvisionOptions): Promise<ProvisionResult>;
  /** Removes the asset behind a PV this plugin provisioned. Throws on failure. */
  delete(pv: PersistentVolume): Promise<DeleteResult>;
  /** Removes an asset known only by its intent record. Throws on failure. */
  deleteAsset(record: AssetRecord): Promise<DeleteResult>;
  /**
   * Grows the asset behind a PV to at least `bytes` (the controller half of expansion).
   * Undefined when the asset is not this plugin's on this node. Throws on failure.
   */
  expand?(pv: PersistentVolume, bytes: bigint): Promise<ExpandResult | undefined>;
  /** Grows the filesystem on the grown asset (the node half), when expand said so. */
  expandFilesystem?(pv: PersistentVolume): Promise<void>;
  /**
   * Bytes used on the asset behind a PV, measured within the budget. Undefined when the
   * asset is not this plugin's on this node, or is gone.
   */
  usage?(pv: PersistentVolume, budget: UsageBudget): Promise<DiskUsage | undefined>;
  /** Snapshots of its assets (when `capabilities.snapshots`). */
  snapshots?: SnapshotOps;
}

export interface ExpandResult {
  /** The asset's size now (never less than asked for). */
  capacityBytes: bigint;
  /** A filesystem on the asset must grow as well (expandFilesystem). */
  fileSystemResizeRequired: boolean;
  /** Something the user should know about the new size. */
  note?: string;
}

/** An error the user can act on (bad parameters, an unsupported claim): shown verbatim. */
export class ProvisioningError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProvisioningError';
  }
}

export const failed = (error: unknown, state: ProvisioningState = 'finished'): ProvisionResult => ({
  state,
  error: error instanceof Error ? error : new Error(String(error)),
});

/** Node affinity that pins a volume to one node. */
export function pinToNode(node: string): VolumeNodeAffinity {
  return {
    required: { nodeSelectorTerms: [{ matchExpressions: [{ key: labelHostname, operator: 'In', values: [node] }] }] },
  };
}

/**
 * Seed 000: a provisioner must refuse selectors it does not understand. Node-local plugins
 * understand one label, kubernetes.io/hostname, and only with this node as its value
 * (matchLabels, or `In` listing this node). Returns the PV labels that satisfy the
 * selector, or the problems.
 */
export function nodeSelectorLabels(
  plugin: string,
  selector: LabelSelector | undefined | null,
  node: string,
): { labels: Record<string, string>; problems: string[] } {
  const labels: Record<string, string> = {};
  const problems: string[] = [];
  if (!selector) return { labels, problems };
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (key !== labelHostname) {
      problems.push(`the claim's selector uses label "${key}", which ${plugin} does not understand (it understands only ${labelHostname})`);
    } else if (value !== node) {
      problems.push(`the claim's selector asks for ${labelHostname}=${value}, but ${plugin} provisions on node "${node}" only`);
    } else {
      labels[key] = value;
    }
  }
  for (const expr of selector.matchExpressions ?? []) {
    if (expr.key !== labelHostname) {
      problems.push(`the claim's selector uses label "${expr.key}", which ${plugin} does not understand (it understands only ${labelHostname})`);
    } else if (expr.operator !== 'In' || !(expr.values ?? []).includes(node)) {
      problems.push(`the claim's selector expression on ${labelHostname} (${expr.operator}) cannot be satisfied by node "${node}"`);
    } else {
      labels[labelHostname] = node;
    }
  }
  return { labels, problems };
}

/** Access modes a node-local asset can offer: one node at a time. */
const nodeLocalModes = new Set(['ReadWriteOnce', 'ReadWriteOncePod']);

/** Claim checks every node-local plugin shares (modes, data sources, selector, node). */
export function nodeLocalClaimProblems(plugin: string, claim: PersistentVolumeClaim, node: string): string[] {
  const problems: string[] = [];
  const modes: string[] = claim.spec?.accessModes ?? [];
  for (const m of modes) {
    if (!nodeLocalModes.has(m)) problems.push(`access mode ${m} cannot be offered by ${plugin}: its volumes live on one node`);
  }
  problems.push(...dataSourceProblems(plugin, claim));
  problems.push(...nodeSelectorLabels(plugin, claim.spec?.selector, node).problems);
  return problems;
}

/** Parameters not in `known`, as problems (case-sensitive, like upstream plugins). */
export function unknownParameters(plugin: string, parameters: Record<string, string>, known: readonly string[]): string[] {
  return Object.keys(parameters)
    .filter((k) => !known.includes(k))
    .map((k) => `unknown parameter "${k}" for ${plugin} (supported: ${known.join(', ')})`);
}

/** The data sources an in-tree plugin populates from: a VolumeSnapshot or a claim of the same namespace. */
export function dataSourceProblems(plugin: string, claim: PersistentVolumeClaim): string[] {
  const kind = dataSourceKind(claim);
  if (kind === undefined) return [];
  const ns = claim.spec?.dataSourceRef?.namespace;
  if (ns && ns !== claim.metadata.namespace) return [`${plugin} cannot populate a volume from another namespace (dataSourceRef.namespace ${ns})`];
  if (kind === 'backup' && !restoresFromBackups.has(plugin)) return [`${plugin} cannot restore a volume from a VolumeBackup (backups restore into btrfs, host-path and loop classes)`];
  return kind === 'other' ? [`${plugin} cannot populate a volume from a ${dataSourceOf(claim)?.kind ?? 'data source'}`] : [];
}

/** The plugins a VolumeBackup restores into: btrfs and host-path (a `files` backup), loop (an `image` backup). */
export const restoresFromBackups: ReadonlySet<string> = new Set([btrfsProvisioner, hostPathProvisioner, loopProvisioner]);
