-- Copies of replicated pool volumes: one row per volume and node that holds (or is to
-- hold, or must drop) a copy. The active copy's node is the volume's intent record's node.
-- CreateTable
CREATE TABLE "volume_replicas" (
    "pv_name" TEXT NOT NULL,
    "node_name" TEXT NOT NULL,
    "pool" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "acked_seq" BIGINT,
    "acked_at" TIMESTAMPTZ(3),
    "transfer" JSONB,
    "error" TEXT,
    "last_bytes" BIGINT,
    "warned" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "volume_replicas_pkey" PRIMARY KEY ("pv_name", "node_name")
);

-- CreateIndex
CREATE INDEX "volume_replicas_node_name_idx" ON "volume_replicas"("node_name");
