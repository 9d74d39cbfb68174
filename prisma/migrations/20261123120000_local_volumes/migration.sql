-- CreateTable
CREATE TABLE "node_tokens" (
    "id" UUID NOT NULL,
    "node_name" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "node_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "local_disks" (
    "node_name" TEXT NOT NULL,
    "class_name" TEXT NOT NULL,
    "entry_name" TEXT NOT NULL,
    "host_path" TEXT NOT NULL,
    "pv_name" TEXT NOT NULL,
    "volume_mode" TEXT NOT NULL,
    "capacity_bytes" DECIMAL(65,0) NOT NULL DEFAULT 0,
    "eligible" BOOLEAN NOT NULL,
    "reason" TEXT,
    "device_id" TEXT,
    "present" BOOLEAN NOT NULL DEFAULT true,
    "first_seen" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "local_disks_pkey" PRIMARY KEY ("node_name","class_name","entry_name")
);

-- CreateTable
CREATE TABLE "cleanup_jobs" (
    "id" UUID NOT NULL,
    "node_name" TEXT NOT NULL,
    "pv_name" TEXT NOT NULL,
    "pv_uid" TEXT NOT NULL DEFAULT '',
    "host_path" TEXT NOT NULL,
    "class_name" TEXT NOT NULL,
    "volume_mode" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "command" JSONB NOT NULL DEFAULT '[]',
    "fs_type" TEXT NOT NULL DEFAULT '',
    "state" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "progress" JSONB,
    "last_error" TEXT,
    "output_tail" JSONB NOT NULL DEFAULT '[]',
    "agent_instance" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "cancel_requested" BOOLEAN NOT NULL DEFAULT false,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "cleanup_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "node_tokens_token_hash_key" ON "node_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "node_tokens_node_name_idx" ON "node_tokens"("node_name");

-- CreateIndex
CREATE UNIQUE INDEX "local_disks_pv_name_key" ON "local_disks"("pv_name");

-- CreateIndex
CREATE INDEX "local_disks_changed_at_idx" ON "local_disks"("changed_at");

-- CreateIndex
CREATE INDEX "cleanup_jobs_updated_at_idx" ON "cleanup_jobs"("updated_at");

-- CreateIndex
CREATE INDEX "cleanup_jobs_node_name_state_idx" ON "cleanup_jobs"("node_name", "state");

-- CreateIndex
CREATE INDEX "cleanup_jobs_pv_name_idx" ON "cleanup_jobs"("pv_name");

-- One unfinished cleanup per disk: a disk with a queued, running, failed or quarantined
-- job is never offered again, and never gets a second job (Prisma cannot express a
-- partial index, so it lives here only).
CREATE UNIQUE INDEX "cleanup_jobs_one_open_per_disk" ON "cleanup_jobs"("node_name", "host_path") WHERE "state" IN ('queued', 'running', 'failed', 'quarantined');
