// The only place a Prisma client is made. Everything else reaches Postgres through the
// store (server/store/*).
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';

export type Db = InstanceType<typeof PrismaClient>;

export function createPrisma(connectionString: string, max = 10): Db {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, max }) });
}
