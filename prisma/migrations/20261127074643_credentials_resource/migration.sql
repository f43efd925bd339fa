-- AlterTable
ALTER TABLE "Credential" ADD COLUMN     "holderKeyThumbprint" TEXT,
ADD COLUMN     "suspendedAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "IssuanceTransaction_tenantId_environment_externalSubjectRef_idx" ON "IssuanceTransaction"("tenantId", "environment", "externalSubjectReference");

-- CreateIndex
CREATE INDEX "Credential_tenantId_environment_status_id_idx" ON "Credential"("tenantId", "environment", "status", "id");

-- CreateIndex
CREATE INDEX "Credential_tenantId_environment_issuerId_id_idx" ON "Credential"("tenantId", "environment", "issuerId", "id");

-- CreateIndex
CREATE INDEX "Credential_tenantId_environment_configurationId_id_idx" ON "Credential"("tenantId", "environment", "configurationId", "id");
