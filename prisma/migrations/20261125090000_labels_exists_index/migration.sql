-- Label selectors that ask only whether a key exists (kubectl get pv -l local.stowage.io/node)
-- are answered by the labels index too: jsonb_ops indexes keys as well as key-value pairs,
-- jsonb_path_ops only the pairs.
-- DropIndex
DROP INDEX "objects_labels_idx";

-- CreateIndex
CREATE INDEX "objects_labels_idx" ON "objects" USING GIN ("labels");
