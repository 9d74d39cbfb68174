// The shapes every kind shares, and the per-kind "strategy" the generic store uses
// (as the Kubernetes apiserver registry does). Pure: no I/O. Importable by the browser.
import type { z } from 'zod';
import type { FieldError } from '../domain/errors';

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: unknown[];
  managedFields?: unknown[];
}

/**
 * A value as the store holds it once decoded: Go's JSON decoding treats `null` as absent
 * (metadata.ts stripNulls runs before anything is stored), so the schemas' `.nullish()`
 * fields are only ever missing, never null. Applied deeply to a schema's output type.
 */
export type Stored<T> = T extends readonly (infer E)[]
  ? Stored<E>[]
  : T extends object
    ? { [K in keyof T]: Stored<Exclude<T[K], null>> }
    : T;

/**
 * One kind's object as stored, its type inferred from the kind's zod schema (see
 * resources/<kind>/schema.ts): `apiVersion`, `kind` and `metadata` are always there (the
 * store fills them), every other field is as the schema describes it, without nulls.
 * `kind` stays a string so that a `KubeObject` read from the store is accepted as it is.
 */
export type KindObject<S extends z.ZodType> = Omit<Stored<z.output<S>>, 'apiVersion' | 'kind' | 'metadata'> & {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
};

/**
 * Any object of any kind, in the Kubernetes v1 JSON shape. Its fields beyond the header are
 * `unknown`: code that reads `spec` or `status` works on the kind's own type (ObjectOf<K>
 * in kinds.ts, from the store's typed reads or a kind check), so every field read is checked
 * against the kind's zod schema. A typed kind is accepted wherever a KubeObject is.
 */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: unknown;
  status?: unknown;
  [field: string]: unknown;
}

/** The columns of the `objects` table a kind fills from its JSON (null when absent). */
export interface IndexedColumns {
  phase?: string | null;
  storageClass?: string | null;
  /** Exact byte count as a decimal string (no float rounding, even for huge values). */
  capacityBytes?: string | null;
  /** Bit set: ReadWriteOnce=1 ReadOnlyMany=2 ReadWriteMany=4 ReadWriteOncePod=8. */
  accessModes?: number | null;
  volumeMode?: string | null;
  claimNamespace?: string | null;
  claimName?: string | null;
  claimUid?: string | null;
  nodeName?: string | null;
  volumeName?: string | null;
  provisioning?: boolean | null;
  /** Volumes: the used bytes last measured (annotation stowage.io/used-bytes), decimal string; sorts the Used column. */
  usedBytes?: string | null;
}

/** A column as kubectl prints it (meta.k8s.io/v1 Table columnDefinitions). */
export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'date' | 'number' | 'boolean';
  format?: string;
  description: string;
  /** 0 = shown by default; 1 = only with -o wide. */
  priority: number;
}

/** Checks of an object to be created that need more than its strategy (the node's filesystem). */
export type Admission = (obj: KubeObject) => Promise<FieldError[]>;

/**
 * A field's value for a fieldSelector. Written as a method's type so that, as for the
 * strategy's methods, a kind's strategy stands in for the registry's strategy of any kind.
 */
type FieldGetter<T> = { get(obj: T): string | undefined }['get'];

/**
 * A kind's strategy; `T` is the kind's object type (resources/<kind>/schema.ts), which the
 * registry handles as any `KubeObject`.
 */
export interface Strategy<T extends KubeObject = KubeObject> {
  kind: string;
  /** "" for the core group. */
  group: '' | 'storage.k8s.io' | 'snapshot.storage.k8s.io' | 'snapshot.stowage.io' | 'stowage.io';
  version: 'v1';
  apiVersion: string;
  plural: string;
  singular: string;
  shortNames: string[];
  namespaced: boolean;
  /** Whether the kind has a status subresource (status is kept apart from spec). */
  hasStatus: boolean;
  /** Fields a fieldSelector may name besides metadata.name / metadata.namespace. */
  fieldSelectors: Record<string, FieldGetter<T>>;

  /**
   * Checks the shape (types, unknown fields) of the whole object. Returns field errors;
   * never throws. Called before defaults.
   */
  validateShape(obj: unknown): FieldError[];
  /** The shape as a schema (served as OpenAPI v3 for `kubectl explain`). */
  schema?: z.ZodType;
  /** Fills defaults in place (e.g. PV reclaimPolicy Retain, volumeMode Filesystem). */
  applyDefaults(obj: T): void;
  /** On create: reset what users may not set (e.g. status to its initial value). */
  prepareForCreate(obj: T): void;
  /** On update of the main resource: keep status from the stored object. */
  prepareForUpdate(next: T, prev: T): void;
  /** On update of the status subresource: keep everything but status from the stored object. */
  prepareForStatusUpdate(next: T, prev: T): void;
  /** Upstream-style semantic validation of a complete, defaulted object. */
  validate(obj: T): FieldError[];
  /** Extra rules on update (immutable fields ...), given the validated new object. */
  validateUpdate(next: T, prev: T): FieldError[];
  /** Warnings a create or update of this object answers with (upstream WarningsOnCreate/Update). */
  warnings?(obj: T): string[];
  /**
   * Upstream graceful deletion (CheckGracefulDelete): the grace period in seconds a delete
   * of this object waits for, during which it stays Terminating (0 or absent: deleted at once).
   */
  gracefulDeletionSeconds?(obj: T): number;
  /**
   * Finalizers the kind keeps outside metadata.finalizers (upstream's namespace registry:
   * spec.finalizers). While `of` lists any, a delete only marks the object (deletionTimestamp,
   * then `markDeleting`) and an update never removes it. `prepareForFinalize` is the
   * `finalize` subresource's update: only these finalizers change.
   */
  /** Upstream serves no deletecollection of this kind (namespaces): a collection DELETE is 405. */
  noDeleteCollection?: true;
  kindFinalizers?: {
    of(obj: T): string[];
    markDeleting(obj: T): void;
    prepareForFinalize(next: T, prev: T): void;
  };
  /** Values of the indexed columns, computed from the object. */
  columns(obj: T): IndexedColumns;
  /** The columns `kubectl get` prints for this kind, and one row's cells. */
  table: {
    columns: TableColumn[];
    row(obj: T, now: Date): unknown[];
  };
}
