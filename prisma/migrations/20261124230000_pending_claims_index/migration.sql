-- Pending, unbound claims per class in the order the binder wakes them (oldest first).
-- When a volume becomes Available the binder asks for the first few claims it could
-- serve. Without this index Postgres walked, for every such volume, past every claim of
-- the kind already bound (quadratic in a burst of thousands of claims).
CREATE INDEX "objects_pending_claims_idx" ON "objects" ((COALESCE("storage_class", '')), "created_at", "name")
  WHERE "kind" = 'PersistentVolumeClaim' AND "phase" = 'Pending' AND "volume_name" IS NULL AND "deletion_timestamp" IS NULL;

-- Bindings turn Available volumes into Bound ones by the thousand, and every such update
-- leaves the old row version in objects_match_idx under "Available" until a vacuum
-- removes it. The binder's candidate scans then step over those dead entries one by one
-- (a 4,000-claim burst read 1.3 million index entries to find 4,000 volumes). Vacuum the
-- table after a thousand dead rows, not after a fifth of the table.
ALTER TABLE "objects" SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_cost_delay = 0);
