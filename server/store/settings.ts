// Settings (table settings): one JSON value per key, with who changed it and when.
import { sqlOf, type Queryable } from './sql-handle';

export interface SettingRow {
  value: unknown;
  updatedAt: string;
  updatedBy: string;
}

export async function readSetting(on: Queryable, key: string): Promise<SettingRow | undefined> {
  const rows = await sqlOf(on).$queryRawUnsafe<{ value: unknown; updated_at: Date; updated_by: string }[]>(
    'SELECT value, updated_at, updated_by FROM settings WHERE key = $1',
    key,
  );
  const r = rows[0];
  return r ? { value: r.value, updatedAt: r.updated_at.toISOString(), updatedBy: r.updated_by } : undefined;
}

export async function writeSetting(on: Queryable, key: string, value: unknown, by: string): Promise<void> {
  await sqlOf(on).$executeRawUnsafe(
    `INSERT INTO settings (key, value, updated_at, updated_by) VALUES ($1, $2::jsonb, now(), $3)
     ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now(), updated_by = EXCLUDED.updated_by`,
    key,
    JSON.stringify(value),
    by,
  );
}

export async function deleteSetting(on: Queryable, key: string): Promise<void> {
  await sqlOf(on).$executeRawUnsafe('DELETE FROM settings WHERE key = $1', key);
}
