// Prints the SQL that creates the whole schema from nothing (prisma migrate diff
// --from-empty --to-schema), offline. Used to write a new migration by hand:
//   npx tsx scripts/migration-sql.ts > prisma/migrations/<timestamp>_<name>/migration.sql
// and then edit it down to the change.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot, withSchemaEngine } from '../server/store/migrate';

const schemaPath = path.join(projectRoot, 'prisma', 'schema.prisma');
const url = process.env.DATABASE_URL ?? 'postgresql://unused@127.0.0.1:1/unused';
const origWrite = process.stdout.write.bind(process.stdout);
await withSchemaEngine(url, async (engine) => {
  const res = await engine.migrateDiff({
    from: { tag: 'empty' },
    to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: readFileSync(schemaPath, 'utf8') }] },
    script: true,
    exitCode: null,
    filters: { externalTables: [], externalEnums: [] },
  });
  void res;
});
void origWrite;
