// storage/v1 (k8s.io/api): StorageClass and CSIStorageCapacity.
import { str, bool, strs, msg, msgs, map, type Schema } from './protobuf-fields';
import { labelSelector, objectMeta } from './protobuf-meta';

export const storageClass: Schema = [
  msg(1, 'metadata', objectMeta),
  str(2, 'provisioner', true),
  map(3, 'parameters'),
  str(4, 'reclaimPolicy', true),
  strs(5, 'mountOptions'),
  bool(6, 'allowVolumeExpansion', true),
  str(7, 'volumeBindingMode', true),
  msgs(8, 'allowedTopologies', [msgs(1, 'matchLabelExpressions', [str(1, 'key', true), strs(2, 'values')])]),
];

/** The room of a pool per node and class. */
export const csiStorageCapacity: Schema = [
  msg(1, 'metadata', objectMeta),
  msg(2, 'nodeTopology', labelSelector),
  str(3, 'storageClassName'),
  { no: 4, name: 'capacity', type: 'quantity' },
  { no: 5, name: 'maximumVolumeSize', type: 'quantity' },
];
