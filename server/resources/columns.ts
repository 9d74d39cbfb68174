// Pieces every kind's indexed columns and printed table share.
import type { IndexedColumns, TableColumn } from './types';

/** Every indexed column, empty: a kind fills the ones it has. */
export function noColumns(): Required<IndexedColumns> {
  return {
    phase: null,
    storageClass: null,
    capacityBytes: null,
    accessModes: null,
    volumeMode: null,
    claimNamespace: null,
    claimName: null,
    claimUid: null,
    nodeName: null,
    volumeName: null,
    provisioning: null,
    usedBytes: null,
  };
}

export const nameColumn: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.',
  priority: 0,
};

export const ageColumn: TableColumn = {
  name: 'Age',
  type: 'string',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. Clients may not set this value.',
  priority: 0,
};

export function column(name: string, description: string, priority = 0): TableColumn {
  return { name, type: 'string', description, priority };
}
