-- Concurrent commits (docs/write-path.md): the change log is read up to its settled
-- prefix, holes are closed with GAP rows, and compaction keeps each key's latest row so
-- that lists can be served as of one resourceVersion.

-- Every resourceVersion at or below settled_rv has its final change_log row (a change or a GAP).
ALTER TABLE "store_meta" ADD COLUMN "settled_rv" BIGINT NOT NULL DEFAULT 0;
UPDATE "store_meta" SET "settled_rv" = GREATEST("compacted_rv", COALESCE((SELECT max("rv") FROM "change_log"), 0)) WHERE "id" = 1;

-- A key's history, newest first: state of a key as of a resourceVersion.
CREATE INDEX "change_log_kind_namespace_name_rv_idx" ON "change_log"("kind", "namespace", "name", "rv");

-- Live objects whose last change was compacted away get their row back (at or below the
-- compaction horizon, so no watch ever delivers it).
INSERT INTO "change_log" ("rv", "type", "kind", "namespace", "name", "object", "created_at")
SELECT o."resource_version", 'MODIFIED', o."kind", o."namespace", o."name", o."object", o."created_at"
  FROM "objects" o
ON CONFLICT ("rv") DO NOTHING;
