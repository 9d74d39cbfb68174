-- CreateTable
CREATE TABLE "provisioned_assets" (
    "id" TEXT NOT NULL,
    "plugin" TEXT NOT NULL,
    "pv_name" TEXT NOT NULL,
    "claim_uid" TEXT,
    "node" TEXT NOT NULL DEFAULT '',
    "state" TEXT NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "provisioned_assets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "provisioned_assets_plugin_state_idx" ON "provisioned_assets"("plugin", "state");
