// The claim form's values and the claim they make. Pure.
import { stringify } from 'yaml';
import { humanBytes } from '@/server/domain/human-size';
import type { KubeObject } from '@/server/resources/types';
import { bytesOfValue, quantityOfValue, valueProblem, type SizeValue } from '../format/size-value';
import { dataSourceOf, type ClaimSource } from '../snapshots/snapshot-view';

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
  /** The size control's amount and unit. */
  size: SizeValue['size'];
  unit: SizeValue['unit'];
  /** Restore from a snapshot or clone a claim (spec.dataSource). */
  dataSource?: ClaimSource;
}

export function bytesOf(d: SizeValue): bigint | undefined {
  return bytesOfValue({ size: d.size, unit: d.unit });
}

/** Why the size is not acceptable (in human units), or undefined. */
export function sizeProblem(d: SizeValue, minBytes?: string): string | undefined {
  const problem = valueProblem({ size: d.size, unit: d.unit }, { min: minBytes ? BigInt(minBytes) : DEFAULT_MIN_BYTES, human: humanBytes });
  if (problem) return problem;
  const b = bytesOf(d);
  if (b !== undefined && b > MAX_BYTES) return `At most ${humanBytes(MAX_BYTES)} here (ask an administrator for more)`;
  return undefined;
}

/** The quantity the claim asks for: 1.5Gi becomes 1536Mi (Kubernetes quantities are exact). */
export function quantityOf(d: SizeValue): string {
  return quantityOfValue({ size: d.size, unit: d.unit });
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
