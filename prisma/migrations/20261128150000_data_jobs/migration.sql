-- Data jobs run by the node agents under a lease, keyed by the controllers.
-- Backup target reports: the latest look of each node at each target.
-- CreateTable
CREATE TABLE "data_jobs" (
    "key" TEXT NOT NULL,
    "node_name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "progress" JSONB,
    "result" JSONB,
    "agent_instance" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "cancel_requested" BOOLEAN NOT NULL DEFAULT false,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "data_jobs_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "data_jobs_node_name_state_idx" ON "data_jobs"("node_name", "state");

-- CreateTable
CREATE TABLE "backup_target_reports" (
    "node_name" TEXT NOT NULL,
    "target_name" TEXT NOT NULL,
    "report" JSONB NOT NULL,
    "reported_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "backup_target_reports_pkey" PRIMARY KEY ("node_name", "target_name")
);
