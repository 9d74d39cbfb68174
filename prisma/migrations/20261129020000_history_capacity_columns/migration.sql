-- A volume's or a claim's class, bytes and phase on each history row, written with the row,
-- so the capacity trend sums narrow columns instead of parsing every version's JSON. Rows
-- written before this migration keep NULL and are read from their object (no rewrite of
-- the table here: adding nullable columns is instant on any size of history).
-- AlterTable
ALTER TABLE "history" ADD COLUMN "storage_class" TEXT,
ADD COLUMN "capacity_bytes" DECIMAL,
ADD COLUMN "phase" TEXT;
