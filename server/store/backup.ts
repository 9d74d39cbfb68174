// Backups of Stowage's state: one JSON-lines file written from ONE read-only REPEATABLE
// READ transaction (a consistent online snapshot while writes go on), and its restore
// into an empty, migrated database.
//
// Line 1 is a header (format, migrations, the snapshot's resourceVersion, the tables in
// restore order, parents before children); then one `{"t": table, "r": row}` line per
// row; the last line `{"end": true, "rows": n}` proves the file complete. Every table is
// dumped except the migrations record and the change log (the `history` table, who
// changed what, is dumped): a restored store starts with an empty change log, its
// compacted version at the snapshot's head, so a watch from before
// answers 410 Expired and clients relist, as after an etcd restore. Provisioned-asset
// records come back with the objects; the provisioner's sweep reconciles those that were
// mid-creation or mid-deletion.
//
// The API's PKI (its CA and serving certificate with their keys, which kubeconfigs and
// agents trust) is not in the database: the CLI hands it in, and it is written as one
// `{"pki": {file: pem}}` line right after the header, so a restore can check it before it
// touches the database. The file is readable by its owner only.
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import pg from 'pg';
import { ROLES } from '../domain/authorization';
import { StowageError } from '../domain/errors';

export const BACKUP_FORMAT = 'stowage-backup/1';
const SKIPPED = new Set(['_prisma_migrations', 'change_log']);
const PAGE = 1000;
const ROW_LINE = /^\{"t":("(?:[^"\\]|\\.)*"),"r":(.*)\}$/s;

export interface BackupHeader {
  format: string;
  createdAt: string;
  migrations: string[];
  resourceVersion: string;
  tables: string[];
  /** The PKI files the backup holds (none when the CLI had none to give). */
  pki?: string[];
}

export interface BackupSummary {
  resourceVersion: string;
  tables: number;
  rows: number;
  /** The PKI files, by name (ca.crt, ca.key, apiserver.crt, apiserver.key). */
  pki: Record<string, string>;
}

/** The files of `<data dir>/pki` a backup may carry. */
export const PKI_FILES = ['ca.crt', 'ca.key', 'apiserver.crt', 'apiserver.key'] as const;

const ident = (t: string) => `"${t.replace(/"/g, '""')}"`;

/** Tables to dump, parents (referenced by foreign keys) before children. */
async function tablesInOrder(c: pg.ClientBase): Promise<string[]> {
  const tables = (await c.query<{ t: string }>("SELECT tablename AS t FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")).rows
    .map((r) => r.t)
    .filter((t) => !SKIPPED.has(t));
  const deps = (
    await c.query<{ child: string; parent: string }>(
      `SELECT cl.relname AS child, pl.relname AS parent FROM pg_constraint k
       JOIN pg_class cl ON cl.oid = k.conrelid JOIN pg_class pl ON pl.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = cl.relnamespace
       WHERE k.contype = 'f' AND n.nspname = current_schema()`,
    )
  ).rows;
  const out: string[] = [];
  const visit = (t: string, seen: Set<string>) => {
    if (out.includes(t) || seen.has(t)) return;
    seen.add(t);
    for (const d of deps) if (d.child === t && d.parent !== t && tables.includes(d.parent)) visit(d.parent, seen);
    out.push(t);
  };
  for (const t of tables) visit(t, new Set());
  return out;
}

/**
 * Writes one line, waiting for 'drain' when the stream's buffer is full. Both listeners go
 * once either fires: a leftover 'error' listener per wait piled up past Node's limit of 10
 * (MaxListenersExceededWarning on every backup of more than a few hundred KiB).
 */
function write(out: Writable, line: string): Promise<void> {
  if (out.write(`${line}\n`)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const settle = (e?: Error) => {
      out.off('drain', settle);
      out.off('error', settle);
      if (e) reject(e);
      else resolve();
    };
    out.on('drain', settle);
    out.on('error', settle);
  });
}

/** Writes a consistent snapshot of the database at `connectionString` to `out`. */
export async function writeBackup(connectionString: string, out: Writable, pki: Record<string, string> = {}): Promise<BackupSummary> {
  for (const name of Object.keys(pki)) if (!(PKI_FILES as readonly string[]).includes(name)) throw new StowageError('BadRequest', `not a PKI file: ${name}`);
  const c = new pg.Client({ connectionString });
  c.on('error', () => {}); // a lost connection fails the query in flight, which says why
  await c.connect();
  try {
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const tables = await tablesInOrder(c);
    const migrations = (await c.query<{ m: string }>('SELECT migration_name AS m FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY 1')).rows.map((r) => r.m);
    const head = (
      await c.query<{ rv: string }>(
        `SELECT GREATEST((SELECT max(resource_version) FROM objects), (SELECT max(rv) FROM change_log),
                         (SELECT compacted_rv FROM store_meta WHERE id = 1), 0)::text AS rv`,
      )
    ).rows[0].rv;
    const header: BackupHeader = { format: BACKUP_FORMAT, createdAt: new Date().toISOString(), migrations, resourceVersion: head, tables, pki: Object.keys(pki) };
    await write(out, JSON.stringify(header));
    if (Object.keys(pki).length > 0) await write(out, JSON.stringify({ pki }));
    let rows = 0;
    for (const t of tables) {
      // Pages by ctid: stable within the snapshot.
      for (let offset = 0; ; offset += PAGE) {
        const page = await c.query<{ r: string }>(`SELECT row_to_json(x)::text AS r FROM ${ident(t)} x ORDER BY ctid LIMIT ${PAGE} OFFSET ${offset}`);
        for (const { r } of page.rows) await write(out, `{"t":${JSON.stringify(t)},"r":${r}}`);
        rows += page.rows.length;
        if (page.rows.length < PAGE) break;
      }
    }
    await write(out, JSON.stringify({ end: true, rows }));
    await c.query('COMMIT');
    return { resourceVersion: head, tables: tables.length, rows, pki };
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    await c.end();
  }
}

function badFile(message: string): StowageError {
  return new StowageError('BadRequest', `not a usable Stowage backup: ${message}`);
}

/** The PKI line's files, checked: known names, PEM text. */
function pkiOf(line: string): Record<string, string> | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  const pki = (v as { pki?: unknown } | null)?.pki;
  if (pki === undefined) return undefined;
  if (pki === null || typeof pki !== 'object' || Array.isArray(pki)) throw badFile('its PKI line is not a map of files');
  for (const [name, pem] of Object.entries(pki)) {
    if (!(PKI_FILES as readonly string[]).includes(name)) throw badFile(`its PKI holds an unknown file "${name}"`);
    if (typeof pem !== 'string' || !pem.startsWith('-----BEGIN ')) throw badFile(`its PKI file "${name}" is not PEM`);
  }
  return pki as Record<string, string>;
}

/** A restored user's role must be one this Stowage knows: an unknown one would be a role no check expects. */
function checkRestoredRow(table: string, text: string): void {
  if (table !== 'users') return;
  const row = JSON.parse(text) as { name?: unknown; role?: unknown };
  if (!(ROLES as readonly unknown[]).includes(row.role)) {
    throw badFile(`user "${String(row.name)}" has the unknown role "${String(row.role)}" (roles: ${ROLES.join(', ')})`);
  }
}

export interface RestoreOptions {
  /** Sees the backup's PKI files before the database is touched; may throw to refuse. */
  checkPki?: (pki: Record<string, string>) => void;
}

/**
 * Restores a backup into the (migrated) database at `connectionString`, which must hold
 * no objects and no users. All or nothing: one transaction. The PKI files come back in
 * the summary, for the caller to write.
 */
export async function restoreBackup(connectionString: string, input: Readable, opts: RestoreOptions = {}): Promise<BackupSummary> {
  const lines = createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]();
  const first = await lines.next();
  if (first.done) throw badFile('the file is empty');
  let header: BackupHeader;
  try {
    header = JSON.parse(first.value) as BackupHeader;
  } catch {
    throw badFile('the first line is not a header');
  }
  if (header.format !== BACKUP_FORMAT) throw badFile(`format "${String(header.format)}", expected "${BACKUP_FORMAT}"`);
  if (!/^[0-9]+$/.test(String(header.resourceVersion)) || !Array.isArray(header.tables)) throw badFile('the header is incomplete');
  // The PKI line, when there is one, comes right after the header.
  let pending = await lines.next();
  const pki = (!pending.done && pkiOf(pending.value)) || {};
  if (Object.keys(pki).length > 0) pending = await lines.next();
  opts.checkPki?.(pki);

  const c = new pg.Client({ connectionString });
  c.on('error', () => {}); // a lost connection fails the query in flight, which says why
  await c.connect();
  try {
    await c.query('BEGIN');
    const applied = new Set((await c.query<{ m: string }>('SELECT migration_name AS m FROM _prisma_migrations WHERE finished_at IS NOT NULL')).rows.map((r) => r.m));
    const missing = header.migrations.filter((m) => !applied.has(m));
    if (missing.length) throw badFile(`it needs migrations this Stowage does not have: ${missing.join(', ')}`);
    const used = await c.query<{ n: string }>('SELECT ((SELECT count(*) FROM objects) + (SELECT count(*) FROM users))::text AS n');
    if (used.rows[0].n !== '0') {
      throw new StowageError('Conflict', 'the target database already holds objects or users; restore into an empty data dir or database');
    }
    const existing = new Set((await c.query<{ t: string }>('SELECT tablename AS t FROM pg_tables WHERE schemaname = current_schema()')).rows.map((r) => r.t));
    for (const t of header.tables) if (!existing.has(t) || SKIPPED.has(t)) throw badFile(`it holds a table "${t}" this Stowage does not have`);
    // Rows the migrations seeded (store_meta) give way to the backup's.
    for (const t of [...header.tables].reverse()) await c.query(`DELETE FROM ${ident(t)}`);
    let rows = 0;
    let ended = false;
    for (;;) {
      const next = pending;
      if (next.done) break;
      pending = await lines.next();
      if (next.value === '') continue;
      // A row stays the text Postgres wrote: numbers past 2^53 (numeric, bigint) keep every digit.
      const row = ROW_LINE.exec(next.value);
      if (!row) {
        const end = JSON.parse(next.value) as { end?: boolean; rows?: number };
        if (end.end !== true) throw badFile('a line is neither a row nor the end');
        if (end.rows !== rows) throw badFile(`it ends after ${rows} rows but says ${String(end.rows)}`);
        ended = true;
        break;
      }
      const table = JSON.parse(row[1]) as string;
      if (!header.tables.includes(table)) throw badFile(`a row of an unknown table "${table}"`);
      checkRestoredRow(table, row[2]);
      await c.query(`INSERT INTO ${ident(table)} SELECT * FROM json_populate_record(NULL::${ident(table)}, $1::json)`, [row[2]]);
      rows++;
    }
    if (!ended) throw badFile('it is truncated (no end line)');
    // No history: the compacted version is the snapshot's head, so watches from before get 410.
    const head = header.resourceVersion;
    await c.query('INSERT INTO store_meta (id, compacted_rv) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET compacted_rv = $1', [head]);
    await c.query('DELETE FROM change_log');
    if (head !== '0') await c.query("SELECT setval('resource_version_seq', $1::bigint)", [head]);
    await c.query('COMMIT');
    return { resourceVersion: head, tables: header.tables.length, rows, pki };
  } catch (e) {
    await c.query('ROLLBACK').catch(() => {});
    if (e instanceof SyntaxError) throw badFile(`a line is not JSON (${e.message})`);
    throw e;
  } finally {
    await c.end();
  }
}
