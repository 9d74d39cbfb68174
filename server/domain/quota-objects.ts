// Quotas on what a namespace holds besides claims. Upstream's generic object count
// evaluator (pkg/quota/v1/generic/evaluator.go, ObjectCountQuotaResourceNameFor): one object
// of a namespaced resource counts 1 against `count/<resource>.<group>` (`count/<resource>`
// in the core group), and the legacy names `configmaps`, `secrets`, `resourcequotas` count
// their kinds too. And Stowage's own limit on the bytes snapshot copies take
// (SNAPSHOT_STORAGE), counted from each VolumeSnapshot. Pure: no I/O.
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import type { VolumeSnapshot } from '../resources/volume-snapshot/schema';
import { bytesToQuantity, formatQuantity, quantityFromJSON, quantityToBytes, type Quantity } from './quantity';
import { checkQuota, isClaimResource, parseList, type QuotaDecision, type QuotaLimits, type ResourceList, type Usage } from './quota';

/**
 * The bytes a namespace's snapshot copies may take, a quota resource of Stowage's own
 * domain: each VolumeSnapshot counts its restoreSize, or, until it has one, the size of the
 * claim it copies (its capacity, else its request). Backups of volumes, once Stowage makes
 * them, count here too: the one place that says what a created object copies is
 * `copyBytes` in services/quota-admission.ts.
 */
export const SNAPSHOT_STORAGE = 'snapshots.stowage.io/storage';

const ONE: Quantity = { num: 1n, scale: 0, format: 'DecimalSI' };

/** Core resources whose bare plural is also a quota resource counting their objects (upstream's legacy object counts). */
const LEGACY_COUNTS = new Set(['configmaps', 'secrets', 'resourcequotas']);

/** What identifies a kind to a quota: its resource (plural) and API group. */
export interface QuotaKind {
  plural: string;
  group: string;
}

/** Upstream ObjectCountQuotaResourceNameFor: `count/<resource>.<group>`, `count/<resource>` in the core group. */
export function objectCountName(k: QuotaKind): string {
  return k.group ? `count/${k.plural}.${k.group}` : `count/${k.plural}`;
}

/** The quota resources one object of this kind counts 1 against. */
export function objectCountNames(k: QuotaKind): string[] {
  return !k.group && LEGACY_COUNTS.has(k.plural) ? [objectCountName(k), k.plural] : [objectCountName(k)];
}

/** The kind whose objects a count resource counts, from the namespaced kinds given; undefined for any other name. */
export function countedKind<K extends QuotaKind>(name: string, kinds: K[]): K | undefined {
  return kinds.find((k) => objectCountNames(k).includes(name));
}

/** The size a claim's copy takes at most: its capacity, else its request, in bytes. */
function claimSize(claim: PersistentVolumeClaim | undefined): bigint {
  const q = quantityFromJSON(claim?.status?.capacity?.storage) ?? quantityFromJSON(claim?.spec?.resources?.requests?.storage);
  return q ? quantityToBytes(q) : 0n;
}

/**
 * The bytes one snapshot counts against SNAPSHOT_STORAGE: its restoreSize once known, else
 * the size of the claim it copies (`claims` by name, that namespace's); 0 for a snapshot of
 * a pre-provisioned content until it is bound (its content tells its size then).
 */
export function snapshotBytes(snap: VolumeSnapshot, claims: Map<string, PersistentVolumeClaim>): bigint {
  const restore = quantityFromJSON(snap.status?.restoreSize);
  if (restore) return quantityToBytes(restore);
  const source = snap.spec?.source?.persistentVolumeClaimName;
  return source ? claimSize(claims.get(source)) : 0n;
}

/** A sum of bytes as a quota's status shows it. */
export function bytesText(bytes: bigint): string {
  return formatQuantity(bytesToQuantity(bytes));
}

/** Whether a quota resource is one of those counted here (not a claim's, not one Stowage leaves uncounted). */
export function isObjectResource(name: string, kinds: QuotaKind[]): boolean {
  return name === SNAPSHOT_STORAGE || countedKind(name, kinds) !== undefined;
}

/**
 * What creating one object adds: 1 to each of its kind's count names, and for a
 * VolumeSnapshot its bytes (`bytes`) to SNAPSHOT_STORAGE.
 */
export function objectUsage(k: QuotaKind, bytes?: bigint): Usage {
  const out: Usage = new Map(objectCountNames(k).map((n) => [n, ONE]));
  if (bytes !== undefined) out.set(SNAPSHOT_STORAGE, bytesToQuantity(bytes));
  return out;
}

/**
 * Upstream CheckRequest for the create of an object that is not a claim: `used` is what
 * the quota's resources hold now (before the create; counted by the caller), `adds` what
 * the object adds. Claim resources are left to the claim's own check; a quota with scopes
 * counts nothing here (its scopes are about pods and claims).
 */
export function admitObjectCreate(quota: QuotaLimits, used: ResourceList, adds: Usage): QuotaDecision {
  const hard = parseList(Object.fromEntries(Object.entries(quota.hard).filter(([k]) => adds.has(k) && !isClaimResource(k))));
  if (quota.scoped || hard.size === 0) return { allowed: true, used: {}, delta: {} };
  const requested: Usage = new Map([...adds].filter(([k, v]) => hard.has(k) && v.num > 0n));
  return checkQuota(quota.name, hard, parseList(used), requested);
}
