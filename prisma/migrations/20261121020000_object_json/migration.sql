-- Keep objects exactly as written: jsonb reorders keys, and clients expect apiVersion,
-- kind, metadata, spec, status in that order).
-- AlterTable
ALTER TABLE "objects" ALTER COLUMN "object" SET DATA TYPE JSON;

-- AlterTable
ALTER TABLE "change_log" ALTER COLUMN "object" SET DATA TYPE JSON;
