// Storage quotas as upstream's ResourceQuota admission and its PVC evaluator define them
// (pkg/quota/v1/evaluator/core/persistent_volume_claims.go, the apiserver's
// resourcequota CheckRequest): what a claim uses, which quota resources a claim can use,
// and whether a create or update of a claim fits a quota, with upstream's message.
// Pure: no I/O.
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import { claimClass } from './matching';
import { compareQuantities, formatQuantity, quantityFromJSON, quantityToBytes, type Quantity } from './quantity';

/** Upstream's storageClassSuffix: `<class>.storageclass.storage.k8s.io/<resource>`. */
export const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';
export const REQUESTS_STORAGE = 'requests.storage';
export const CLAIM_COUNT = 'persistentvolumeclaims';
export const CLAIM_OBJECT_COUNT = 'count/persistentvolumeclaims';

/** Quota resource names in canonical text form, as a quota's status carries them. */
export type ResourceList = Record<string, string>;
export type Usage = Map<string, Quantity>;

const ZERO: Quantity = { num: 0n, scale: 0, format: 'DecimalSI' };
const ONE: Quantity = { num: 1n, scale: 0, format: 'DecimalSI' };

export function byClass(className: string, resource: typeof REQUESTS_STORAGE | typeof CLAIM_COUNT): string {
  return `${className}${STORAGE_CLASS_SUFFIX}${resource}`;
}

/** Upstream pvcEvaluator.MatchingResources: is this quota resource one a claim uses? */
export function isClaimResource(name: string): boolean {
  if (name === CLAIM_COUNT || name === CLAIM_OBJECT_COUNT || name === REQUESTS_STORAGE) return true;
  return name.endsWith(STORAGE_CLASS_SUFFIX + CLAIM_COUNT) || name.endsWith(STORAGE_CLASS_SUFFIX + REQUESTS_STORAGE);
}

/** Storage counted in whole bytes (upstream rounds up, issue 94313); the larger of request and allocation. */
function storageUsage(claim: PersistentVolumeClaim): Quantity | undefined {
  const roundUp = (q: Quantity): Quantity => ({ num: quantityToBytes(q), scale: 0, format: q.format });
  const request = quantityFromJSON(claim.spec?.resources?.requests?.storage);
  if (!request) return undefined;
  const allocated = quantityFromJSON(claim.status?.allocatedResources?.storage);
  return roundUp(allocated && compareQuantities(allocated, request) > 0 ? allocated : request);
}

/** Upstream pvcEvaluator.Usage: what one claim counts against a quota. */
export function claimUsage(claim: PersistentVolumeClaim): Usage {
  const out: Usage = new Map();
  out.set(CLAIM_COUNT, ONE);
  out.set(CLAIM_OBJECT_COUNT, ONE);
  const cls = claimClass(claim);
  if (cls) out.set(byClass(cls, CLAIM_COUNT), ONE);
  const storage = storageUsage(claim);
  if (storage) {
    out.set(REQUESTS_STORAGE, storage);
    if (cls) out.set(byClass(cls, REQUESTS_STORAGE), storage);
  }
  return out;
}

function add(a: Quantity, b: Quantity): Quantity {
  const scale = Math.max(a.scale, b.scale);
  const num = a.num * 10n ** BigInt(scale - a.scale) + b.num * 10n ** BigInt(scale - b.scale);
  return { num, scale, format: a.num === 0n ? b.format : a.format };
}

function subtract(a: Quantity, b: Quantity): Quantity {
  return add(a, { ...b, num: -b.num });
}

function sum(into: Usage, more: Usage): Usage {
  for (const [k, v] of more) into.set(k, add(into.get(k) ?? ZERO, v));
  return into;
}

export function parseList(list: Record<string, unknown> | undefined): Usage {
  const out: Usage = new Map();
  for (const [k, v] of Object.entries(list ?? {})) {
    const q = quantityFromJSON(v);
    if (q) out.set(k, q);
  }
  return out;
}

function show(list: Usage): string {
  return [...list.keys()]
    .sort()
    .map((k) => `${k}=${formatQuantity(list.get(k)!)}`)
    .join(',');
}

export interface QuotaLimits {
  name: string;
  /** spec.hard: every resource name is kept; only the claim resources are enforced. */
  hard: Record<string, unknown>;
  /** A quota with scopes or a scope selector matches no claim (Stowage has no VolumeAttributesClass). */
  scoped?: boolean;
}

/**
 * A quota's status.used for the claims of its namespace: every claim resource its hard
 * names, counted over `claims` (zero when none uses it). Other resource names are left out.
 */
export function quotaUsed(quota: QuotaLimits, claims: PersistentVolumeClaim[]): ResourceList {
  const total: Usage = new Map();
  if (!quota.scoped) for (const c of claims) sum(total, claimUsage(c));
  const out: ResourceList = {};
  for (const name of Object.keys(quota.hard).filter(isClaimResource).sort()) out[name] = formatQuantity(total.get(name) ?? ZERO);
  return out;
}

export type QuotaDecision =
  | { allowed: true; /** The quota's usage were the write to succeed (its claim resources only). */ used: ResourceList; delta: ResourceList }
  | { allowed: false; message: string };

/**
 * Upstream CheckRequest for one quota and one claim write: `used` is the quota's current
 * usage (before the write), `prev` the claim as stored (absent on create). The delta is
 * the new claim's usage minus the old one's, never negative, masked to the quota's
 * resources; only resources that grow are checked, so a namespace already over its quota
 * may still shrink or relabel claims.
 */
export function admitClaim(quota: QuotaLimits, used: Record<string, unknown>, prev: PersistentVolumeClaim | undefined, next: PersistentVolumeClaim): QuotaDecision {
  const current = parseList(used);
  const hard = parseList(Object.fromEntries(Object.entries(quota.hard).filter(([k]) => isClaimResource(k))));
  const keep = (): ResourceList => Object.fromEntries([...hard.keys()].sort().map((k) => [k, formatQuantity(current.get(k) ?? ZERO)]));
  if (quota.scoped) return { allowed: true, used: keep(), delta: {} };
  const after = claimUsage(next);
  const before = prev ? claimUsage(prev) : new Map<string, Quantity>();
  const requested: Usage = new Map();
  for (const [k, v] of after) {
    if (!hard.has(k)) continue;
    const d = subtract(v, before.get(k) ?? ZERO);
    if (d.num > 0n) requested.set(k, d);
  }
  return checkQuota(quota.name, hard, current, requested);
}

/**
 * Upstream CheckRequest's test for one quota: `requested` (what the write adds, already
 * masked to the quota's resources, each > 0) on top of `current`, against `hard`. Refused
 * with upstream's message naming every exceeded resource in sorted order; admitted with the
 * quota's usage were the write to succeed (`hard`'s resources only) and the delta.
 */
export function checkQuota(name: string, hard: Usage, current: Usage, requested: Usage): QuotaDecision {
  const exceeded = [...requested.keys()].filter((k) => hard.has(k) && compareQuantities(add(current.get(k) ?? ZERO, requested.get(k)!), hard.get(k)!) > 0);
  if (exceeded.length > 0) {
    const pick = (list: Usage) => new Map(exceeded.map((k) => [k, list.get(k) ?? ZERO]));
    return {
      allowed: false,
      message: `exceeded quota: ${name}, requested: ${show(pick(requested))}, used: ${show(pick(current))}, limited: ${show(pick(hard))}`,
    };
  }
  const newUsed: ResourceList = Object.fromEntries([...hard.keys()].sort().map((k) => [k, formatQuantity(current.get(k) ?? ZERO)]));
  for (const [k, d] of requested) if (hard.has(k)) newUsed[k] = formatQuantity(add(current.get(k) ?? ZERO, d));
  return { allowed: true, used: newUsed, delta: Object.fromEntries([...requested].filter(([k]) => hard.has(k)).map(([k, v]) => [k, formatQuantity(v)])) };
}

/** The room left under one limit, for the claim form: undefined when the quota does not limit it. */
export function roomLeft(hard: Record<string, unknown>, used: Record<string, unknown>, resource: string): { hard: Quantity; used: Quantity; left: Quantity } | undefined {
  const h = quantityFromJSON(hard[resource]);
  if (!h) return undefined;
  const u = quantityFromJSON(used[resource]) ?? ZERO;
  const left = subtract(h, u);
  return { hard: h, used: u, left: left.num < 0n ? { ...ZERO, format: h.format } : { ...left, format: h.format } };
}

const BINARY_UNITS: [string, bigint][] = [
  ['Ei', 1n << 60n],
  ['Pi', 1n << 50n],
  ['Ti', 1n << 40n],
  ['Gi', 1n << 30n],
  ['Mi', 1n << 20n],
  ['Ki', 1n << 10n],
];

/** `bytes` in `unit`, with at most one decimal, as a person reads it ("12", "1.5"). */
function inUnit(bytes: bigint, unit: bigint): string {
  const tenths = (bytes * 10n) / unit;
  return tenths % 10n === 0n ? `${tenths / 10n}` : `${tenths / 10n}.${tenths % 10n}`;
}

/** "12 of 50 Gi": what is left of a storage limit, both in the unit that fits the limit. */
export function storageRoomText(left: Quantity, hard: Quantity): string {
  const h = quantityToBytes(hard);
  const l = quantityToBytes(left);
  const found = BINARY_UNITS.find(([, size]) => h >= size);
  if (!found) return `${l} of ${h} bytes`;
  const [name, size] = found;
  return `${inUnit(l, size)} of ${inUnit(h, size)} ${name}`;
}
