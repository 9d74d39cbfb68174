// A claims list's REPLICAS column follows its volumes: the replication annotations of each
// loaded claim's bound volume, by `namespace/name`, as its pages brought them, updated when
// the live stream brings a change of that volume. Pure.
import { annReplicationActiveNode, annReplicationEpoch, annReplicationReplicas } from '@/server/domain/well-known/annotations';
import { isKind } from '@/server/resources/of-kind';
import type { KubeObject } from '@/server/resources/types';
import { keyOf, type Loaded } from './live-patch';

/** Claims: their volumes' replication annotations, by `namespace/name`. */
export type ClaimsReplication = Record<string, Record<string, string>>;

const KEYS = [annReplicationActiveNode, annReplicationEpoch, annReplicationReplicas];

/** A volume's new replication annotations onto the loaded claim it is bound to (the same state when nothing shown changes). */
export function withVolumeReplication<S extends { replication: ClaimsReplication; loaded: Loaded }>(s: S, pv: KubeObject): S {
  if (!isKind(pv, 'PersistentVolume') || !pv.spec?.claimRef) return s;
  const key = `${pv.spec.claimRef.namespace ?? ''}/${pv.spec.claimRef.name ?? ''}`;
  const a = pv.metadata.annotations ?? {};
  const next: Record<string, string> = {};
  for (const k of KEYS) if (typeof a[k] === 'string') next[k] = a[k];
  const cur = s.replication[key];
  if (!next[annReplicationActiveNode] && !cur) return s;
  if (cur && KEYS.every((k) => cur[k] === next[k])) return s;
  // Only a loaded claim bound to this volume follows it; others arrive with their page.
  const shown = s.loaded.rows.some((r) => r && keyOf(r) === key && isKind(r, 'PersistentVolumeClaim') && r.spec?.volumeName === pv.metadata.name);
  if (!shown) return s;
  return { ...s, replication: { ...s.replication, [key]: next } };
}
