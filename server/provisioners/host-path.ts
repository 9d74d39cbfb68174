// stowage.io/host-path: a directory per claim under the class's `basePath`, on the node
// this process runs on. The PV has a hostPath source (type Directory: a pod must never
// silently get a fresh empty directory) and node affinity to this node. The size is what
// was asked for; a directory cannot enforce it (use stowage.io/loop for that).
//
// Parameters: basePath (required; not a system directory, not through a symlink), mode
// (octal permissions of the directory, default 0700: the narrowest that works for the
// owner; a wider mode may be asked for, but never one that lets every user write).
import path from 'node:path';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { StorageClass } from '../resources/storage-class/schema';
import type { AssetRecord } from '../store/provisioned-assets';
import { modeProblems } from '../resources/storage-class/in-tree-parameters';
import {
  basePathProblems,
  checkFreeSpace,
  copyOnce,
  copySnapshots,
  symlinkProblems,
  isInside,
  assetName,
  nodeLocalDeleters,
  nodeOf,
  provisionWithIntent,
  sourceRecord,
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
} from './plugin';
import { hostPathCapabilities } from '../domain/provisioner-capabilities';
import { hostPathProvisioner, loopProvisioner } from '../domain/well-known/provisioners';
import { VOLUME_DIR_MODE } from '../domain/volume-modes';

const knownParameters = ['basePath', 'mode'] as const;
export const DEFAULT_MODE = VOLUME_DIR_MODE;

/** A directory on one node: one node at a time, files only; snapshots, restores and clones are copies. */

function modeOf(parameters: Record<string, string>): number {
  return parameters.mode === undefined ? DEFAULT_MODE : parseInt(parameters.mode, 8);
}

export function createHostPathPlugin(deps: NodeLocalDeps): ProvisionerPlugin {
  const name = hostPathProvisioner;

  function validateParameters(parameters: Record<string, string>, claim: PersistentVolumeClaim, storageClass?: StorageClass): string[] {
    const problems = unknownParameters(name, parameters, knownParameters);
    problems.push(...basePathProblems(name, parameters.basePath));
    problems.push(...modeProblems(parameters.mode));
    if ((claim.spec?.volumeMode ?? 'Filesystem') === 'Block') {
      problems.push(`${name} makes directories; it cannot provision a volume with volumeMode Block (use ${loopProvisioner})`);
    }
    if ((storageClass?.mountOptions ?? []).length > 0) {
      problems.push(`${name} volumes are hostPath volumes, which take no mountOptions; remove them from the StorageClass`);
    }
    problems.push(...nodeLocalClaimProblems(name, claim, nodeOf(deps)));
    return problems;
  }

  async function remove(record: AssetRecord): Promise<void> {
    const { path: dir, basePath } = record.details;
    if (!isInside(dir, basePath)) throw new Error(`refusing to remove ${String(dir)}: not inside the base path ${String(basePath)}`);
    await deps.os.rm(`${dir}.partial`);
    await deps.os.rm(dir);
  }

  return {
    name,
    capabilities: hostPathCapabilities,
    validateParameters,

    async provision(o) {
      const node = nodeOf(deps);
      const problems = validateParameters(o.parameters, o.claim, o.storageClass);
      if (problems.length > 0) return failed(new ProvisioningError(problems.join('; ')));
      if (o.selectedNode && o.selectedNode !== node) {
        return failed(new ProvisioningError(`${name} on node "${node}" cannot provision for the selected node "${o.selectedNode}"`), 'reschedule');
      }
      const basePath = o.parameters.basePath;
      const dir = path.posix.join(basePath, assetName(o));
      try {
        const links = await symlinkProblems(deps.os, basePath);
        if (links.length > 0) throw new ProvisioningError(links.join('; '));
        await deps.os.mkdir(basePath);
        await checkFreeSpace(deps.os, basePath, o.requestBytes);
      } catch (err) {
        return failed(err);
      }
      let from: string | undefined;
      try {
        if (o.source) from = String((await sourceRecord(deps, name, o.source)).details.path);
      } catch (err) {
        return failed(err);
      }
      const { labels } = nodeSelectorLabels(name, o.selector, node);
      return provisionWithIntent({
        plugin: name,
        deps,
        options: o,
        planned: { path: dir, basePath, ...(from ? { from } : {}) },
        make: async () => {
          // A restore or a clone: the copy, whole or not at all, before the mode is set.
          if (from) await copyOnce(deps.os, from, dir);
          await deps.os.mkdir(dir, modeOf(o.parameters));
          return {
            capacityBytes: o.requestBytes,
            volumeMode: 'Filesystem',
            source: { hostPath: { path: dir, type: 'Directory' } },
            nodeAffinity: pinToNode(node),
            labels,
            asset: { path: dir, basePath, node },
          };
        },
        undo: remove,
      });
    },

    async expand(pv, bytes) {
      const records = await deps.assets.byPv(pv.metadata.name ?? '');
      if (!records.some((r) => r.plugin === name && r.node === nodeOf(deps))) return undefined;
      return {
        capacityBytes: bytes,
        fileSystemResizeRequired: false,
        note: `${name} volumes are plain directories: the new size is accounting only, nothing limits the data to it`,
      };
    },

    async usage(pv, budget) {
      const records = await deps.assets.byPv(pv.metadata.name ?? '');
      const mine = records.find((r) => r.plugin === name && r.node === nodeOf(deps) && r.state === 'created');
      if (!mine) return undefined;
      const { path: dir, basePath } = mine.details;
      if (typeof dir !== 'string' || typeof basePath !== 'string' || !isInside(dir, basePath)) return undefined;
      return deps.os.diskUsage(dir, budget);
    },

    snapshots: copySnapshots({
      plugin: name,
      deps,
      dataOf: (v) => ({ path: String(v.details.path), basePath: String(v.details.basePath) }),
      target: (v, content) => path.posix.join(String(v.details.basePath), '.snapshots', content),
      mode: VOLUME_DIR_MODE,
    }),

    ...nodeLocalDeleters(deps, name, remove),
  };
}
