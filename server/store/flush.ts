// How a store transaction's queued writes reach Postgres: three round trips, whatever
// their number.
//
// Every write of the store holds one global advisory lock from taking its resourceVersion
// until commit, so that resourceVersion order is commit order. Whatever round trips happen
// under that lock bound the write rate of the whole system: with the per-row flush, a
// binding (four writes) holds it for ~12 client round trips. Here the lock is taken
// together with the resourceVersions in one statement, and all rows of `objects` and
// `change_log` are written by a second one; COMMIT is the third.
//
// Objects go through json (not jsonb), so their key order is kept as the store keeps it.
// One resourceVersion per queued write, in order; the object row gets the version of its
// last write; one change-log row per write; ADDED rows that already exist fail with
// AlreadyExists; one NOTIFY with the last version.
import { alreadyExists } from '../domain/errors';
import type { IndexedColumns } from '../resources/types';
import { CHANGE_CHANNEL } from './change-feed';
import type { StoreTx } from './object-store';

/** The advisory lock every write takes with its resourceVersions (see object-store.ts). */
export const GLOBAL_WRITE_LOCK = 7_110_311;

/** Every indexed column, null where the kind has no value. */
export function fullColumns(c: IndexedColumns): Required<IndexedColumns> {
  return {
    phase: c.phase ?? null,
    storageClass: c.storageClass ?? null,
    capacityBytes: c.capacityBytes ?? null,
    accessModes: c.accessModes ?? null,
    volumeMode: c.volumeMode ?? null,
    claimNamespace: c.claimNamespace ?? null,
    claimName: c.claimName ?? null,
    claimUid: c.claimUid ?? null,
    nodeName: c.nodeName ?? null,
    volumeName: c.volumeName ?? null,
    provisioning: c.provisioning ?? null,
  };
}


type Write = StoreTx['writes'][number];

const columnsOf = (w: Write): Required<IndexedColumns> => fullColumns(w.strategy.columns(w.object));

const nsOf = (w: Write) => (w.strategy.namespaced ? (w.object.metadata.namespace ?? '') : '');

const ROW_TYPE = `op text, id uuid, kind text, namespace text, name text, rv bigint, object json, labels jsonb,
  deletion_timestamp timestamptz, phase text, storage_class text, capacity_bytes numeric, access_modes int,
  volume_mode text, claim_namespace text, claim_name text, claim_uid text, node_name text, volume_name text,
  provisioning boolean`;

const COLUMNS = `phase, storage_class, capacity_bytes, access_modes, volume_mode, claim_namespace, claim_name, claim_uid, node_name, volume_name, provisioning`;

export async function flushWrites(stx: StoreTx): Promise<void> {
  const writes = stx.writes;
  if (stx.dryRun || writes.length === 0) return;
  const tx = stx.tx;
  const rvs = await tx.$queryRawUnsafe<{ rv: bigint }[]>(
    `SELECT nextval('resource_version_seq') AS rv
       FROM (SELECT pg_advisory_xact_lock($1::bigint) OFFSET 0) AS l, generate_series(1, $2::int) AS g ORDER BY g`,
    GLOBAL_WRITE_LOCK,
    writes.length,
  );
  const log: unknown[] = [];
  // The objects table sees each object's net change once (a row may be written twice).
  const net = new Map<string, { first: Write; last: Write; rv: string }>();
  writes.forEach((w, i) => {
    const rv = BigInt(rvs[i].rv).toString();
    w.object.metadata.resourceVersion = rv;
    log.push({ rv, type: w.type, kind: w.strategy.kind, namespace: nsOf(w), name: w.object.metadata.name, object: w.object });
    const seen = net.get(w.id);
    net.set(w.id, { first: seen?.first ?? w, last: w, rv });
  });
  const rows: unknown[] = [];
  const inserts: Write[] = [];
  for (const { first, last, rv } of net.values()) {
    let op: 'I' | 'U' | 'D' | undefined;
    if (last.type === 'DELETED') op = first.type === 'ADDED' ? undefined : 'D';
    else op = first.type === 'ADDED' ? 'I' : 'U';
    if (!op) continue;
    if (op === 'I') inserts.push(last);
    const c = columnsOf(last);
    rows.push({
      op,
      id: last.id,
      kind: last.strategy.kind,
      namespace: nsOf(last),
      name: last.object.metadata.name,
      rv,
      object: last.object,
      labels: last.object.metadata.labels ?? {},
      deletion_timestamp: last.object.metadata.deletionTimestamp ?? null,
      phase: c.phase,
      storage_class: c.storageClass,
      capacity_bytes: c.capacityBytes,
      access_modes: c.accessModes,
      volume_mode: c.volumeMode,
      claim_namespace: c.claimNamespace,
      claim_name: c.claimName,
      claim_uid: c.claimUid,
      node_name: c.nodeName,
      volume_name: c.volumeName,
      provisioning: c.provisioning,
    });
  }
  const result = await tx.$queryRawUnsafe<{ inserted: string[] | null }[]>(
    `WITH w AS (SELECT * FROM json_to_recordset($1::json) AS x(${ROW_TYPE})),
     upd AS (
       UPDATE objects o SET resource_version = w.rv, object = w.object, labels = w.labels, deletion_timestamp = w.deletion_timestamp,
         phase = w.phase, storage_class = w.storage_class, capacity_bytes = w.capacity_bytes, access_modes = w.access_modes,
         volume_mode = w.volume_mode, claim_namespace = w.claim_namespace, claim_name = w.claim_name, claim_uid = w.claim_uid,
         node_name = w.node_name, volume_name = w.volume_name, provisioning = w.provisioning
       FROM w WHERE w.op = 'U' AND o.id = w.id RETURNING o.id),
     ins AS (
       INSERT INTO objects (id, kind, namespace, name, resource_version, object, labels, created_at, deletion_timestamp, ${COLUMNS})
       SELECT id, kind, namespace, name, rv, object, labels, now(), deletion_timestamp, ${COLUMNS} FROM w WHERE w.op = 'I'
       ON CONFLICT (kind, namespace, name) DO NOTHING RETURNING id),
     del AS (DELETE FROM objects o USING w WHERE w.op = 'D' AND o.id = w.id RETURNING o.id),
     log AS (
       INSERT INTO change_log (rv, type, kind, namespace, name, object)
       SELECT rv, type, kind, namespace, name, object
         FROM json_to_recordset($2::json) AS l(rv bigint, type text, kind text, namespace text, name text, object json)
       RETURNING rv)
     SELECT (SELECT array_agg(id::text) FROM ins) AS inserted, (SELECT count(*) FROM upd) AS u, (SELECT count(*) FROM del) AS d,
            (SELECT count(*) FROM log) AS l, (SELECT count(*) FROM (SELECT pg_notify('${CHANGE_CHANNEL}', $3)) n) AS notified`,
    JSON.stringify(rows),
    JSON.stringify(log),
    String(rvs[rvs.length - 1].rv),
  );
  const inserted = new Set(result[0]?.inserted ?? []);
  const missing = inserts.find((w) => !inserted.has(w.id));
  if (missing) throw alreadyExists(missing.strategy.kind, missing.object.metadata.name!, missing.strategy.plural, missing.strategy.group);
}
