// Backups found in a target that a person removed here after they were imported (settings
// key `backup-imports-dismissed/<target>`, a JSON array of backup ids): the target controller
// does not import them again while the target still lists them. Appends are one statement,
// so two controllers adding at once both land.
import { sqlOf, type Queryable } from './sql-handle';

const keyOf = (target: string) => `backup-imports-dismissed/${target}`;
/** As many ids as a target's listing may hold. */
const MAX_IDS = 10_000;

export async function dismissedImports(on: Queryable, target: string): Promise<Set<string>> {
  const rows = await sqlOf(on).$queryRawUnsafe<{ value: unknown }[]>('SELECT value FROM settings WHERE key = $1', keyOf(target));
  const v = rows[0]?.value;
  return new Set(Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
}

export async function dismissImport(on: Queryable, target: string, backupId: string): Promise<void> {
  await sqlOf(on).$executeRawUnsafe(
    `INSERT INTO settings (key, value, updated_at, updated_by) VALUES ($1, jsonb_build_array($2::text), now(), 'system')
     ON CONFLICT (key) DO UPDATE SET
       value = CASE WHEN settings.value @> jsonb_build_array($2::text) THEN settings.value
                    ELSE (CASE WHEN jsonb_array_length(settings.value) >= $3 THEN settings.value - 0 ELSE settings.value END) || jsonb_build_array($2::text) END,
       updated_at = now()`,
    keyOf(target),
    backupId,
    MAX_IDS,
  );
}
