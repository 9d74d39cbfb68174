// This installation's id (settings key `installation-id`): made once, the first time it is
// asked for, and never changed. A backup's manifest names it, so another installation that
// mounts the same target can tell backups it made from backups it imports.
import { randomUUID } from 'node:crypto';
import { sqlOf, type Queryable } from './sql-handle';

export const INSTALLATION_KEY = 'installation-id';

export async function installationId(on: Queryable): Promise<string> {
  const sql = sqlOf(on);
  // Whoever inserts first wins; everyone then reads the one value.
  await sql.$executeRawUnsafe(
    `INSERT INTO settings (key, value, updated_at, updated_by) VALUES ($1, $2::jsonb, now(), 'system') ON CONFLICT (key) DO NOTHING`,
    INSTALLATION_KEY,
    JSON.stringify(randomUUID()),
  );
  const rows = await sql.$queryRawUnsafe<{ value: unknown }[]>('SELECT value FROM settings WHERE key = $1', INSTALLATION_KEY);
  const v = rows[0]?.value;
  if (typeof v !== 'string' || !v) throw new Error('the installation id in settings is not a string');
  return v;
}
