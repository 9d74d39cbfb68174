// Applies prisma/migrations exactly as `prisma migrate deploy` does (recorded in
// `_prisma_migrations`), using Prisma's schema engine compiled to WebAssembly, so it
// works on machines without the native schema-engine binary.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';

const require = createRequire(import.meta.url);

/** The directory of Stowage's package.json: above server/store/ in the sources, above dist/ when compiled. */
function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`Stowage's package.json not found above ${from}`);
  }
}

export const projectRoot = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));
const migrationsDir = path.join(projectRoot, 'prisma', 'migrations');

/** The schema engine looks for its wasm beside @prisma/internals; the prisma package ships it. */
export function ensureSchemaEngineWasm(): void {
  const internalsDir = path.dirname(require.resolve('@prisma/internals/package.json'));
  const target = path.join(internalsDir, 'build', 'schema_engine_bg.wasm');
  if (existsSync(target)) return;
  const source = path.join(path.dirname(require.resolve('prisma/package.json')), 'build', 'schema_engine_bg.wasm');
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(source, target);
}

type Engine = import('@prisma/migrate').SchemaEngineWasm;

export async function withSchemaEngine<T>(connectionString: string, fn: (engine: Engine) => Promise<T>): Promise<T> {
  ensureSchemaEngineWasm();
  // A CommonJS package whose exports Node's own ESM loader shows only as `default` (tsx
  // and bundlers show them by name too).
  const loaded = (await import('@prisma/migrate')) as typeof import('@prisma/migrate') & { default?: typeof import('@prisma/migrate') };
  const { SchemaEngineWasm } = loaded.default ?? loaded;
  // Our own pool, so its connections close when we are done (an idle pool would keep
  // the process alive and block CREATE DATABASE ... TEMPLATE on this database).
  const pool = new pg.Pool({ connectionString, max: 2 });
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPg(pool));
  try {
    const engine = await SchemaEngineWasm.setup({ adapter });
    try {
      return await fn(engine);
    } finally {
      await engine.stop();
    }
  } finally {
    await pool.end();
  }
}

function migrationsList() {
  const dirs = readdirSync(migrationsDir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const lockPath = path.join(migrationsDir, 'migration_lock.toml');
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: dirs.map((name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok' as const, value: readFileSync(path.join(migrationsDir, name, 'migration.sql'), 'utf8') },
      },
    })),
  };
}

/** The advisory lock every Stowage process takes around migrating (int4 pair: "stow", 1). */
const MIGRATION_LOCK: [number, number] = [0x73746f77, 1];

/**
 * Applies every pending migration; returns the names of those applied now. Several
 * replicas starting at once on one database take turns: the first applies, the others
 * then find nothing to do.
 */
export async function migrate(connectionString: string): Promise<string[]> {
  const lock = new pg.Client({ connectionString });
  lock.on('error', () => {}); // the database went away: the migration's own queries fail and say why
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1::int, $2::int)', MIGRATION_LOCK);
    return await withSchemaEngine(connectionString, async (engine) => {
      const out = await engine.applyMigrations({
        migrationsList: migrationsList(),
        filters: { externalTables: [], externalEnums: [] },
      });
      return out.appliedMigrationNames;
    });
  } finally {
    // Ending the session releases the lock, also when the migration failed.
    await lock.end().catch(() => {});
  }
}
