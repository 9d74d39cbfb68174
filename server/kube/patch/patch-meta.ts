// The strategic-merge-patch metadata of the kinds Stowage serves: which lists merge
// (and by which key) instead of being replaced. Taken from the `patchStrategy` and
// `patchMergeKey` struct tags of k8s.io/api core/v1 and storage/v1. Everything not named
// here follows the defaults: maps merge, lists are replaced.

export interface PatchMeta {
  /** `merge` for lists that merge, `replace` for maps replaced whole; `retainKeys` may join either. */
  strategies?: string[];
  /** For lists of maps that merge: the field identifying an element. */
  mergeKey?: string;
  /** Metadata of the fields of a map (or of each element of a list of maps). */
  fields?: Record<string, PatchMeta>;
}

export const NO_META: PatchMeta = {};

const mergeList = (mergeKey?: string, fields?: Record<string, PatchMeta>): PatchMeta => ({
  strategies: ['merge'],
  ...(mergeKey ? { mergeKey } : {}),
  ...(fields ? { fields } : {}),
});

const objectMeta: PatchMeta = {
  fields: {
    finalizers: mergeList(),
    ownerReferences: mergeList('uid'),
  },
};

const conditions = mergeList('type');

const byKind: Record<string, PatchMeta> = {
  PersistentVolume: { fields: { metadata: objectMeta } },
  PersistentVolumeClaim: {
    fields: { metadata: objectMeta, status: { fields: { conditions } } },
  },
  StorageClass: { fields: { metadata: objectMeta } },
  Namespace: { fields: { metadata: objectMeta, status: { fields: { conditions } } } },
  Node: {
    fields: {
      metadata: objectMeta,
      spec: { fields: { podCIDRs: mergeList() } },
      status: { fields: { conditions, addresses: mergeList('type') } },
    },
  },
  Event: { fields: { metadata: objectMeta } },
  Pod: {
    fields: {
      metadata: objectMeta,
      spec: {
        fields: {
          volumes: mergeList('name'),
          containers: mergeList('name', containerFields()),
          initContainers: mergeList('name', containerFields()),
        },
      },
      status: { fields: { conditions } },
    },
  },
};

/** Container lists (k8s.io/api core/v1 Container tags). */
function containerFields(): Record<string, PatchMeta> {
  return {
    volumeMounts: mergeList('mountPath'),
    volumeDevices: mergeList('devicePath'),
    env: mergeList('name'),
    ports: mergeList('containerPort'),
  };
}

/** The patch metadata of a kind; unknown kinds get the defaults everywhere. */
export function patchMetaFor(kind: string): PatchMeta {
  return (Object.hasOwn(byKind, kind) ? byKind[kind] : undefined) ?? NO_META;
}

export function fieldMeta(meta: PatchMeta, key: string): PatchMeta {
  const fields = meta.fields;
  return (fields && Object.hasOwn(fields, key) ? fields[key] : undefined) ?? NO_META;
}
