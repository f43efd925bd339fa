-- CreateTable
CREATE TABLE "TrustSourceRefresh" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "trustSourceId" TEXT NOT NULL,
    "attemptedAt" TIMESTAMP(3) NOT NULL,
    "trigger" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "reasonCode" TEXT,
    "reasonMessage" TEXT,
    "sequenceNumber" INTEGER,
    "listIssuedAt" TIMESTAMP(3),
    "listNextUpdate" TIMESTAMP(3),
    "services" INTEGER NOT NULL,
    "lastGoodCopyKept" BOOLEAN NOT NULL,
    "failedLists" JSONB,

    CONSTRAINT "TrustSourceRefresh_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "TrustSourceRefresh_tenantId_environment_trustSourceId_id_idx" ON "TrustSourceRefresh"("tenantId", "environment", "trustSourceId", "id");
