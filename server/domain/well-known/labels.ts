// Label keys Stowage reads or writes: upstream's well-known ones (with upstream's meaning)
// and Stowage's own. One home, imported by the server and the dashboard alike.

/** On a node: its name, as the kubelet sets it; what local volumes' node affinity selects. */
export const labelHostname = 'kubernetes.io/hostname';
/** On a node: its operating system (Go's GOOS). */
export const labelOs = 'kubernetes.io/os';
/** On a node: its CPU architecture (Go's GOARCH). */
export const labelArch = 'kubernetes.io/arch';
/** On a node: its zone. */
export const labelZone = 'topology.kubernetes.io/zone';
/** On a node: its region. */
export const labelRegion = 'topology.kubernetes.io/region';
/** On a node: its instance type. */
export const labelInstanceType = 'node.kubernetes.io/instance-type';

/** Deprecated beta node labels and the GA labels that replaced them. */
export const betaToGALabel: Record<string, string> = {
  'failure-domain.beta.kubernetes.io/zone': labelZone,
  'failure-domain.beta.kubernetes.io/region': labelRegion,
  'beta.kubernetes.io/os': labelOs,
  'beta.kubernetes.io/arch': labelArch,
  'beta.kubernetes.io/instance-type': labelInstanceType,
};

/** On a node: a role, as the key's suffix (node-role.kubernetes.io/<role>). */
export const labelNodeRolePrefix = 'node-role.kubernetes.io/';
/** On a node: a role, as the value (the older form). */
export const labelRole = 'kubernetes.io/role';
/** Prefix of node labels only admins may set (upstream NodeRestriction admission). */
export const labelNodeRestrictionPrefix = 'node-restriction.kubernetes.io/';
/** On a namespace: its own name, set on every namespace. */
export const labelMetadataName = 'kubernetes.io/metadata.name';
/** The name of the application an object belongs to (upstream's recommended labels). */
export const labelAppName = 'app.kubernetes.io/name';
/** The component within the application (upstream's recommended labels). */
export const labelAppComponent = 'app.kubernetes.io/component';

/** On a local volume: the node whose disk it is (so a node's volumes can be listed by selector). */
export const labelLocalNode = 'local.stowage.io/node';
/** On a pool's CSIStorageCapacity: the node the pool is on. */
export const labelPoolNode = 'pool.stowage.io/node';
/** On a VolumeSnapshot Stowage took for a VolumeBackup of a claim: the backup's name. */
export const labelVolumeBackup = 'stowage.io/volume-backup';
/** On an imported VolumeBackup: the backup's id in the target (the uid it had where it was made). */
export const labelBackupId = 'backup.stowage.io/id';
