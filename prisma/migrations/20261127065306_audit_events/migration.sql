-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "occurredAt" TIMESTAMP(3) NOT NULL,
    "actorType" TEXT NOT NULL,
    "actorId" TEXT,
    "actorName" TEXT,
    "operation" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "outcome" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "requestId" TEXT NOT NULL,
    "clientRequestId" TEXT,
    "sourceAddress" TEXT,
    "summary" JSONB NOT NULL,
    "sequence" INTEGER,
    "previousHash" TEXT,
    "hash" TEXT,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditChainHead" (
    "tenantId" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,

    CONSTRAINT "AuditChainHead_pkey" PRIMARY KEY ("tenantId")
);

-- CreateIndex
CREATE INDEX "AuditEvent_tenantId_environment_id_idx" ON "AuditEvent"("tenantId", "environment", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_occurredAt_idx" ON "AuditEvent"("occurredAt");

-- CreateIndex
CREATE UNIQUE INDEX "AuditEvent_tenantId_sequence_key" ON "AuditEvent"("tenantId", "sequence");
