-- CreateIndex
CREATE INDEX "Credential_tenantId_environment_revokedAt_idx" ON "Credential"("tenantId", "environment", "revokedAt") WHERE ("revokedAt" IS NOT NULL);
