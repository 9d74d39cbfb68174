// A claim's data source on create, in upstream's order (pkg/registry/core/persistentvolumeclaim
// PrepareForCreate): DropDisabledFields, EnforceDataSourceBackwardsCompatibility, then
// NormalizeDataSources (pkg/api/persistentvolumeclaim/util.go).
//
// Stowage behaves as an apiserver with these feature gates (upstream's defaults):
// - AnyVolumeDataSource: on (GA). A data source of any kind may be named through dataSourceRef.
// - CrossNamespaceVolumeDataSource: off (alpha). A dataSourceRef naming a namespace is dropped.
import type { PersistentVolumeClaim } from './schema';

type Spec = NonNullable<PersistentVolumeClaim['spec']>;
type LocalRef = NonNullable<Spec['dataSource']>;

export const claimFeatureGates = {
  AnyVolumeDataSource: true,
  CrossNamespaceVolumeDataSource: false,
} as const;

/**
 * DropDisabledFields: with CrossNamespaceVolumeDataSource off, a dataSourceRef that names a
 * namespace is dropped whole (upstream sets DataSourceRef to nil), unless the stored claim
 * already had a dataSourceRef.
 */
export function dropDisabledDataSourceFields(spec: Spec, old?: Spec): void {
  if (claimFeatureGates.CrossNamespaceVolumeDataSource) return;
  if (!spec.dataSourceRef?.namespace) return;
  if (old?.dataSourceRef) return;
  delete spec.dataSourceRef;
}

/** Upstream dataSourceIsPvcOrSnapshot: the kinds the dataSource field always accepted. */
export function isClaimOrSnapshot(ref: LocalRef | null | undefined): boolean {
  if (!ref) return false;
  const apiGroup = ref.apiGroup ?? '';
  if (ref.kind === 'PersistentVolumeClaim' && apiGroup === '') return true;
  return ref.kind === 'VolumeSnapshot' && apiGroup === 'snapshot.storage.k8s.io';
}

/**
 * EnforceDataSourceBackwardsCompatibility: without a dataSourceRef, a dataSource that is
 * neither a claim nor a VolumeSnapshot is silently dropped, as before KEP 1495 (an empty
 * volume is asked for). Kept when the stored claim already had a data source.
 */
export function enforceDataSourceBackwardsCompatibility(spec: Spec, old?: Spec): void {
  if (old?.dataSource || old?.dataSourceRef) return;
  if (spec.dataSourceRef) return;
  if (!isClaimOrSnapshot(spec.dataSource)) delete spec.dataSource;
}

/** NormalizeDataSources: dataSource and dataSourceRef mirror each other when only one is set. */
export function normalizeDataSources(spec: Spec): void {
  if (!claimFeatureGates.AnyVolumeDataSource) return;
  if (spec.dataSource && !spec.dataSourceRef) {
    const { apiGroup, kind, name } = spec.dataSource;
    spec.dataSourceRef = { ...(apiGroup != null ? { apiGroup } : {}), kind, name };
  } else if (spec.dataSourceRef && !spec.dataSource && !spec.dataSourceRef.namespace) {
    const { apiGroup, kind, name } = spec.dataSourceRef;
    spec.dataSource = { ...(apiGroup != null ? { apiGroup } : {}), kind, name };
  }
}

/** The three steps of a create, in upstream's order. */
export function prepareDataSourcesForCreate(spec: Spec): void {
  dropDisabledDataSourceFields(spec);
  enforceDataSourceBackwardsCompatibility(spec);
  normalizeDataSources(spec);
}
