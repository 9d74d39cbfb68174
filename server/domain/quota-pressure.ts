// Which storage limits of a ResourceQuota are nearly used up, for the home page. Pure.
import { isClaimResource } from './quota';
import { quantityFromJSON, quantityToBytes } from './quantity';

export interface LimitPressure {
  resource: string;
  used: string;
  hard: string;
  /** Used as a share of hard, 0..n (1 when hard is 0). */
  ratio: number;
}

/** The claim resources (storage and claim counts) whose used is at least `threshold` of hard. */
export function limitsNearFull(hard: Record<string, unknown>, used: Record<string, unknown>, threshold = 0.8): LimitPressure[] {
  const out: LimitPressure[] = [];
  const pct = BigInt(Math.round(threshold * 100));
  for (const [resource, h] of Object.entries(hard ?? {})) {
    if (!isClaimResource(resource)) continue;
    const hq = quantityFromJSON(h);
    if (!hq) continue;
    const hb = quantityToBytes(hq);
    const ub = quantityToBytes(quantityFromJSON(used?.[resource]) ?? { num: 0n, scale: 0, format: 'DecimalSI' });
    if (ub * 100n < hb * pct) continue;
    out.push({ resource, used: String(used?.[resource] ?? '0'), hard: String(h), ratio: hb === 0n ? 1 : Number((ub * 1000n) / hb) / 1000 });
  }
  return out.sort((a, b) => b.ratio - a.ratio || a.resource.localeCompare(b.resource));
}
