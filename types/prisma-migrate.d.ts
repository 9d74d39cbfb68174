// @prisma/migrate's package.json points its "types" at a file it does not ship; this
// declares the small part Stowage uses (see server/store/migrate.ts).
declare module '@prisma/migrate' {
  export class SchemaEngineWasm {
    static setup(input: { adapter: unknown }): Promise<SchemaEngineWasm>;
    applyMigrations(input: unknown): Promise<{ appliedMigrationNames: string[] }>;
    migrateDiff(input: unknown): Promise<{ exitCode: number }>;
    stop(): Promise<void>;
  }
}
