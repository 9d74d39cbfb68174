import { describe, expect, test } from 'vitest';
import {
  dropDisabledDataSourceFields,
  enforceDataSourceBackwardsCompatibility,
  normalizeDataSources,
  prepareDataSourcesForCreate,
} from './data-sources';
import type { PersistentVolumeClaim } from './schema';

type Spec = NonNullable<PersistentVolumeClaim['spec']>;
type Ref = { apiGroup?: string; kind: string; name: string; namespace?: string };

const ref = (apiGroup: string, kind: string, name: string, namespace?: string): Ref => ({
  ...(apiGroup ? { apiGroup } : {}),
  kind,
  name,
  ...(namespace ? { namespace } : {}),
});
const volume = ref('', 'PersistentVolumeClaim', 'my-vol');
const xnsVolume = ref('', 'PersistentVolumeClaim', 'my-vol', 'ns1');
const snapshot = ref('snapshot.storage.k8s.io', 'VolumeSnapshot', 'my-snap');
const generic = ref('generic.storage.k8s.io', 'Generic', 'my-foo');
const xnsGeneric = ref('generic.storage.k8s.io', 'Generic', 'my-foo', 'ns1');
const core = ref('', 'Pod', 'my-pod');

// Upstream TestDataSourceFilter, with the gates Stowage has (AnyVolumeDataSource on,
// CrossNamespaceVolumeDataSource off).
describe('DropDisabledFields (TestDataSourceFilter rows, any enabled, xns disabled)', () => {
  test.each<{ name: string; spec: Spec; old?: Spec; want?: Ref; wantRef?: Ref }>([
    { name: 'any enabled with empty ds', spec: {} },
    { name: 'any enabled with volume ds', spec: { dataSource: volume }, want: volume },
    { name: 'any enabled with volume ds ref', spec: { dataSourceRef: volume }, wantRef: volume },
    { name: 'any enabled with both data sources', spec: { dataSource: volume, dataSourceRef: volume }, want: volume, wantRef: volume },
    { name: 'only any enabled with xns volume ds', spec: { dataSourceRef: xnsVolume } },
    { name: 'only any enabled with xns volume ds when xns volume exists in oldSpec', spec: { dataSourceRef: xnsVolume }, old: { dataSourceRef: xnsVolume }, wantRef: xnsVolume },
    { name: 'only any enabled with xns volume ds when volume exists in oldSpec', spec: { dataSourceRef: xnsVolume }, old: { dataSourceRef: volume }, wantRef: xnsVolume },
  ])('$name', ({ spec, old, want, wantRef }) => {
    const s = structuredClone(spec);
    dropDisabledDataSourceFields(s, old);
    expect(s.dataSource).toEqual(want);
    expect(s.dataSourceRef).toEqual(wantRef);
  });
});

// Upstream TestEnforceDataSourceBackwardsCompatibility, and the kinds of TestDataSourceRef.
describe('EnforceDataSourceBackwardsCompatibility', () => {
  test.each<{ name: string; spec: Spec; old?: Spec; want?: Ref }>([
    { name: 'enabled with empty ds', spec: {} },
    { name: 'enabled with invalid spec', spec: { dataSource: ref('invalid.pvc.api.group', 'PersistentVolumeClaim', 'test_clone_invalid') } },
    { name: 'enabled with valid spec', spec: { dataSource: ref('', 'PersistentVolumeClaim', 'test_clone') }, want: ref('', 'PersistentVolumeClaim', 'test_clone') },
    { name: 'snapshot ds is kept', spec: { dataSource: snapshot }, want: snapshot },
    { name: 'generic ds without a ref is dropped', spec: { dataSource: generic } },
    { name: 'core ds of another kind without a ref is dropped', spec: { dataSource: core } },
    { name: 'generic ds with a ref is kept (AnyVolumeDataSource)', spec: { dataSource: generic, dataSourceRef: generic }, want: generic },
    { name: 'generic ds on an update of a claim that had one is kept', spec: { dataSource: generic }, old: { dataSource: generic }, want: generic },
  ])('$name', ({ spec, old, want }) => {
    const s = structuredClone(spec);
    enforceDataSourceBackwardsCompatibility(s, old);
    expect(s.dataSource).toEqual(want);
  });
});

// Upstream TestDataSourceRef (NormalizeDataSources).
describe('NormalizeDataSources (TestDataSourceRef rows)', () => {
  test.each<{ name: string; spec: Spec; want?: Ref; wantRef?: Ref }>([
    { name: 'empty ds', spec: {} },
    { name: 'volume ds', spec: { dataSource: volume }, want: volume, wantRef: volume },
    { name: 'snapshot ds', spec: { dataSource: snapshot }, want: snapshot, wantRef: snapshot },
    { name: 'generic ds', spec: { dataSource: generic }, want: generic, wantRef: generic },
    { name: 'core ds', spec: { dataSource: core }, want: core, wantRef: core },
    { name: 'volume ds ref', spec: { dataSourceRef: volume }, want: volume, wantRef: volume },
    { name: 'generic ds ref', spec: { dataSourceRef: generic }, want: generic, wantRef: generic },
    { name: 'xns generic ds ref', spec: { dataSourceRef: xnsGeneric }, wantRef: xnsGeneric },
  ])('$name', ({ spec, want, wantRef }) => {
    const s = structuredClone(spec);
    normalizeDataSources(s);
    expect(s.dataSource).toEqual(want);
    expect(s.dataSourceRef).toEqual(wantRef);
  });
});

describe('a create: the three steps in upstream order', () => {
  test.each<{ name: string; spec: Spec; want?: Ref; wantRef?: Ref }>([
    { name: 'a generic ds alone is dropped: an empty volume', spec: { dataSource: generic } },
    { name: 'a generic ds ref is kept and mirrored', spec: { dataSourceRef: generic }, want: generic, wantRef: generic },
    { name: 'a xns ds ref is dropped with its gate off', spec: { dataSourceRef: xnsVolume } },
    { name: 'a snapshot ds is mirrored', spec: { dataSource: snapshot }, want: snapshot, wantRef: snapshot },
  ])('$name', ({ spec, want, wantRef }) => {
    const s = structuredClone(spec);
    prepareDataSourcesForCreate(s);
    expect(s.dataSource).toEqual(want);
    expect(s.dataSourceRef).toEqual(wantRef);
  });
});
