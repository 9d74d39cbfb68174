// What the in-tree provisioners check about a StorageClass on this machine's filesystem
// when the class is written (the pure rules are in its validation): a base path that is,
// or passes through, a symlink is refused with the parameter named. With `stowage start`
// this machine is the node; on a machine where the path does not exist, nothing is refused
// here and the plugin checks again on its node before it makes anything.
import { inTreeParameterProblems } from '../resources/storage-class/in-tree-parameters';
import type { StorageClass } from '../resources/storage-class/schema';
import type { Admission, KubeObject } from '../resources/types';
import { symlinkProblems } from './node-local';
import type { HostOs } from './os';
import { hostPathProvisioner, loopProvisioner } from '../domain/well-known/provisioners';

/** The object as a StorageClass when it is one (admission sees objects of every kind). */
const asStorageClass = (o: KubeObject): StorageClass | undefined => (o.kind === 'StorageClass' ? (o) : undefined);

const isInTree = (p: string) => p === hostPathProvisioner || p === loopProvisioner;

export function storageClassAdmission(os: HostOs): Admission {
  return async (o) => {
    const obj = asStorageClass(o);
    if (!obj || typeof obj.provisioner !== 'string') return [];
    const parameters: Record<string, string> = obj.parameters ?? {};
    const basePath = parameters.basePath;
    if (typeof basePath !== 'string') return [];
    // Only a base path that passes the pure rules is looked at on disk.
    const pure = inTreeParameterProblems(obj.provisioner, parameters);
    if (pure.length > 0 || !isInTree(obj.provisioner)) return [];
    let problems: string[];
    try {
      problems = await symlinkProblems(os, basePath);
    } catch {
      return [];
    }
    return problems.map((message) => ({ field: 'parameters.basePath', reason: 'FieldValueInvalid' as const, message: `Invalid value: ${JSON.stringify(basePath)}: ${message}` }));
  };
}
