// Server-side printing: the meta.k8s.io Table kubectl asks for, with each kind's columns,
// and the PartialObjectMetadata forms. Rows carry the object as metadata only (default),
// in full, or not at all, as `includeObject` says.
import type { KubeObject, Strategy } from '../resources/types';
import type { Output } from './query';

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
}

export function partialObjectMetadata(o: KubeObject, metaVersion: string): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${metaVersion}`, metadata: o.metadata };
}

function rowObject(o: KubeObject, out: Output): unknown {
  if (out.includeObject === 'None') return undefined;
  if (out.includeObject === 'Object') return o;
  return partialObjectMetadata(o, out.metaVersion);
}

export function toTable(
  s: Strategy,
  items: KubeObject[],
  out: Output,
  listMeta: ListMeta,
  opts: { noHeaders?: boolean; now?: Date } = {},
): Record<string, unknown> {
  const now = opts.now ?? new Date();
  const table: Record<string, unknown> = {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${out.metaVersion}`,
    metadata: listMeta,
  };
  if (!opts.noHeaders) table.columnDefinitions = s.table.columns;
  table.rows = items.map((o) => {
    const row: Record<string, unknown> = { cells: s.table.row(o, now) };
    const obj = rowObject(o, out);
    if (obj !== undefined) row.object = obj;
    return row;
  });
  return table;
}

/** A list in the shape asked for: the kind's List, a Table, or a PartialObjectMetadataList. */
export function shapeList(s: Strategy, items: KubeObject[], out: Output, listMeta: ListMeta): Record<string, unknown> {
  if (out.as === 'table') return toTable(s, items, out, listMeta);
  if (out.as === 'partial') {
    return {
      kind: 'PartialObjectMetadataList',
      apiVersion: `meta.k8s.io/${out.metaVersion}`,
      metadata: listMeta,
      items: items.map((o) => partialObjectMetadata(o, out.metaVersion)),
    };
  }
  // Upstream's typed lists carry kind and apiVersion once, on the list, not on each item.
  return { kind: `${s.kind}List`, apiVersion: s.apiVersion, metadata: listMeta, items: items.map(withoutTypeMeta) };
}

function withoutTypeMeta(o: KubeObject): Omit<KubeObject, 'kind' | 'apiVersion'> {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = o;
  return rest;
}

/** One object in the shape asked for. */
export function shapeObject(s: Strategy, o: KubeObject, out: Output): unknown {
  if (out.as === 'table') return toTable(s, [o], out, { resourceVersion: o.metadata.resourceVersion });
  if (out.as === 'partial') return partialObjectMetadata(o, out.metaVersion);
  return o;
}
