// Intent records of the provisioner plugins (table provisioned_assets): a record is written BEFORE an asset is made and removed only AFTER it
// is gone, so whatever crashes when, a restart finds every asset that may exist and either
// adopts it (its PV exists) or removes it. States: creating (the asset may partly exist)
// -> created (it exists; `pvUid` is set once its PV is saved) -> deleting (removal started)
// -> no record.
//
// Runs on the store, or on a store transaction where one is passed: adopting an asset is
// then part of the very transaction that saves its PV. Transitions are conditional single-statement updates, so a sweep that
// starts removing an asset and a provisioning attempt still working on it cannot both
// believe they own it.
import type { SqlClient } from './pg';
import { signalsOf, sqlOf, type Queryable } from './sql-handle';
import type { AssetSignals } from './asset-signals';
import { camelRow } from './row-case';

export type AssetState = 'creating' | 'created' | 'deleting';

/** Plugin details (paths, devices), plus the bookkeeping keys below. Never secrets. */
export interface AssetDetails {
  [key: string]: unknown;
  /** The uid of the PV that adopted the asset (set when the PV was saved). */
  pvUid?: string;
  /** namespace/name of the claim the asset was made for. */
  claim?: string;
}

export interface AssetRecord {
  id: string;
  plugin: string;
  pvName: string;
  claimUid: string | null;
  node: string;
  state: AssetState;
  details: AssetDetails;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface BeginInput {
  plugin: string;
  pvName: string;
  claimUid?: string;
  claim?: string;
  node: string;
  details: AssetDetails;
}

export class AssetGoneError extends Error {
  constructor(id: string, wanted: string) {
    super(`the intent record ${id} is gone or being deleted; cannot mark it ${wanted}`);
    this.name = 'AssetGoneError';
  }
}

interface Row {
  id: string;
  plugin: string;
  pv_name: string;
  claim_uid: string | null;
  node: string;
  state: AssetState;
  details: AssetDetails | string | null;
  error: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS = 'id, plugin, pv_name, claim_uid, node, state, details, error, created_at, updated_at';

function toRecord(r: Row): AssetRecord {
  return {
    ...camelRow(r),
    details: (typeof r.details === 'string' ? JSON.parse(r.details) : (r.details ?? {})) as AssetDetails,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

export class AssetStore {
  private readonly sql: SqlClient;
  /** Wakes waiters after each committed change (asset-signals.ts); none on a transaction. */
  readonly signals: AssetSignals | undefined;

  /** `on`: the store. */
  constructor(on: Queryable) {
    this.sql = sqlOf(on);
    this.signals = signalsOf(on);
  }

  private changed<T>(result: T): T {
    this.signals?.changed();
    return result;
  }

  static idOf(plugin: string, pvName: string): string {
    return `${plugin}:${pvName}`;
  }

  private async one(query: string, ...values: unknown[]): Promise<AssetRecord | undefined> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(query, ...values);
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  get(plugin: string, pvName: string): Promise<AssetRecord | undefined> {
    return this.one(`SELECT ${COLUMNS} FROM provisioned_assets WHERE id = $1`, AssetStore.idOf(plugin, pvName));
  }

  /** Every record of a PV name (of any plugin). */
  async byPv(pvName: string): Promise<AssetRecord[]> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(`SELECT ${COLUMNS} FROM provisioned_assets WHERE pv_name = $1 ORDER BY id`, pvName);
    return rows.map(toRecord);
  }

  async list(filter: { plugin?: string; node?: string; states?: AssetState[] } = {}): Promise<AssetRecord[]> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `SELECT ${COLUMNS} FROM provisioned_assets
        WHERE ($1::text IS NULL OR plugin = $1) AND ($2::text IS NULL OR node = $2) AND ($3::text[] IS NULL OR state = ANY($3::text[]))
        ORDER BY id`,
      filter.plugin ?? null,
      filter.node ?? null,
      filter.states ?? null,
    );
    return rows.map(toRecord);
  }

  /**
   * The records of one node that want its agent to act: being created, being deleted and
   * not yet removed, or existing with a limit not yet applied (the details keys of agent-backed
   * plugins: limitBytes, appliedBytes, removed). Filtered in Postgres, so a node with
   * thousands of settled volumes costs one scan, not thousands of rows on the wire.
   */
  async agentWork(plugin: string, node: string, max = 1000): Promise<AssetRecord[]> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `SELECT ${COLUMNS} FROM provisioned_assets
        WHERE plugin = $1 AND node = $2
          AND (state = 'creating'
            OR (state = 'deleting' AND COALESCE(details->>'removed', 'false') <> 'true')
            OR (state = 'created' AND details->>'appliedBytes' IS DISTINCT FROM details->>'limitBytes'))
        ORDER BY created_at, id LIMIT $3`,
      plugin,
      node,
      max,
    );
    return rows.map(toRecord);
  }

  /**
   * What a plugin's records promise per node and pool, summed in Postgres: each record its
   * limit or its applied limit, whichever is larger, nothing once its subvolume is removed
   * (btrfs-pool.ts promisedBytes), and each replica of a replicated volume as much again on
   * its node. Placement and provisioning ask this for every pod and
   * claim; listing every record for it made a burst of N claims cost N times N rows.
   */
  async promisedByPool(plugin: string): Promise<{ node: string; pool: string; bytes: string }[]> {
    return this.sql.$queryRawUnsafe<{ node: string; pool: string; bytes: string }[]>(
      `WITH volumes AS (
         SELECT pv_name, node, details->>'pool' AS pool,
                CASE WHEN details->>'removed' = 'true' THEN 0
                     ELSE GREATEST(COALESCE((details->>'limitBytes')::numeric, 0), COALESCE((details->>'appliedBytes')::numeric, 0)) END AS bytes
           FROM provisioned_assets WHERE plugin = $1 AND details ? 'pool'
       )
       SELECT node, pool, sum(bytes)::text AS bytes FROM (
         SELECT node, pool, bytes FROM volumes
         UNION ALL
         -- A replica (or a fenced copy) holds as much as its volume's limit.
         SELECT r.node_name, v.pool, v.bytes FROM volume_replicas r JOIN volumes v ON v.pv_name = r.pv_name AND r.role IN ('replica', 'fenced')
       ) promised GROUP BY 1, 2 ORDER BY 1, 2`,
      plugin,
    );
  }

  /** Records whose asset exists and waits for its PV (created, not adopted yet): the provisioner's to finish. */
  async awaitingPv(plugin: string, max = 1000): Promise<AssetRecord[]> {
    const rows = await this.sql.$queryRawUnsafe<Row[]>(
      `SELECT ${COLUMNS} FROM provisioned_assets WHERE plugin = $1 AND state = 'created' AND NOT (details ? 'pvUid') ORDER BY updated_at LIMIT $2`,
      plugin,
      max,
    );
    return rows.map(toRecord);
  }

  async count(): Promise<number> {
    const rows = await this.sql.$queryRawUnsafe<{ n: unknown }[]>('SELECT count(*) AS n FROM provisioned_assets');
    return Number(rows[0].n);
  }

  /**
   * Intent first: records that the asset is about to be made (state creating). When a record
   * is already there (an earlier attempt, or a crash), it is returned unchanged instead.
   */
  async begin(input: BeginInput): Promise<{ record: AssetRecord; existed: boolean }> {
    const id = AssetStore.idOf(input.plugin, input.pvName);
    const details: AssetDetails = { ...input.details, ...(input.claim ? { claim: input.claim } : {}) };
    const made = await this.one(
      `INSERT INTO provisioned_assets (id, plugin, pv_name, claim_uid, node, state, details, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'creating', $6::jsonb, now())
       ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS}`,
      id,
      input.plugin,
      input.pvName,
      input.claimUid ?? null,
      input.node,
      JSON.stringify(details),
    );
    if (made) return this.changed({ record: made, existed: false });
    const record = await this.get(input.plugin, input.pvName);
    if (!record) throw new AssetGoneError(id, 'creating');
    return { record, existed: true };
  }

  /** Merges details into a record that is still being created or exists. */
  setDetails(record: AssetRecord, details: AssetDetails): Promise<AssetRecord> {
    return this.transition(record, ['creating', 'created'], undefined, details);
  }

  /** The asset exists now (clears any earlier error). */
  markCreated(record: AssetRecord, details: AssetDetails = {}): Promise<AssetRecord> {
    return this.transition(record, ['creating', 'created'], 'created', details, true);
  }

  /** Removal starts (from any state; a record being deleted stays so). */
  markDeleting(record: AssetRecord): Promise<AssetRecord> {
    return this.transition(record, ['creating', 'created', 'deleting'], 'deleting', {});
  }

  /** The asset of a record being deleted is gone (its remover, e.g. a node agent, says so); the record stays for its owner to forget. */
  async markRemoved(record: Pick<AssetRecord, 'id'>): Promise<boolean> {
    const n = await this.sql.$executeRawUnsafe(
      `UPDATE provisioned_assets SET details = details || '{"removed":true}'::jsonb, error = NULL, updated_at = now() WHERE id = $1 AND state = 'deleting'`,
      record.id,
    );
    return this.changed(n === 1);
  }

  /**
   * The PV that describes the asset was saved: the asset belongs to it. Pass the store
   * transaction that saves the PV to make this part of it. Returns false when the record is gone or
   * being deleted (then the PV must not be kept either).
   */
  async adopt(plugin: string, pvName: string, pvUid: string, tx?: Queryable): Promise<boolean> {
    const n = await (tx ? sqlOf(tx) : this.sql).$executeRawUnsafe(
      `UPDATE provisioned_assets SET state = 'created', details = details || $2::jsonb, error = NULL, updated_at = now()
        WHERE id = $1 AND state IN ('creating', 'created')`,
      AssetStore.idOf(plugin, pvName),
      JSON.stringify({ pvUid }),
    );
    return n === 1;
  }

  /** Notes why the last attempt on the asset failed (shown to admins). */
  async noteError(record: AssetRecord, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    await this.sql.$executeRawUnsafe('UPDATE provisioned_assets SET error = $2, updated_at = now() WHERE id = $1', record.id, message.slice(0, 2000));
  }

  /** The asset is gone: forget it. Idempotent. Pass the store transaction that deletes the PV to forget it with the PV. */
  async remove(record: Pick<AssetRecord, 'id'>, tx?: Queryable): Promise<void> {
    await (tx ? sqlOf(tx) : this.sql).$executeRawUnsafe('DELETE FROM provisioned_assets WHERE id = $1', record.id);
    if (!tx) this.changed(undefined);
  }

  /**
   * The PV of a retained asset is gone: Stowage is no longer responsible for the asset,
   * which stays where it is (reclaim policy Retain). Only an existing asset is released.
   */
  async release(record: AssetRecord): Promise<boolean> {
    return (await this.sql.$executeRawUnsafe(`DELETE FROM provisioned_assets WHERE id = $1 AND state = 'created'`, record.id)) === 1;
  }

  private async transition(record: AssetRecord, from: AssetState[], to: AssetState | undefined, details: AssetDetails, clearError = false): Promise<AssetRecord> {
    const updated = await this.one(
      `UPDATE provisioned_assets SET state = COALESCE($3, state), details = details || $4::jsonb,
          error = CASE WHEN $5::boolean THEN NULL ELSE error END, updated_at = now()
        WHERE id = $1 AND state = ANY($2::text[]) RETURNING ${COLUMNS}`,
      record.id,
      from,
      to ?? null,
      JSON.stringify(details),
      clearError,
    );
    if (!updated) throw new AssetGoneError(record.id, to ?? record.state);
    return this.changed(updated);
  }
}
