// First-start work for nodes and local volumes: this machine's Node (name and labels from
// the configuration), the kube-system namespace, and the local-volume-config ConfigMap with
// a commented default storageClassMap for this machine, its discovery directory and a
// StorageClass of the same name. Existing objects are never overwritten.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { nodeLabels } from '../agent/agent-loop';
import { localVolumeConfigName, localVolumeConfigNamespace, storageClassMapKey } from '../resources/config-map/strategy';
import type { Config } from './config';
import type { AppContext } from './context';
import { noProvisioner } from '../domain/well-known/provisioners';

export const defaultLocalClass = 'local-disks';

export function defaultStorageClassMap(discoveryDir: string): string {
  return `# Local volumes (the format of the upstream local static provisioner's ConfigMap).
# Each key is a StorageClass name; its hostDir is a discovery directory on every node.
# Put directories (or mount points) and symlinks to block devices (e.g. a loop device)
# in it: each becomes a PersistentVolume of that class on its node. Released volumes are
# wiped (files removed; block devices with blockCleanerCommand) before they are offered again.
${defaultLocalClass}:
  hostDir: ${JSON.stringify(discoveryDir)}
  # mountDir: where the agent sees hostDir (default: hostDir)
  # blockCleanerCommand: ["fs-reset"]  # dd-zero, blkdiscard, fs-reset, shred, hdparm, or ["/path/cmd", "args"]
  # volumeMode: Filesystem             # for entries that are not auto-detected
  # fsType: ext4                       # what fs-reset makes
  # namePattern: "*"                   # which entries to consider
  requireMountPoints: false            # plain directories count too (upstream requires mount points)
  # minSize: 1Gi                       # smaller entries are not offered
  # parallelCleanups: 2                # cleanups of this class at once on a node
`;
}

const ignoreExists = (e: unknown) => {
  if ((e as { code?: string }).code !== 'AlreadyExists') throw e;
};

/**
 * `registerNode`: this process runs this machine's agent (`stowage start`); a `stowage
 * server` replica registers no Node, since no agent reports for its machine.
 */
export async function bootstrapLocalVolumes(app: AppContext, cfg: Pick<Config, 'dataDir' | 'nodeName' | 'nodeLabels'>, registerNode = true): Promise<void> {
  if (registerNode) await app.nodeAgent.ensureNode(cfg.nodeName, nodeLabels(cfg.nodeName, cfg.nodeLabels));
  if (!(await app.store.tryGet('Namespace', undefined, localVolumeConfigNamespace))) {
    await app.store.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: localVolumeConfigNamespace } }).catch(ignoreExists);
  }
  if (!(await app.store.tryGet('ConfigMap', localVolumeConfigNamespace, localVolumeConfigName))) {
    const dir = path.join(cfg.dataDir, 'local-disks');
    mkdirSync(dir, { recursive: true });
    await app.store
      .create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: localVolumeConfigName, namespace: localVolumeConfigNamespace },
        data: { [storageClassMapKey]: defaultStorageClassMap(dir) },
      })
      .catch(ignoreExists);
    if (!(await app.store.tryGet('StorageClass', undefined, defaultLocalClass))) {
      await app.store
        .create({
          apiVersion: 'storage.k8s.io/v1',
          kind: 'StorageClass',
          metadata: { name: defaultLocalClass },
          provisioner: noProvisioner,
          reclaimPolicy: 'Delete',
          volumeBindingMode: 'Immediate',
        })
        .catch(ignoreExists);
    }
  }
}
