// The claim form's values and the claim they make. Pure.
import { stringify } from 'yaml';
import { bytesToQuantity, formatQuantity } from '@/server/domain/quantity';
import type { KubeObject } from '@/server/resources/types';
import { formatSize } from '../format/size';
import { dataSourceOf, type ClaimSource } from '../snapshots/snapshot-view';

export const SIZE_UNITS = ['Mi', 'Gi', 'Ti'] as const;
export type SizeUnit = (typeof SIZE_UNITS)[number];
const UNIT_BYTES: Record<SizeUnit, bigint> = { Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n };

/** The largest request the form offers (a claim may ask for more through YAML). */
export const MAX_BYTES = 1n << 50n; // 1 Pi
export const DEFAULT_MIN_BYTES = 1n << 20n; // 1 Mi

export interface ClaimDraft {
  namespace: string;
  name: string;
  /** "" asks for no class (bind to an existing volume only). */
  storageClassName: string;
  accessModes: string[];
  volumeMode: 'Filesystem' | 'Block';
  size: number;
  unit: SizeUnit;
  /** Restore from a snapshot or clone a claim (spec.dataSource). */
  dataSource?: ClaimSource;
}

export function bytesOf(d: Pick<ClaimDraft, 'size' | 'unit'>): bigint | undefined {
  if (!Number.isFinite(d.size) || d.size <= 0) return undefined;
  // Whole numbers of the unit, or tenths (1.5Gi); finer is refused.
  const tenths = Math.round(d.size * 10);
  if (Math.abs(tenths - d.size * 10) > 1e-9) return undefined;
  return (BigInt(tenths) * UNIT_BYTES[d.unit]) / 10n;
}

/** Why the size is not acceptable, or undefined. */
export function sizeProblem(d: Pick<ClaimDraft, 'size' | 'unit'>, minBytes?: string): string | undefined {
  const b = bytesOf(d);
  if (b === undefined) return 'Enter a size above zero (at most one decimal)';
  const min = minBytes ? BigInt(minBytes) : DEFAULT_MIN_BYTES;
  if (b < min) return `At least ${formatSize(min)}`;
  if (b > MAX_BYTES) return `At most ${formatSize(MAX_BYTES)} here (ask an administrator for more)`;
  return undefined;
}

/** The quantity the claim asks for: 1.5Gi becomes 1536Mi (Kubernetes quantities are exact). */
export function quantityOf(d: Pick<ClaimDraft, 'size' | 'unit'>): string {
  const b = bytesOf(d);
  return b === undefined ? '' : formatQuantity(bytesToQuantity(b));
}

export function claimOf(d: ClaimDraft): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: d.name, namespace: d.namespace },
    spec: {
      accessModes: d.accessModes,
      volumeMode: d.volumeMode,
      resources: { requests: { storage: quantityOf(d) } },
      storageClassName: d.storageClassName,
      ...(d.dataSource?.name ? { dataSource: dataSourceOf(d.dataSource) } : {}),
    },
  };
}

export function yamlOf(d: ClaimDraft): string {
  return stringify(claimOf(d));
}

/** Keeps only the modes a class offers; picks the first when none is left. */
export function fitModes(modes: string[], offered: readonly string[]): string[] {
  const kept = modes.filter((m) => offered.includes(m));
  return kept.length > 0 ? kept : offered.slice(0, 1);
}
