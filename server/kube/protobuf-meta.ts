// meta/v1 (k8s.io/apimachinery): object and list metadata, Status, DeleteOptions, label
// selectors, and the List around any kind's table.
import { str, bool, int32, int64, strs, time, msg, msgs, map, type Schema } from './protobuf-fields';

const ownerReference: Schema = [str(1, 'kind', true), str(3, 'name', true), str(4, 'uid', true), str(5, 'apiVersion', true), bool(6, 'controller', true), bool(7, 'blockOwnerDeletion', true)];

const managedFieldsEntry: Schema = [
  str(1, 'manager'),
  str(2, 'operation'),
  str(3, 'apiVersion'),
  time(4, 'time'),
  str(6, 'fieldsType'),
  { no: 7, name: 'fieldsV1', type: 'fieldsV1' },
  str(8, 'subresource'),
];

export const objectMeta: Schema = [
  str(1, 'name'),
  str(2, 'generateName'),
  str(3, 'namespace'),
  str(4, 'selfLink'),
  str(5, 'uid'),
  str(6, 'resourceVersion'),
  int64(7, 'generation'),
  time(8, 'creationTimestamp', true),
  time(9, 'deletionTimestamp'),
  int64(10, 'deletionGracePeriodSeconds', true),
  map(11, 'labels'),
  map(12, 'annotations'),
  msgs(13, 'ownerReferences', ownerReference),
  strs(14, 'finalizers'),
  msgs(17, 'managedFields', managedFieldsEntry),
];

export const listMeta: Schema = [str(1, 'selfLink'), str(2, 'resourceVersion'), str(3, 'continue'), int64(4, 'remainingItemCount', true)];

export const labelSelector: Schema = [map(1, 'matchLabels'), msgs(2, 'matchExpressions', [str(1, 'key', true), str(2, 'operator', true), strs(3, 'values')])];

export const status: Schema = [
  msg(1, 'metadata', listMeta),
  str(2, 'status'),
  str(3, 'message'),
  str(4, 'reason'),
  msg(5, 'details', [
    str(1, 'name'),
    str(2, 'group'),
    str(3, 'kind'),
    str(6, 'uid'),
    msgs(4, 'causes', [str(1, 'reason'), str(2, 'message'), str(3, 'field')]),
    int32(5, 'retryAfterSeconds'),
  ]),
  int32(6, 'code'),
];

/** meta/v1 DeleteOptions, which client-go sends as the body of a delete (in the group-version of the resource). */
export const deleteOptions: Schema = [
  int64(1, 'gracePeriodSeconds', true),
  msg(2, 'preconditions', [str(1, 'uid', true), str(2, 'resourceVersion', true)]),
  bool(3, 'orphanDependents', true),
  str(4, 'propagationPolicy', true),
  strs(5, 'dryRun'),
  bool(6, 'ignoreStoreReadErrorWithClusterBreakingPotential', true),
];

/** A List: `items` is always in its JSON, [] when empty. */
export const list = (item: Schema): Schema => [msg(1, 'metadata', listMeta), { ...msgs(2, 'items', item), keep: true }];

