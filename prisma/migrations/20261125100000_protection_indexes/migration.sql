-- The protection controllers' resyncs ask for the volumes and claims that lack their in-use
-- protection finalizer or are being deleted: a handful of rows, which read from the JSON
-- meant parsing every object of the kind once a minute (350 ms with 100,000 volumes).
-- Each partial index holds exactly the rows its query returns. The predicates are the
-- queries' own conditions, literal for literal (server/store/protection-queries.ts), or
-- Postgres would not use them.
-- CreateIndex
CREATE INDEX "objects_pv_unprotected_idx" ON "objects" ("namespace", "name")
  WHERE kind = 'PersistentVolume'
    AND (deletion_timestamp IS NOT NULL OR NOT COALESCE((object->'metadata'->'finalizers')::jsonb @> '["kubernetes.io/pv-protection"]'::jsonb, false));

-- CreateIndex
CREATE INDEX "objects_pvc_unprotected_idx" ON "objects" ("namespace", "name")
  WHERE kind = 'PersistentVolumeClaim'
    AND (deletion_timestamp IS NOT NULL OR NOT COALESCE((object->'metadata'->'finalizers')::jsonb @> '["kubernetes.io/pvc-protection"]'::jsonb, false));
