-- DropIndex
DROP INDEX "IssuanceTransaction_tenantId_environment_externalSubjectRef_idx";

-- AlterTable
ALTER TABLE "VerificationSession" ADD COLUMN     "reasonCodes" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateIndex
CREATE INDEX "IssuanceTransaction_tenantId_environment_status_id_idx" ON "IssuanceTransaction"("tenantId", "environment", "status", "id");

-- CreateIndex
CREATE INDEX "IssuanceTransaction_tenantId_environment_issuerId_id_idx" ON "IssuanceTransaction"("tenantId", "environment", "issuerId", "id");

-- CreateIndex
CREATE INDEX "IssuanceTransaction_tenantId_environment_configurationIdent_idx" ON "IssuanceTransaction"("tenantId", "environment", "configurationIdentifier", "id");

-- CreateIndex
CREATE INDEX "IssuanceTransaction_tenantId_environment_externalSubjectRef_idx" ON "IssuanceTransaction"("tenantId", "environment", "externalSubjectReference", "id");

-- CreateIndex
CREATE INDEX "IssuanceTransaction_tenantId_environment_callbackReference__idx" ON "IssuanceTransaction"("tenantId", "environment", "callbackReference", "id");

-- CreateIndex
CREATE INDEX "VerificationSession_tenantId_environment_status_id_idx" ON "VerificationSession"("tenantId", "environment", "status", "id");

-- CreateIndex
CREATE INDEX "VerificationSession_tenantId_environment_policyIdentifier_i_idx" ON "VerificationSession"("tenantId", "environment", "policyIdentifier", "id");

-- CreateIndex
CREATE INDEX "VerificationSession_reasonCodes_idx" ON "VerificationSession" USING GIN ("reasonCodes");
