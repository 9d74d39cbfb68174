// A local-volume class configuration for tests: the defaults of a parsed storageClassMap
// entry for class "local" at /mnt/disks, with what a test changes.
import type { LocalClassConfig } from '../domain/local-volume-config';

export function localClass(o: Partial<LocalClassConfig> = {}): LocalClassConfig {
  return {
    className: 'local',
    hostDir: '/mnt/disks',
    mountDir: '/mnt/disks',
    blockCleanerCommand: ['fs-reset'],
    volumeMode: 'Filesystem',
    fsType: 'ext4',
    namePattern: '*',
    requireMountPoints: false,
    minSizeBytes: '0',
    parallelCleanups: 2,
    ...o,
  };
}
