// A replicated volume's replication annotations read in SQL (a list page, the home page, a
// node's page): the three annotations as columns, each bounded (a PV's replica list is short;
// longer is garbled, and callers read them with readReplication anyway), and back to an
// annotations map.
import { annReplicationActiveNode, annReplicationEpoch, annReplicationReplicas } from '../domain/well-known/annotations';

/** The longest replication annotation read (a PV's replica list is short; longer is garbled). */
const MAX_REPLICATION_TEXT = 8192;

const annotation = (key: string) => `object -> 'metadata' -> 'annotations' ->> '${key}'`;

/** The active node's annotation, for WHERE clauses. */
export const ACTIVE_NODE_SQL = annotation(annReplicationActiveNode);
/** The replica list's annotation (JSON text), for WHERE clauses. */
export const REPLICAS_SQL = annotation(annReplicationReplicas);

/** Select-list columns `active`, `epoch`, `replicas` of an objects row. */
export const REPLICATION_ANNOTATION_COLUMNS = `left(${ACTIVE_NODE_SQL}, 253) AS active,
            left(${annotation(annReplicationEpoch)}, 20) AS epoch,
            left(${REPLICAS_SQL}, ${MAX_REPLICATION_TEXT}) AS replicas`;

export interface ReplicationAnnotationColumns {
  active: string | null;
  epoch: string | null;
  replicas: string | null;
}

/** The columns back as annotations (absent ones left out). */
export function replicationAnnotationsOf(r: ReplicationAnnotationColumns): Record<string, string> {
  return {
    ...(r.active !== null ? { [annReplicationActiveNode]: r.active } : {}),
    ...(r.epoch !== null ? { [annReplicationEpoch]: r.epoch } : {}),
    ...(r.replicas !== null ? { [annReplicationReplicas]: r.replicas } : {}),
  };
}
