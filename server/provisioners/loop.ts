// stowage.io/loop: a sparse file of the requested size under `basePath`, attached as a
// loop device. Filesystem mode formats it (`fsType`, default ext4) and mounts it at
// basePath/mounts/<pv>; Block mode hands out the device. The size is really enforced: the
// filesystem (or device) ends where the file ends, unlike a directory
// (rancher/local-path-provisioner#345).
//
// The PV source is `local` in both modes, not `hostPath`: `local` is Kubernetes' source
// for node-local storage that must be scheduled by its node affinity (validation requires
// the affinity), and it is the source that supports volumeMode Block (path = the device),
// so one source describes both modes. In Filesystem mode its path is the mount point.
//
// Size: the file is the request rounded up to whole 512-byte sectors (a loop device's unit),
// so an aligned request ("1Gi", "100Mi") gets exactly that size, and the PV's capacity is
// always the real size, never less than asked for.
import path from 'node:path';
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { AssetRecord } from '../store/provisioned-assets';
import {
  assetName,
  basePathProblems,
  symlinkProblems,
  checkFreeSpace,
  nodeLocalDeleters,
  copyOnce,
  copySnapshots,
  sourceRecord,
  isSnapshotRecord,
  isInside,
  nodeOf,
  provisionWithIntent,
  showBytes,
  type NodeLocalDeps,
} from './node-local';
import {
  failed,
  nodeLocalClaimProblems,
  nodeSelectorLabels,
  pinToNode,
  ProvisioningError,
  unknownParameters,
  type ProvisionerPlugin,
  type ProvisionedVolume,
} from './plugin';
import { loopCapabilities } from '../domain/provisioner-capabilities';
import { loopProvisioner } from '../domain/well-known/provisioners';
import { VOLUME_DIR_MODE, VOLUME_FILE_MODE } from '../domain/volume-modes';

const knownParameters = ['basePath', 'fsType'] as const;
export const loopFsTypes: Record<string, bigint> = { ext4: 1n << 20n, ext3: 1n << 20n, ext2: 1n << 20n, xfs: 300n << 20n };

/** A loop device on one node: one node at a time, a filesystem or the raw device. */
const SECTOR = 512n;

export const roundToSector = (bytes: bigint) => ((bytes + SECTOR - 1n) / SECTOR) * SECTOR;

export function createLoopPlugin(deps: NodeLocalDeps): ProvisionerPlugin {
  const name = loopProvisioner;
  const os = deps.os;

  function validateParameters(parameters: Record<string, string>, claim: PersistentVolumeClaim): string[] {
    const problems = unknownParameters(name, parameters, knownParameters);
    problems.push(...basePathProblems(name, parameters.basePath));
    const block = (claim.spec?.volumeMode ?? 'Filesystem') === 'Block';
    const fsType = parameters.fsType;
    if (block && fsType !== undefined) {
      problems.push(`parameter "fsType" (${fsType}) makes no sense for a claim with volumeMode Block: a Block volume is handed out unformatted`);
    } else if (fsType !== undefined && loopFsTypes[fsType] === undefined) {
      problems.push(`parameter "fsType" must be one of ${Object.keys(loopFsTypes).join(', ')}, got "${fsType}"`);
    }
    problems.push(...nodeLocalClaimProblems(name, claim, nodeOf(deps)));
    return problems;
  }

  /** Undoes everything a (partial) provisioning may have made; safe to run again. */
  async function remove(record: AssetRecord): Promise<void> {
    const { file, mountpoint, basePath } = record.details;
    if (!isInside(file, basePath)) throw new Error(`refusing to remove ${String(file)}: not inside the base path ${String(basePath)}`);
    if (mountpoint !== undefined) {
      if (!isInside(mountpoint, basePath)) throw new Error(`refusing to unmount ${String(mountpoint)}: not inside ${String(basePath)}`);
      await os.umount(mountpoint);
      await os.rmdir(mountpoint);
    }
    // Only devices backed by this very file: a recorded /dev/loopN may belong to someone
    // else by now (after a reboot, say).
    for (const device of await os.losetupFind(file)) await os.losetupDetach(device);
    await os.rm(`${file}.partial`);
    await os.rm(file);
  }

  /** A mounted filesystem's cache, then the device's, reach the image (before it is copied). */
  async function flush(v: AssetRecord): Promise<void> {
    const { file, mountpoint } = v.details as { file: string; mountpoint?: string };
    if (mountpoint !== undefined && (await os.mountedAt(mountpoint)) !== undefined) await os.sync(mountpoint, true);
    for (const device of await os.losetupFind(file)) await os.sync(device);
  }

  async function make(record: AssetRecord, bytes: bigint, block: boolean, fsType: string, node: string, labels: Record<string, string>, source?: AssetRecord): Promise<ProvisionedVolume> {
    const { file, mountpoint, basePath, from } = record.details as { file: string; mountpoint?: string; basePath: string; from?: string };
    // A restore or a clone: the image copied whole first (a clone's source flushed); a larger request grows it (and its filesystem below).
    if (from && !(await os.exists(file))) {
      if (source && !isSnapshotRecord(source)) await flush(source);
      await copyOnce(os, from, file, VOLUME_FILE_MODE);
    }
    const grown = from !== undefined && ((await os.sizeOf(file)) ?? 0n) < bytes;
    if ((await os.sizeOf(file)) !== bytes) await os.truncate(file, bytes);
    // The image holds the volume's data: its owner's only, whatever made it (an image from before this rule too).
    await os.chmod(file, VOLUME_FILE_MODE);
    const attached = await os.losetupFind(file);
    for (const extra of attached.slice(1)) await os.losetupDetach(extra);
    const device = attached[0] ?? (await os.losetupAttach(file));
    await deps.assets.setDetails(record, { device });
    const size = await os.sizeOf(device);
    if (size !== bytes) throw new Error(`loop device ${device} has ${String(size)} bytes, expected ${bytes}`);
    const asset: Record<string, unknown> = { file, device, basePath, node };
    if (block) {
      return { capacityBytes: bytes, volumeMode: 'Block', source: { local: { path: device } }, nodeAffinity: pinToNode(node), labels, asset };
    }
    const found = await os.fsTypeOf(device);
    if (found === undefined) await os.mkfs(device, fsType);
    else if (found !== fsType) throw new Error(`${device} already holds a ${found} filesystem, expected ${fsType}`);
    await os.mkdir(mountpoint!);
    const mounted = await os.mountedAt(mountpoint!);
    if (mounted === undefined) await os.mount(device, mountpoint!, fsType);
    else if (mounted !== device) throw new Error(`${mountpoint} is already a mount of ${mounted}`);
    if (grown) await os.growFs(device, fsType, mountpoint!);
    // The new filesystem's root: its owner only, the narrowest mode that works.
    await os.mkdir(mountpoint!, VOLUME_DIR_MODE);
    return {
      capacityBytes: bytes,
      volumeMode: 'Filesystem',
      source: { local: { path: mountpoint } },
      nodeAffinity: pinToNode(node),
      labels,
      asset: { ...asset, mountpoint, fsType },
    };
  }

  return {
    name,
    capabilities: loopCapabilities,
    validateParameters,

    async provision(o) {
      const node = nodeOf(deps);
      const problems = validateParameters(o.parameters, o.claim);
      if (problems.length > 0) return failed(new ProvisioningError(problems.join('; ')));
      if (o.selectedNode && o.selectedNode !== node) {
        return failed(new ProvisioningError(`${name} on node "${node}" cannot provision for the selected node "${o.selectedNode}"`), 'reschedule');
      }
      const block = o.volumeMode === 'Block';
      const fsType = o.parameters.fsType ?? 'ext4';
      const bytes = roundToSector(o.requestBytes);
      const min = block ? SECTOR : loopFsTypes[fsType];
      if (bytes < min) {
        return failed(new ProvisioningError(`${name} needs at least ${showBytes(min)} for ${block ? 'a Block volume' : fsType}, the claim asks for ${showBytes(o.requestBytes)}`));
      }
      const basePath = o.parameters.basePath;
      const base = assetName(o);
      const file = path.posix.join(basePath, `${base}.img`);
      const mountpoint = block ? undefined : path.posix.join(basePath, 'mounts', o.pvName);
      try {
        const links = await symlinkProblems(os, basePath);
        if (links.length > 0) throw new ProvisioningError(links.join('; '));
        await os.mkdir(basePath);
        await checkFreeSpace(os, basePath, bytes);
      } catch (err) {
        return failed(err);
      }
      let source: AssetRecord | undefined;
      try {
        if (o.source) source = await sourceRecord(deps, name, o.source);
      } catch (err) {
        return failed(err);
      }
      const from = source ? dataOf(source) : undefined;
      const { labels } = nodeSelectorLabels(name, o.selector, node);
      return provisionWithIntent({
        plugin: name,
        deps,
        options: o,
        planned: { ...(mountpoint ? { file, mountpoint, basePath } : { file, basePath }), ...(from ? { from } : {}) },
        make: (record) => make(record, bytes, block, fsType, node, labels, source),
        undo: remove,
      });
    },

    async expand(pv, requested) {
      const record = await ownRecord(pv);
      if (!record) return undefined;
      const { file, basePath, mountpoint } = record.details as { file: string; basePath: string; mountpoint?: string };
      if (!isInside(file, basePath)) throw new Error(`refusing to grow ${String(file)}: not inside the base path ${String(basePath)}`);
      const bytes = roundToSector(requested);
      const current = (await os.sizeOf(file)) ?? 0n;
      if (current < bytes) {
        await checkFreeSpace(os, basePath, bytes - current);
        await os.truncate(file, bytes);
      }
      const device = (await os.losetupFind(file))[0];
      if (!device) throw new Error(`${file} is not attached to a loop device on node "${nodeOf(deps)}"`);
      await os.losetupResize(device);
      const size = (await os.sizeOf(device)) ?? 0n;
      if (size < bytes) throw new Error(`loop device ${device} has ${String(size)} bytes after growing, expected ${bytes}`);
      return { capacityBytes: size, fileSystemResizeRequired: mountpoint !== undefined };
    },

    async expandFilesystem(pv) {
      const record = await ownRecord(pv);
      if (!record) throw new Error(`no ${name} asset of ${pv.metadata.name} on node "${nodeOf(deps)}"`);
      const { file, mountpoint, fsType } = record.details as { file: string; mountpoint?: string; fsType?: string };
      const device = (await os.losetupFind(file))[0];
      if (!device || !mountpoint) throw new Error(`${pv.metadata.name}: no mounted loop device to grow`);
      await os.growFs(device, fsType ?? 'ext4', mountpoint);
    },

    snapshots: copySnapshots({
      plugin: name,
      deps,
      dataOf: (v) => ({ path: dataOf(v), basePath: String(v.details.basePath) }),
      target: (v, content) => path.posix.join(String(v.details.basePath), 'snapshots', `${content}.img`),
      flush,
      measure: (p) => os.sizeOf(p),
      mode: VOLUME_FILE_MODE,
    }),

    ...nodeLocalDeleters(deps, name, remove),
  };

  /** The image a volume's or a snapshot's record names. */
  function dataOf(r: AssetRecord): string {
    return String(isSnapshotRecord(r) ? r.details.path : r.details.file);
  }

  /** The intent record of this plugin's asset for a PV, when it lives on this node. */
  async function ownRecord(pv: PersistentVolume): Promise<AssetRecord | undefined> {
    const records = await deps.assets.byPv(pv.metadata.name ?? '');
    return records.find((r) => r.plugin === name && r.node === nodeOf(deps) && r.state === 'created');
  }
}
