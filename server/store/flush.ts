// How a store transaction's queued writes reach Postgres: one statement, whatever their
// number, then COMMIT.
//
// The statement inserts one change-log row per queued write, each taking its
// resourceVersion (nextval, no lock) in the same step that inserts it: the insert draws
// the versions row by row, so a version is in the log's primary-key index microseconds
// after it was taken, however many writes the transaction carries. A reader that closes a
// hole in the log with a GAP row (change-feed.ts) therefore waits for that writer instead
// of beating it; in the rare case it wins that microsecond race, the writer's insert fails
// on the log's primary key and the store retries the transaction (transaction-runner.ts). Then
// the statement writes the objects' rows. Commits of different transactions run
// concurrently (the wake-up NOTIFY is sent after the commit, commit-notifier.ts);
// docs/write-path.md has the ordering argument.
//
// Objects go through json (not jsonb), so their key order is kept as the store keeps it.
// Their text is sent with a one-time placeholder for metadata.resourceVersion, which the
// statement replaces with the version it took. The object row gets the version of its
// last write; ADDED rows that already exist fail with AlreadyExists.
//
// The same statement inserts one `history` row per change-log row (the change, its verb
// and its actor), so every committed change has exactly one, and a rolled-back or dry-run
// write none. History is never compacted. Events are recorded like any other kind (their
// involvedObject's uid in a column of its own), so an object's timeline keeps them.
//
// A create takes its version only once no other transaction is deleting the name: the
// statement first locks the rows its creates' names still have (waiting for a deleter to
// commit), and only then draws versions. Without that, a create whose version was drawn
// before a concurrent delete's could wait inside its insert for that delete to commit and
// then succeed: the log would say "added, then deleted" while the row exists.
//
// A name deleted and created again in one transaction (a class replaced in place) is a
// delete of the old row and an insert of the new one: the insert reads the delete's count
// first, so the delete has run when the insert checks the name, and a row this
// transaction deleted is no conflict for it.
import { randomUUID } from 'node:crypto';
import { alreadyExists } from '../domain/errors';
import type { IndexedColumns } from '../resources/types';
import type { SqlClient } from './pg';
import { rowKey } from './kind-scope';
import type { PendingWrite } from './pending-write';
import { SYSTEM_ACTOR } from '../domain/actor';

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
    usedBytes: c.usedBytes ?? null,
  };
}


type Write = PendingWrite;

const columnsOf = (w: Write): Required<IndexedColumns> => fullColumns(w.strategy.columns(w.object));

/** An Event's subject, so an object's timeline finds its events by index. */
function involvedUid(w: Write): string | null {
  if (w.strategy.kind !== 'Event') return null;
  const uid = (w.object as { involvedObject?: { uid?: unknown } }).involvedObject?.uid;
  return typeof uid === 'string' && uid ? uid : null;
}

const nsOf = (w: Write) => (w.strategy.namespaced ? (w.object.metadata.namespace ?? '') : '');

/** The kinds whose history rows carry their class, bytes and phase (the capacity trend's). */
const CAPACITY_KINDS = new Set(['PersistentVolume', 'PersistentVolumeClaim']);

/** A volume's or a claim's class ('' for none), bytes (0 for none) and phase on its history row; nothing for other kinds. */
function capacityOf(w: Write, columns: (w: Write) => Required<IndexedColumns>): { cls: string | null; bytes: string | null; phase: string | null } {
  if (!CAPACITY_KINDS.has(w.strategy.kind)) return { cls: null, bytes: null, phase: null };
  const c = columns(w);
  return { cls: c.storageClass ?? '', bytes: c.capacityBytes ?? '0', phase: c.phase };
}

const ROW_TYPE = `op text, i int, id uuid, kind text, namespace text, name text, labels jsonb,
  deletion_timestamp timestamptz, phase text, storage_class text, capacity_bytes numeric, access_modes int,
  volume_mode text, claim_namespace text, claim_name text, claim_uid text, node_name text, volume_name text,
  provisioning boolean, used_bytes numeric`;

const COLUMNS = `phase, storage_class, capacity_bytes, access_modes, volume_mode, claim_namespace, claim_name, claim_uid, node_name, volume_name, provisioning, used_bytes`;

const keyOf = (w: Write) => rowKey(w.strategy.kind, nsOf(w), w.object.metadata.name ?? '');

/**
 * A create of a name that another object still held when the create was queued, because
 * this transaction deletes that object only afterwards. The statement deletes before it
 * inserts (for a name deleted and then created again), so the database alone would let
 * it through, and the log would say "added, then deleted" while the row stays.
 */
function createOfHeldName(writes: Write[]): Write | undefined {
  const deletes = new Map<string, { i: number; id: string }[]>();
  writes.forEach((w, i) => {
    if (w.type !== 'DELETED') return;
    const k = keyOf(w);
    if (!deletes.has(k)) deletes.set(k, []);
    deletes.get(k)!.push({ i, id: w.id });
  });
  if (deletes.size === 0) return undefined;
  return writes.find((w, i) => w.type === 'ADDED' && (deletes.get(keyOf(w)) ?? []).some((d) => d.i > i && d.id !== w.id));
}

/** Applies a transaction's queued writes (`tx` is that transaction's connection). */
export async function flushWrites(tx: SqlClient, writes: PendingWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const held = createOfHeldName(writes);
  if (held) throw alreadyExists(held.strategy.kind, held.object.metadata.name!, held.strategy.plural, held.strategy.group);
  // A placeholder no client can predict, so no string inside an object can match it.
  const placeholder = `#rv-${randomUUID()}#`;
  // Each write's indexed columns, computed once (a volume's or claim's history row takes them too).
  const cols = new Map<Write, Required<IndexedColumns>>();
  const colsOf = (w: Write) => cols.get(w) ?? cols.set(w, columnsOf(w)).get(w)!;
  const log: unknown[] = [];
  // The objects table sees each object's net change once (a row may be written twice).
  const net = new Map<string, { first: Write; last: Write; i: number }>();
  writes.forEach((w, i) => {
    w.object.metadata.resourceVersion = placeholder;
    log.push({
      i,
      type: w.type,
      kind: w.strategy.kind,
      namespace: nsOf(w),
      name: w.object.metadata.name,
      object: JSON.stringify(w.object),
      action: w.action,
      actor: w.actor ?? SYSTEM_ACTOR,
      uid: w.id,
      involved: involvedUid(w),
      ...capacityOf(w, colsOf),
    });
    const seen = net.get(w.id);
    net.set(w.id, { first: seen?.first ?? w, last: w, i });
  });
  const rows: unknown[] = [];
  const inserts: Write[] = [];
  for (const { first, last, i } of net.values()) {
    let op: 'I' | 'U' | 'D' | undefined;
    if (last.type === 'DELETED') op = first.type === 'ADDED' ? undefined : 'D';
    else op = first.type === 'ADDED' ? 'I' : 'U';
    if (!op) continue;
    if (op === 'I') inserts.push(last);
    const c = colsOf(last);
    rows.push({
      op,
      i,
      id: last.id,
      kind: last.strategy.kind,
      namespace: nsOf(last),
      name: last.object.metadata.name,
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
      used_bytes: c.usedBytes,
    });
  }
  const result = await tx.$queryRawUnsafe<{ rvs: string[]; names: string[]; inserted: string[] | null }[]>(
    `WITH x AS MATERIALIZED (
       SELECT * FROM json_to_recordset($2::json)
         AS y(i int, type text, kind text, namespace text, name text, object text, action text, actor text, uid text, involved text,
               cls text, bytes numeric, phase text)
         ORDER BY i),
     held AS MATERIALIZED (
       SELECT h.id FROM x CROSS JOIN LATERAL (
         SELECT o.id FROM objects o WHERE o.kind = x.kind AND o.namespace = x.namespace AND o.name = x.name FOR UPDATE) h
        WHERE x.type = 'ADDED'),
     log AS (
       INSERT INTO change_log (rv, type, kind, namespace, name, object)
       SELECT s.rv, s.type, s.kind, s.namespace, s.name, replace(s.object, $3, '"resourceVersion":"' || s.rv || '"')::json
         FROM (SELECT nextval('resource_version_seq') AS rv, x.* FROM x WHERE (SELECT count(*) FROM held) >= 0 OFFSET 0) AS s
       RETURNING rv, name, object),
     lo AS MATERIALIZED (SELECT (row_number() OVER (ORDER BY rv) - 1)::int AS i, rv, name, object FROM log),
     w AS (SELECT x.*, lo.rv, lo.object FROM json_to_recordset($1::json) AS x(${ROW_TYPE}) JOIN lo ON lo.i = x.i),
     upd AS (
       UPDATE objects o SET resource_version = w.rv, object = w.object, labels = w.labels, deletion_timestamp = w.deletion_timestamp,
         phase = w.phase, storage_class = w.storage_class, capacity_bytes = w.capacity_bytes, access_modes = w.access_modes,
         volume_mode = w.volume_mode, claim_namespace = w.claim_namespace, claim_name = w.claim_name, claim_uid = w.claim_uid,
         node_name = w.node_name, volume_name = w.volume_name, provisioning = w.provisioning, used_bytes = w.used_bytes
       FROM w WHERE w.op = 'U' AND o.id = w.id RETURNING o.id),
     del AS (DELETE FROM objects o USING w WHERE w.op = 'D' AND o.id = w.id RETURNING o.id),
     ins AS (
       INSERT INTO objects (id, kind, namespace, name, resource_version, object, labels, created_at, deletion_timestamp, ${COLUMNS})
       SELECT id, kind, namespace, name, rv, object, labels, now(), deletion_timestamp, ${COLUMNS} FROM w
        WHERE w.op = 'I' AND (SELECT count(*) FROM del) >= 0
       ON CONFLICT (kind, namespace, name) DO NOTHING RETURNING id),
     hist AS (
       INSERT INTO history (rv, type, action, actor, kind, namespace, name, uid, involved_uid, object, storage_class, capacity_bytes, phase)
       SELECT lo.rv, x.type, x.action, x.actor, x.kind, x.namespace, x.name, x.uid, x.involved, lo.object, x.cls, x.bytes, x.phase
         FROM lo JOIN x ON x.i = lo.i
       RETURNING rv)
     SELECT (SELECT array_agg(rv::text ORDER BY i) FROM lo) AS rvs, (SELECT array_agg(name ORDER BY i) FROM lo) AS names,
            (SELECT array_agg(id::text) FROM ins) AS inserted, (SELECT count(*) FROM upd) AS u, (SELECT count(*) FROM del) AS d,
            (SELECT count(*) FROM hist) AS h`,
    JSON.stringify(rows),
    JSON.stringify(log),
    `"resourceVersion":"${placeholder}"`,
  );
  // Versions are taken in write order (the log insert draws nextval row by row over the
  // ordered writes), so the i-th smallest version is the i-th write's. The names, read back
  // in the same order, prove it on every write.
  const names = result[0]?.names ?? [];
  if (names.length !== writes.length || writes.some((w, i) => w.object.metadata.name !== names[i])) {
    throw new Error('store write: change-log versions came back in an order other than the writes');
  }
  const rvs = result[0]?.rvs ?? [];
  writes.forEach((w, i) => {
    w.object.metadata.resourceVersion = rvs[i];
  });
  const inserted = new Set(result[0]?.inserted ?? []);
  const missing = inserts.find((w) => !inserted.has(w.id));
  if (missing) throw alreadyExists(missing.strategy.kind, missing.object.metadata.name!, missing.strategy.plural, missing.strategy.group);
}
