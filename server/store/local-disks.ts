// What node agents report (table local_disks): one row per discovery entry per node,
// eligible or not (with the reason). A report replaces the node's picture: entries not in
// it are kept with present = false (the manager withdraws or marks their PVs). `changed_at`
// moves only when something the manager acts on changed, so it can poll for changes cheaply.
import type { SqlClient } from './pg';
import { sqlOf, type Queryable } from './sql-handle';
import { camelRow } from './row-case';

export interface DiskRow {
  nodeName: string;
  className: string;
  entryName: string;
  hostPath: string;
  pvName: string;
  /** What the entry is: a directory (Filesystem) or a block device (Block). */
  volumeMode: 'Filesystem' | 'Block';
  capacityBytes: string;
  eligible: boolean;
  reason: string | null;
  deviceId: string | null;
  present: boolean;
  firstSeen: Date;
  lastSeen: Date;
  changedAt: Date;
}

export type DiskReport = Pick<DiskRow, 'className' | 'entryName' | 'hostPath' | 'pvName' | 'volumeMode' | 'capacityBytes' | 'eligible' | 'reason' | 'deviceId'>;

interface Row {
  node_name: string;
  class_name: string;
  entry_name: string;
  host_path: string;
  pv_name: string;
  volume_mode: 'Filesystem' | 'Block';
  capacity_bytes: string;
  eligible: boolean;
  reason: string | null;
  device_id: string | null;
  present: boolean;
  first_seen: Date;
  last_seen: Date;
  changed_at: Date;
}

const COLUMNS =
  'node_name, class_name, entry_name, host_path, pv_name, volume_mode, capacity_bytes::text AS capacity_bytes, eligible, reason, device_id, present, first_seen, last_seen, changed_at';

function toDisk(r: Row): DiskRow {
  return {
    ...camelRow(r),
    capacityBytes: String(r.capacity_bytes),
    firstSeen: new Date(r.first_seen),
    lastSeen: new Date(r.last_seen),
    changedAt: new Date(r.changed_at),
  };
}

export class LocalDiskStore {
  private readonly sql: SqlClient;

  /** `on`: the store (or one of its transactions). */
  constructor(on: Queryable) {
    this.sql = sqlOf(on);
  }

  /**
   * Replaces a node's report in one statement: upserts every entry, marks the node's other
   * entries absent. Returns the PV names whose row changed in a way the manager acts on.
   */
  async replaceForNode(nodeName: string, entries: DiskReport[]): Promise<string[]> {
    const json = JSON.stringify(
      entries.map((e) => ({
        c: e.className,
        e: e.entryName,
        h: e.hostPath,
        p: e.pvName,
        m: e.volumeMode,
        b: e.capacityBytes,
        ok: e.eligible,
        r: e.reason,
        d: e.deviceId,
      })),
    );
    const rows = await this.sql.$queryRawUnsafe<{ pv_name: string }[]>(
      `WITH input AS (
         SELECT * FROM json_to_recordset($2::json) AS x(c text, e text, h text, p text, m text, b text, ok boolean, r text, d text)
       ), upserted AS (
         INSERT INTO local_disks AS t (node_name, class_name, entry_name, host_path, pv_name, volume_mode, capacity_bytes, eligible, reason, device_id, present, last_seen, changed_at)
         SELECT $1, c, e, h, p, m, b::numeric, ok, r, d, true, now(), now() FROM input
         ON CONFLICT (node_name, class_name, entry_name) DO UPDATE SET
           host_path = EXCLUDED.host_path,
           pv_name = EXCLUDED.pv_name,
           volume_mode = EXCLUDED.volume_mode,
           capacity_bytes = EXCLUDED.capacity_bytes,
           eligible = EXCLUDED.eligible,
           reason = EXCLUDED.reason,
           device_id = EXCLUDED.device_id,
           present = true,
           last_seen = now(),
           changed_at = CASE WHEN (t.host_path, t.volume_mode, t.capacity_bytes, t.eligible, coalesce(t.reason, ''), t.present)
                                IS DISTINCT FROM (EXCLUDED.host_path, EXCLUDED.volume_mode, EXCLUDED.capacity_bytes, EXCLUDED.eligible, coalesce(EXCLUDED.reason, ''), true)
                             THEN now() ELSE t.changed_at END
         RETURNING pv_name, (xmax = 0 OR changed_at = now()) AS changed
       ), gone AS (
         UPDATE local_disks SET present = false, changed_at = now()
          WHERE node_name = $1 AND present
            AND (class_name, entry_name) NOT IN (SELECT c, e FROM input)
         RETURNING pv_name
       )
       SELECT pv_name FROM upserted WHERE changed UNION SELECT pv_name FROM gone`,
      nodeName,
      json,
    );
    return rows.map((r) => r.pv_name);
  }

  async byPvName(pvName: string): Promise<DiskRow | undefined> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(`SELECT ${COLUMNS} FROM local_disks WHERE pv_name = $1`, pvName);
    return rows[0] ? toDisk(rows[0]) : undefined;
  }

  async listForNode(nodeName: string): Promise<DiskRow[]> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `SELECT ${COLUMNS} FROM local_disks WHERE node_name = $1 ORDER BY class_name, entry_name`,
      nodeName,
    );
    return rows.map(toDisk);
  }

  async listAll(): Promise<DiskRow[]> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(`SELECT ${COLUMNS} FROM local_disks ORDER BY node_name, class_name, entry_name`);
    return rows.map(toDisk);
  }

  async pvNames(): Promise<string[]> {
    const rows = await this.sql.$queryRawUnsafe<{ pv_name: string }[]>('SELECT pv_name FROM local_disks');
    return rows.map((r) => r.pv_name);
  }

  async pvNamesOfNode(nodeName: string): Promise<string[]> {
    const rows = await this.sql.$queryRawUnsafe<{ pv_name: string }[]>('SELECT pv_name FROM local_disks WHERE node_name = $1', nodeName);
    return rows.map((r) => r.pv_name);
  }

  /** Rows changed at or after `since` (database clock): PV name and change time; and the database's now. */
  async changedSince(since: Date): Promise<{ changes: { pvName: string; at: number }[]; now: Date }> {
    const rows = await this.sql.$queryRawUnsafe<{ pv_name: string | null; changed_at: Date | null; now: Date }[]>(
      `SELECT d.pv_name, d.changed_at, now() AS now FROM (SELECT 1) one
         LEFT JOIN local_disks d ON d.changed_at >= $1`,
      since,
    );
    return {
      changes: rows.filter((r) => r.pv_name !== null).map((r) => ({ pvName: r.pv_name!, at: new Date(r.changed_at!).getTime() })),
      now: new Date(rows[0]?.now ?? Date.now()),
    };
  }
}
