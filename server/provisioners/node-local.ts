// What the two node-local plugins (host-path, loop) share: their dependencies, the
// `basePath` parameter, asset naming, the free-space check, and the intent-first skeleton
// of provisioning (record -> make -> mark created; on failure undo and forget).
import path from 'node:path';
import type { Logger } from 'pino';
import type { AssetRecord, AssetStore } from '../store/provisioned-assets';
import type { HostOs } from './os';
import {
  failed,
  ProvisioningError,
  type ProvisionerPlugin,
  type ProvisionOptions,
  type ProvisionResult,
  type ProvisionedVolume,
  type CopyProgress,
  type SnapshotOps,
  type SnapshotResult,
  type VolumeContentSource,
} from './plugin';
import { humanBytes } from '../domain/human-size';
import { VOLUME_DIR_MODE } from '../domain/volume-modes';

export interface NodeLocalDeps {
  os: HostOs;
  assets: AssetStore;
  /** The node this process provisions on (default: the OS hostname). */
  nodeName?: string;
  log?: Logger;
  /** How often a copy's progress is measured (ms, default 1000). */
  progressEveryMs?: number;
}

/** The node this plugin instance provisions on. */
export const nodeOf = (deps: NodeLocalDeps) => deps.nodeName ?? deps.os.hostname();

/** Bytes in a message a person reads ("73.2 GiB"), not a raw quantity ("76797532Ki"). */
export const showBytes = (b: bigint) => humanBytes(b);

/** Problems with a `basePath` parameter (the rules a StorageClass is validated with). */
export { basePathProblems } from '../resources/storage-class/in-tree-parameters';

/**
 * A base path that is, or passes through, a symlink is refused: what the class names must
 * be what is written to and, on delete, removed from. Checked on the node, before the
 * asset is made, on the nearest existing ancestor when the path does not exist yet.
 */
export async function symlinkProblems(os: HostOs, basePath: string): Promise<string[]> {
  const real = await os.realpath(basePath);
  if (real !== undefined && real !== basePath) {
    return [`parameter "basePath" must not be or pass through a symlink: "${basePath}" resolves to "${real}"`];
  }
  return [];
}

/** The asset's file name: the PV name, then the claim for people reading the disk. */
export function assetName(o: ProvisionOptions): string {
  return `${o.pvName}_${o.claim.metadata.namespace ?? ''}_${o.claim.metadata.name ?? ''}`;
}

/** Whether `p` lies strictly inside `root` (what a delete may ever remove). */
export function isInside(p: unknown, root: unknown): p is string {
  if (typeof p !== 'string' || typeof root !== 'string' || !root.startsWith('/')) return false;
  const rel = path.posix.relative(root, p);
  return rel !== '' && !rel.startsWith('..') && !path.posix.isAbsolute(rel);
}

/** Fails when the filesystem under basePath cannot hold `bytes` more. */
export async function checkFreeSpace(os: HostOs, basePath: string, bytes: bigint): Promise<void> {
  const st = await os.statfs(basePath);
  if (st.availableBytes < bytes) {
    throw new ProvisioningError(
      `not enough space under ${basePath}: ${showBytes(st.availableBytes)} available, ${showBytes(bytes)} requested`,
    );
  }
}

export interface IntentSteps {
  plugin: string;
  deps: NodeLocalDeps;
  options: ProvisionOptions;
  /** Details known before anything is made (paths). */
  planned: Record<string, unknown>;
  /** Makes the asset (idempotently: it may be half made by an earlier attempt). */
  make(record: AssetRecord): Promise<ProvisionedVolume>;
  /** Undoes whatever `make` may have done (idempotent). */
  undo(record: AssetRecord): Promise<void>;
}

/**
 * Intent first: the record, then the asset, then "created". A record already there for the
 * same claim (an earlier attempt, a crash) is continued rather than duplicated: `make` is
 * idempotent. On failure everything made is undone and the record removed; when even the
 * undo fails the record stays (with the error) for the next attempt or the sweep.
 */
export async function provisionWithIntent(s: IntentSteps): Promise<ProvisionResult> {
  const { deps, options: o } = s;
  const node = nodeOf(deps);
  const { record, existed } = await deps.assets.begin({
    plugin: s.plugin,
    pvName: o.pvName,
    claimUid: o.claim.metadata.uid,
    claim: `${o.claim.metadata.namespace ?? ''}/${o.claim.metadata.name ?? ''}`,
    node,
    details: s.planned,
  });
  if (existed) {
    if (record.state === 'deleting') return failed(new Error(`the asset of ${o.pvName} is being removed; will try again`), 'noChange');
    if (record.claimUid !== (o.claim.metadata.uid ?? null) || record.node !== node) {
      return failed(new Error(`an asset named ${o.pvName} already exists for another claim or node (${record.node})`));
    }
  }
  try {
    const volume = await s.make(record);
    await deps.assets.markCreated(record, volume.asset);
    return { state: 'finished', volume };
  } catch (err) {
    deps.log?.warn({ err, pv: o.pvName, plugin: s.plugin }, 'provisioning failed; undoing');
    try {
      await s.undo(record);
      await deps.assets.remove(record);
    } catch (undoErr) {
      deps.log?.error({ err: undoErr, pv: o.pvName }, 'could not undo a failed provisioning; the sweep will retry');
      await deps.assets.noteError(record, undoErr).catch(() => {});
    }
    return failed(err);
  }
}

/**
 * Removes an asset from its record: marks it deleting, undoes it, and forgets the record,
 * or, with `keepRecord`, leaves it in state deleting for the caller, which forgets it
 * together with the PV object (so a crash in between still shows which PV was being
 * deleted). Records of another node are not this process's to touch ('ignored').
 */
export async function deleteWithIntent(
  deps: NodeLocalDeps,
  record: AssetRecord,
  remove: (record: AssetRecord) => Promise<void>,
  keepRecord = false,
): Promise<'deleted' | 'ignored'> {
  if (record.node !== nodeOf(deps)) return 'ignored';
  const deleting = await deps.assets.markDeleting(record);
  try {
    await remove(deleting);
  } catch (err) {
    await deps.assets.noteError(deleting, err).catch(() => {});
    throw err;
  }
  if (!keepRecord) await deps.assets.remove(deleting);
  return 'deleted';
}

/**
 * A node-local plugin's `delete` (by PV: only assets with a record are ours) and
 * `deleteAsset` (by record), both through deleteWithIntent.
 */
export function nodeLocalDeleters(
  deps: NodeLocalDeps,
  plugin: string,
  remove: (record: AssetRecord) => Promise<void>,
): Pick<ProvisionerPlugin, 'delete' | 'deleteAsset'> {
  return {
    async delete(pv) {
      const record = await deps.assets.get(plugin, pv.metadata.name ?? '');
      // No record: Stowage did not make this asset, or released it: not ours to touch.
      if (!record) return 'ignored';
      return deleteWithIntent(deps, record, remove, true);
    },
    deleteAsset: (record) => deleteWithIntent(deps, record, remove),
  };
}

// ---------------------------------------------------------------------------------------
// Snapshots, restores and clones of node-local assets: copies.

/** Intent records of snapshots carry `kind: 'snapshot'`; `pvName` is the content's name. */
export const SNAPSHOT_RECORD = 'snapshot';
export const isSnapshotRecord = (r: AssetRecord) => r.details.kind === SNAPSHOT_RECORD;

/**
 * Copies `from` to `to` once: into `<to>.partial`, then renamed, so `to` exists only
 * complete. A copy cut short (a crash) leaves only the partial one, which the next attempt
 * removes first (and the undo removes with `to`).
 */
export async function copyOnce(os: HostOs, from: string, to: string, mode?: number): Promise<void> {
  if (await os.exists(to)) {
    // A copy renamed into place before its mode was known to be set: set it again.
    if (mode !== undefined) await os.chmod(to, mode);
    return;
  }
  const partial = `${to}.partial`;
  await os.rm(partial);
  await os.copy(from, partial);
  // The copy keeps its source's mode; the node's own copies are its owner's only, before they take their name.
  if (mode !== undefined) await os.chmod(partial, mode);
  await os.rename(partial, to);
}

/** A plugin's snapshot record whose path is this handle (the snapshot a pre-provisioned content names). */
export async function snapshotByHandle(assets: Pick<NodeLocalDeps['assets'], 'list'>, plugin: string, handle: string): Promise<AssetRecord | undefined> {
  return (await assets.list({ plugin, states: ['created'] })).find((r) => r.details.kind === SNAPSHOT_RECORD && r.details.path === handle);
}

/** The asset a restore or a clone copies: the record of the snapshot or of the volume, on this node. */
export async function sourceRecord(deps: NodeLocalDeps, plugin: string, source: VolumeContentSource): Promise<AssetRecord> {
  const name = source.kind === 'snapshot' ? source.contentName : source.pvName;
  const what = source.kind === 'snapshot' ? `snapshot content ${name}` : `volume ${name}`;
  // A pre-provisioned content names a snapshot by its handle only (upstream restores by snapshotHandle).
  const r = (await deps.assets.get(plugin, name)) ?? (source.kind === 'snapshot' ? await snapshotByHandle(deps.assets, plugin, source.handle) : undefined);
  if (!r || r.state !== 'created') throw new ProvisioningError(`${what} has no ${plugin} data to copy`);
  if (source.kind === 'snapshot' && r.details.path !== source.handle) throw new ProvisioningError(`snapshot handle ${source.handle} is not available`);
  if (r.node !== nodeOf(deps)) throw new ProvisioningError(`${what} is on node "${r.node}"; ${plugin} on node "${nodeOf(deps)}" copies only its own node's data`);
  return r;
}

export interface SnapshotCopySteps {
  plugin: string;
  deps: NodeLocalDeps;
  /** The data of a volume's record to copy, and its base path. */
  dataOf(volume: AssetRecord): { path: string; basePath: string };
  /** Where a snapshot of the volume goes (inside its base path). */
  target(volume: AssetRecord, contentName: string): string;
  /** The snapshot's mode (a directory 0700, an image file 0600): readable by the node's owner only, whatever its source's. */
  mode: number;
  /** Before the copy: write what is cached (a mounted filesystem). */
  flush?(volume: AssetRecord): Promise<void>;
  /** The bytes of a copy's source or its partial copy so far (default: the directory's usage). */
  measure?(path: string): Promise<bigint | undefined>;
}

const PROGRESS_BUDGET = { ms: 500, entries: 200_000 };

/** Measures the partial copy every `everyMs` while `copy` runs and reports it; never two measurements at once. */
async function withProgress(measure: (p: string) => Promise<bigint | undefined>, from: string, partial: string, everyMs: number, report: ((p: CopyProgress) => void) | undefined, copy: () => Promise<void>): Promise<void> {
  if (!report) return copy();
  const totalBytes = (await measure(from)) ?? 0n;
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    measure(partial)
      .then((copied) => copied !== undefined && report({ copiedBytes: copied < totalBytes ? copied : totalBytes, totalBytes }))
      .catch(() => {})
      .finally(() => (busy = false));
  }, everyMs);
  try {
    await copy();
    report({ copiedBytes: totalBytes, totalBytes });
  } finally {
    clearInterval(timer);
  }
}

/**
 * A node-local plugin's snapshots: a copy of the volume's data (reflinked where the
 * filesystem can), with its intent record (kind snapshot, named after the content)
 * written before the copy starts.
 */
export function copySnapshots(s: SnapshotCopySteps): SnapshotOps {
  const { deps, plugin } = s;
  async function remove(record: AssetRecord): Promise<void> {
    const { path: p, basePath } = record.details;
    if (!isInside(p, basePath)) throw new Error(`refusing to remove ${String(p)}: not inside the base path ${String(basePath)}`);
    await deps.os.rm(`${p}.partial`);
    await deps.os.rm(p);
  }
  const ready = (r: AssetRecord): SnapshotResult => ({
    state: 'ready',
    snapshot: { handle: String(r.details.path), sizeBytes: BigInt(String(r.details.sizeBytes ?? '0')), createdAt: new Date(String(r.details.takenAt ?? r.updatedAt.toISOString())) },
  });
  return {
    async create(req) {
      const volume = await deps.assets.get(plugin, req.pvName);
      if (!volume || volume.state !== 'created') throw new Error(`volume ${req.pvName} has no ${plugin} data on record`);
      if (volume.node !== nodeOf(deps)) return { state: 'ignored' };
      const { path: from, basePath } = s.dataOf(volume);
      const to = s.target(volume, req.contentName);
      if (!isInside(from, basePath) || !isInside(to, basePath)) throw new Error(`refusing to copy ${from} to ${to}: not inside the base path ${basePath}`);
      const { record } = await deps.assets.begin({
        plugin,
        pvName: req.contentName,
        node: nodeOf(deps),
        details: { kind: SNAPSHOT_RECORD, source: req.pvName, path: to, basePath, sizeBytes: String(req.sizeBytes) },
      });
      if (record.state === 'deleting') throw new Error(`the snapshot ${req.contentName} is being removed`);
      if (record.state === 'created') return ready(record);
      await s.flush?.(volume);
      await deps.os.mkdir(path.posix.dirname(to), VOLUME_DIR_MODE);
      const measure = s.measure ?? (async (p: string) => (await deps.os.diskUsage(p, PROGRESS_BUDGET))?.bytes);
      await withProgress(measure, from, `${to}.partial`, deps.progressEveryMs ?? 1000, req.onProgress, () => copyOnce(deps.os, from, to, s.mode));
      return ready(await deps.assets.markCreated(record, { takenAt: new Date().toISOString() }));
    },
    async delete(contentName) {
      const record = await deps.assets.get(plugin, contentName);
      if (!record) return 'deleted';
      return deleteWithIntent(deps, record, remove);
    },
    deleteRecord: (record) => deleteWithIntent(deps, record, remove),
  };
}
