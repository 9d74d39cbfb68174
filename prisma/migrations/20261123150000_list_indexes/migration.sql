-- The dashboard's lists sort by age and capacity and select by labels on the server.
-- CreateIndex
CREATE INDEX "objects_kind_created_idx" ON "objects"("kind", "created_at");

-- CreateIndex
CREATE INDEX "objects_kind_capacity_idx" ON "objects"("kind", "capacity_bytes");

-- CreateIndex
CREATE INDEX "objects_labels_idx" ON "objects" USING GIN ("labels" jsonb_path_ops);
