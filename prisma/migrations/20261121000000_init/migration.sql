-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "objects" (
    "id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "namespace" TEXT NOT NULL DEFAULT '',
    "name" TEXT NOT NULL,
    "resource_version" BIGINT NOT NULL,
    "object" JSONB NOT NULL,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletion_timestamp" TIMESTAMPTZ(3),
    "phase" TEXT,
    "storage_class" TEXT,
    "capacity_bytes" DECIMAL(65,0),
    "access_modes" INTEGER,
    "volume_mode" TEXT,
    "claim_namespace" TEXT,
    "claim_name" TEXT,
    "claim_uid" TEXT,
    "node_name" TEXT,
    "volume_name" TEXT,
    "provisioning" BOOLEAN,

    CONSTRAINT "objects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "change_log" (
    "rv" BIGINT NOT NULL,
    "type" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "object" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "change_log_pkey" PRIMARY KEY ("rv")
);

-- CreateTable
CREATE TABLE "store_meta" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "compacted_rv" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "store_meta_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "password_hash" TEXT,
    "role" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "namespace_bindings" (
    "user_id" UUID NOT NULL,
    "namespace" TEXT NOT NULL,

    CONSTRAINT "namespace_bindings_pkey" PRIMARY KEY ("user_id","namespace")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'api',
    "name" TEXT NOT NULL DEFAULT '',
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "objects_match_idx" ON "objects"("kind", "phase", "storage_class", "volume_mode", "access_modes", "capacity_bytes");

-- CreateIndex
CREATE INDEX "objects_claim_ref_idx" ON "objects"("kind", "claim_namespace", "claim_name");

-- CreateIndex
CREATE INDEX "objects_volume_name_idx" ON "objects"("kind", "volume_name");

-- CreateIndex
CREATE INDEX "objects_node_idx" ON "objects"("kind", "node_name");

-- CreateIndex
CREATE INDEX "objects_kind_resource_version_idx" ON "objects"("kind", "resource_version");

-- CreateIndex
CREATE UNIQUE INDEX "objects_kind_namespace_name_key" ON "objects"("kind", "namespace", "name");

-- CreateIndex
CREATE INDEX "change_log_kind_rv_idx" ON "change_log"("kind", "rv");

-- CreateIndex
CREATE UNIQUE INDEX "users_name_key" ON "users"("name");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

-- AddForeignKey
ALTER TABLE "namespace_bindings" ADD CONSTRAINT "namespace_bindings_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Not expressible in schema.prisma: the one global resourceVersion sequence, and the
-- single store_meta row.
CREATE SEQUENCE "resource_version_seq";
INSERT INTO "store_meta" ("id", "compacted_rv") VALUES (1, 0);
