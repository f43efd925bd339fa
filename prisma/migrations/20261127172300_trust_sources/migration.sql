-- CreateTable
CREATE TABLE "TrustSource" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT,
    "signerCertificates" TEXT[],
    "refreshIntervalSeconds" INTEGER NOT NULL,
    "lists" JSONB,
    "listsFetchedAt" TIMESTAMP(3),
    "listsNextUpdate" TIMESTAMP(3),
    "lastRefreshAt" TIMESTAMP(3),
    "lastError" JSONB,
    "nextRefreshAt" TIMESTAMP(3) NOT NULL,
    "deletedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TrustSource_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "TrustSource_tenantId_environment_id_idx" ON "TrustSource"("tenantId", "environment", "id");

-- CreateIndex
CREATE INDEX "TrustSource_nextRefreshAt_idx" ON "TrustSource"("nextRefreshAt");
