// Copies of replicated pool volumes (table volume_replicas): one row per volume and node
// that holds, is to hold, or must drop a copy (roles in prisma/schema.prisma). The
// replication controller is the only writer besides promote(), which moves the active copy
// (the intent record's node, its epoch) and the rows together in one transaction, under the
// condition that the record is still at the epoch decided on: two promotions of one volume
// cannot both win.
import type { SqlClient } from './pg';
import { signalsOf, sqlOf, type Queryable } from './sql-handle';
import { AssetStore } from './provisioned-assets';

export type ReplicaRole = 'replica' | 'fenced' | 'removing';

/** A transfer in flight to a replica: its snapshot, when it was taken (asked for), and its keys. */
export interface ReplicaTransferRecord {
  seq: number;
  startedAt: string;
  id: string;
  key: string;
  parentSeq?: number;
}

export interface ReplicaRow {
  pvName: string;
  node: string;
  pool: string;
  role: ReplicaRole;
  ackedSeq?: number;
  ackedAt?: Date;
  transfer?: ReplicaTransferRecord;
  error?: string;
  /** Bytes the last acknowledged transfer moved. */
  lastBytes?: bigint;
  warned: boolean;
  createdAt: Date;
  updatedAt: Date;
}

interface Row {
  pv_name: string;
  node_name: string;
  pool: string;
  role: ReplicaRole;
  acked_seq: string | number | null;
  acked_at: Date | null;
  transfer: unknown;
  error: string | null;
  last_bytes: string | number | bigint | null;
  warned: boolean;
  created_at: Date;
  updated_at: Date;
}

const toReplica = (r: Row): ReplicaRow => {
  const transfer = typeof r.transfer === 'string' ? (JSON.parse(r.transfer) as ReplicaTransferRecord) : (r.transfer as ReplicaTransferRecord | null);
  return {
    pvName: r.pv_name,
    node: r.node_name,
    pool: r.pool,
    role: r.role,
    ...(r.acked_seq !== null ? { ackedSeq: Number(r.acked_seq) } : {}),
    ...(r.acked_at ? { ackedAt: new Date(r.acked_at) } : {}),
    ...(transfer ? { transfer } : {}),
    ...(r.error ? { error: r.error } : {}),
    ...(r.last_bytes !== null ? { lastBytes: BigInt(r.last_bytes) } : {}),
    warned: r.warned,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
};

/** What a promotion changes: the volume's active copy moves to `to`, from the snapshot `fromPath`, at `epoch + 1`. */
export interface Promotion {
  plugin: string;
  pvName: string;
  /** The active node and epoch decided on (the record must still say so). */
  fromNode: string;
  epoch: number;
  to: string;
  /** The replica's snapshot the new active copy is made from. */
  fromPath: string;
  /** The seq of that snapshot: the old active node keeps it, so it resyncs from there. */
  seq: number;
}

export class VolumeReplicaStore {
  private readonly sql: SqlClient;

  constructor(private readonly on: Queryable) {
    this.sql = sqlOf(on);
  }

  async list(pvName: string): Promise<ReplicaRow[]> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>('SELECT * FROM volume_replicas WHERE pv_name = $1 ORDER BY node_name', pvName);
    return rows.map(toReplica);
  }

  /** Every row (the dashboard's lists and the node view; bounded). */
  async all(limit = 100_000): Promise<ReplicaRow[]> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>('SELECT * FROM volume_replicas ORDER BY pv_name, node_name LIMIT $1', limit);
    return rows.map(toReplica);
  }

  /**
   * The volumes replication looks after: those whose intent record of `plugin` asks for
   * more than one copy, and those with rows (a volume whose record is gone still has its
   * copies to remove). One indexed scan of the replicated few, not a read of every record.
   */
  async volumes(plugin: string): Promise<string[]> {
    const rows = await this.sql.$queryRawUnsafe<{ pv_name: string }[]>(
      `SELECT pv_name FROM provisioned_assets WHERE plugin = $1 AND details ? 'replicas' AND (details->>'replicas') ~ '^[0-9]{1,2}$' AND (details->>'replicas')::int > 1
       UNION SELECT pv_name FROM volume_replicas`,
      plugin,
    );
    return rows.map((r) => r.pv_name);
  }

  /** A new copy to make (a no-op when the node has a row for the volume already). */
  async add(pvName: string, node: string, pool: string, role: ReplicaRole = 'replica', acked?: { seq: number; at: Date }): Promise<void> {
    await this.sql.$executeRawUnsafe(
      `INSERT INTO volume_replicas (pv_name, node_name, pool, role, acked_seq, acked_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      pvName,
      node,
      pool,
      role,
      acked?.seq ?? null,
      acked?.at ?? null,
    );
  }

  async setRole(pvName: string, node: string, role: ReplicaRole): Promise<void> {
    await this.sql.$executeRawUnsafe('UPDATE volume_replicas SET role = $3, transfer = NULL, updated_at = now() WHERE pv_name = $1 AND node_name = $2', pvName, node, role);
  }

  /** A transfer begins (only when none is in flight). */
  async beginTransfer(pvName: string, node: string, t: ReplicaTransferRecord): Promise<boolean> {
    const n = await this.sql.$executeRawUnsafe(
      `UPDATE volume_replicas SET transfer = $3::jsonb, updated_at = now() WHERE pv_name = $1 AND node_name = $2 AND transfer IS NULL AND role = 'replica'`,
      pvName,
      node,
      JSON.stringify(t),
    );
    return n === 1;
  }

  /** The transfer in flight ended: acknowledged (the replica holds `seq`, taken at `at`), or failed with `error` (`full`: the next must be a full one). */
  async endTransfer(pvName: string, node: string, seq: number, outcome: { acked: Date; bytes?: bigint } | { error: string; full?: boolean }): Promise<void> {
    if ('acked' in outcome) {
      await this.sql.$executeRawUnsafe(
        `UPDATE volume_replicas SET transfer = NULL, acked_seq = $3, acked_at = $4, error = NULL, last_bytes = $5, updated_at = now()
          WHERE pv_name = $1 AND node_name = $2 AND (transfer->>'seq')::bigint = $3`,
        pvName,
        node,
        seq,
        outcome.acked,
        outcome.bytes !== undefined ? String(outcome.bytes) : null,
      );
    } else {
      await this.sql.$executeRawUnsafe(
        `UPDATE volume_replicas SET transfer = NULL, error = $4,
            acked_seq = CASE WHEN $5::boolean THEN NULL ELSE acked_seq END,
            acked_at = CASE WHEN $5::boolean THEN NULL ELSE acked_at END, updated_at = now()
          WHERE pv_name = $1 AND node_name = $2 AND (transfer->>'seq')::bigint = $3`,
        pvName,
        node,
        seq,
        outcome.error.slice(0, 2000),
        outcome.full === true,
      );
    }
  }

  async setWarned(pvName: string, node: string, warned: boolean): Promise<void> {
    await this.sql.$executeRawUnsafe('UPDATE volume_replicas SET warned = $3 WHERE pv_name = $1 AND node_name = $2', pvName, node, warned);
  }

  async remove(pvName: string, node: string): Promise<void> {
    await this.sql.$executeRawUnsafe('DELETE FROM volume_replicas WHERE pv_name = $1 AND node_name = $2', pvName, node);
  }

  /**
   * Moves the active copy: in one transaction, only when the intent record still names
   * `fromNode` at `epoch` and the target row is a replica holding `seq`. The record is
   * handed to `to`'s agent (state creating, made from `fromPath`, its limit set again); the
   * old active node's row becomes fenced (it holds the copy of an older epoch) acknowledging
   * `seq`; the target's row goes (it holds the active copy now). The next transfer takes a
   * new seq at once (`seqAt` dropped): the old active node may hold snapshots with every seq
   * up to the last it took, of a timeline that ends here. False when something changed
   * meanwhile (decide again).
   */
  async promote(p: Promotion): Promise<boolean> {
    // One statement: the record's move, the target's row gone, the old node's row fenced.
    const rows = await this.sql.$queryRawUnsafe<{ n: string | number | bigint }[]>(
      `WITH moved AS (
         UPDATE provisioned_assets
            SET node = $2, state = 'creating',
                details = (details - 'appliedBytes' - 'subvolumeId' - 'moveTo' - 'moveSeq' - 'seqAt') || jsonb_build_object('from', $3::text, 'epoch', $5::int + 1),
                error = NULL, updated_at = now()
          WHERE id = $1 AND node = $4 AND state = 'created' AND COALESCE((details->>'epoch')::int, 0) = $5
            AND EXISTS (SELECT 1 FROM volume_replicas WHERE pv_name = $6 AND node_name = $2 AND role = 'replica' AND acked_seq = $7)
          RETURNING details->>'pool' AS pool
       ), gone AS (
         DELETE FROM volume_replicas WHERE pv_name = $6 AND node_name = $2 AND EXISTS (SELECT 1 FROM moved)
       ), fenced AS (
         INSERT INTO volume_replicas (pv_name, node_name, pool, role, acked_seq, acked_at)
           SELECT $6, $4, moved.pool, 'fenced', $7, t.acked_at FROM moved, volume_replicas t WHERE t.pv_name = $6 AND t.node_name = $2
         ON CONFLICT (pv_name, node_name) DO UPDATE SET role = 'fenced', acked_seq = $7, acked_at = EXCLUDED.acked_at, transfer = NULL, error = NULL, updated_at = now()
       )
       SELECT count(*) AS n FROM moved`,
      AssetStore.idOf(p.plugin, p.pvName),
      p.to,
      p.fromPath,
      p.fromNode,
      p.epoch,
      p.pvName,
      p.seq,
    );
    const moved = Number(rows[0]?.n ?? 0) === 1;
    if (moved) signalsOf(this.on)?.changed();
    return moved;
  }
}
