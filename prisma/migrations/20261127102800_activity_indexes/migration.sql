-- CreateIndex
CREATE INDEX "Credential_tenantId_environment_issuedAt_idx" ON "Credential"("tenantId", "environment", "issuedAt");

-- CreateIndex
CREATE INDEX "Credential_tenantId_environment_revokedAt_idx" ON "Credential"("tenantId", "environment", "revokedAt");

-- CreateIndex
CREATE INDEX "VerificationSession_tenantId_environment_decidedAt_idx" ON "VerificationSession"("tenantId", "environment", "decidedAt");
