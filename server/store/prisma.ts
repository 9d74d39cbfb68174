// Prisma is the schema and migration tool, not a run-time client: at run time the store
// reaches Postgres through its node-postgres pools (pg.ts says why). This is the one
// place a Prisma client could be made, e.g. by a script that wants Prisma's model API on
// a migrated database; the server, the CLI, the controllers and the tests make none.
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';

export type Db = InstanceType<typeof PrismaClient>;

export function createPrisma(connectionString: string, max = 10): Db {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, max }) });
}
