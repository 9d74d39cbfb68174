// Used bytes of a volume, as its plugin (host-path) or node agent measured them, kept on the
// PV in annotations: stowage.io/used-bytes (decimal bytes), stowage.io/used-bytes-time (when
// it was written) and stowage.io/used-bytes-partial ("true" when a bounded walk ran out of
// time, so the number is a lower bound). Writes are rare by construction: at most one per
// volume every `minIntervalMs`, and none when the number did not change. Pure.
import type { PersistentVolume } from '../resources/persistent-volume/schema';
import type { PersistentVolumeClaim } from '../resources/persistent-volume-claim/schema';
import { bytesToQuantity, formatQuantity, quantityFromJSON, quantityToBytes } from './quantity';
import { annUsedBytes, annUsedBytesPartial, annUsedBytesTime } from './well-known/annotations';

export interface Measured {
  bytes: bigint;
  partial: boolean;
}

export interface Usage extends Measured {
  at: string;
}

/** The usage recorded on a volume; undefined when absent or garbled (hostile input is ignored, not trusted). */
export function usageOf(pv: PersistentVolume | undefined): Usage | undefined {
  const a = pv?.metadata?.annotations ?? {};
  const raw = a[annUsedBytes];
  const at = a[annUsedBytesTime];
  if (typeof raw !== 'string' || !/^\d{1,30}$/.test(raw)) return undefined;
  if (typeof at !== 'string' || Number.isNaN(Date.parse(at))) return undefined;
  return { bytes: BigInt(raw), at, partial: a[annUsedBytesPartial] === 'true' };
}

/**
 * The annotations to write for a new measurement, or undefined when nothing should be
 * written: the last write is younger than `minIntervalMs`, or the value is unchanged.
 */
export function usageUpdate(pv: PersistentVolume, measured: Measured, nowMs: number, minIntervalMs: number): Record<string, string> | undefined {
  const prev = usageOf(pv);
  if (prev) {
    const age = nowMs - Date.parse(prev.at);
    if (age >= 0 && age < minIntervalMs) return undefined;
    if (prev.bytes === measured.bytes && prev.partial === measured.partial) return undefined;
  }
  const out: Record<string, string> = {
    [annUsedBytes]: measured.bytes.toString(),
    [annUsedBytesTime]: new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
  if (measured.partial) out[annUsedBytesPartial] = 'true';
  return out;
}

/** The annotations with a new measurement applied (a stale partial mark removed). */
export function withUsage(annotations: Record<string, string> | undefined, update: Record<string, string>): Record<string, string> {
  const next = { ...(annotations ?? {}) };
  delete next[annUsedBytesPartial];
  return { ...next, ...update };
}

export interface CapacityView {
  requested?: string;
  requestedBytes?: string;
  provisioned?: string;
  provisionedBytes?: string;
  used?: string;
  usedBytes?: string;
  usedAt?: string;
  partial: boolean;
  /** Used as a share of what was provisioned (else requested), 0..100, when both are known. */
  percent?: number;
  /** Why used is unknown, when it is. */
  unknownBecause?: string;
}

const bytesOf = (q: unknown): bigint | undefined => {
  const v = quantityFromJSON(q);
  return v ? quantityToBytes(v) : undefined;
};
const show = (b: bigint) => formatQuantity(bytesToQuantity(b));

/** Requested, provisioned and used for a claim and its bound volume (if any). */
export function capacityView(claim: PersistentVolumeClaim, pv: PersistentVolume | undefined): CapacityView {
  const req = bytesOf(claim.spec?.resources?.requests?.storage);
  const prov = bytesOf(claim.status?.capacity?.storage) ?? bytesOf(pv?.spec?.capacity?.storage);
  const bound = claim.status?.phase === 'Bound' && pv !== undefined;
  const usage = bound ? usageOf(pv) : undefined;
  const view: CapacityView = {
    partial: usage?.partial ?? false,
    ...(req !== undefined ? { requested: show(req), requestedBytes: req.toString() } : {}),
    ...(prov !== undefined && bound ? { provisioned: show(prov), provisionedBytes: prov.toString() } : {}),
  };
  if (!usage) {
    view.unknownBecause = !bound
      ? 'the claim is not bound to a volume yet'
      : "nothing reports this volume's usage (host-path and btrfs pool volumes, and local disks of a node agent, do)";
    return view;
  }
  view.used = show(usage.bytes);
  view.usedBytes = usage.bytes.toString();
  view.usedAt = usage.at;
  const of = prov ?? req;
  if (of !== undefined && of > 0n) view.percent = Math.min(100, Number((usage.bytes * 10000n) / of) / 100);
  return view;
}
