-- Volume history and audit: one row per committed change, written by the same statement
-- as the change-log row (server/store/flush.ts) and never compacted.
-- CreateTable
CREATE TABLE "history" (
    "rv" BIGINT NOT NULL,
    "type" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "actor" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "uid" TEXT NOT NULL,
    "involved_uid" TEXT,
    "object" JSON NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "history_pkey" PRIMARY KEY ("rv")
);

-- CreateIndex
CREATE INDEX "history_uid_rv_idx" ON "history"("uid", "rv");

-- CreateIndex
CREATE INDEX "history_kind_namespace_name_rv_idx" ON "history"("kind", "namespace", "name", "rv");

-- CreateIndex
CREATE INDEX "history_involved_uid_rv_idx" ON "history"("involved_uid", "rv");

-- CreateIndex
CREATE INDEX "history_actor_rv_idx" ON "history"("actor", "rv");

-- CreateIndex
CREATE INDEX "history_namespace_rv_idx" ON "history"("namespace", "rv");

-- CreateIndex
CREATE INDEX "history_kind_rv_idx" ON "history"("kind", "rv");

-- CreateIndex
CREATE INDEX "history_created_at_idx" ON "history"("created_at");

-- Backfill: the changes the change log still holds become history rows of an unknown
-- actor ("system"), so objects made before this migration have a timeline (every live
-- object has at least its latest row in the log).
INSERT INTO "history" ("rv", "type", "action", "actor", "kind", "namespace", "name", "uid", "involved_uid", "object", "created_at")
SELECT c."rv", c."type",
       CASE c."type" WHEN 'ADDED' THEN 'create' WHEN 'DELETED' THEN 'delete' ELSE 'update' END,
       'system', c."kind", c."namespace", c."name",
       COALESCE(c."object" -> 'metadata' ->> 'uid', ''),
       CASE WHEN c."kind" = 'Event' THEN c."object" -> 'involvedObject' ->> 'uid' END,
       c."object", c."created_at"
  FROM "change_log" c
 WHERE c."type" <> 'GAP'
ON CONFLICT ("rv") DO NOTHING;
