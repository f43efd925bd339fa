-- DropIndex
DROP INDEX "IssuanceTransaction_offerHandleHash_key";

-- DropIndex
DROP INDEX "IssuanceTransaction_preAuthorizedCodeHash_key";

-- DropIndex
DROP INDEX "IssuanceTransaction_issuerStateHash_key";

-- DropIndex
DROP INDEX "IssuanceTransaction_deferredIdHash_key";

-- DropIndex
DROP INDEX "IssuanceTransaction_tenantId_environment_externalSubjectRef_idx";

-- DropIndex
DROP INDEX "IssuanceTransaction_tenantId_environment_callbackReference__idx";

-- CreateIndex
CREATE INDEX "IssuanceTransaction_tenantId_environment_externalSubjectRef_idx" ON "IssuanceTransaction"("tenantId", "environment", "externalSubjectReference", "id") WHERE ("externalSubjectReference" IS NOT NULL);

-- CreateIndex
CREATE INDEX "IssuanceTransaction_tenantId_environment_callbackReference__idx" ON "IssuanceTransaction"("tenantId", "environment", "callbackReference", "id") WHERE ("callbackReference" IS NOT NULL);

-- CreateIndex
CREATE UNIQUE INDEX "IssuanceTransaction_offerHandleHash_key" ON "IssuanceTransaction"("offerHandleHash") WHERE ("offerHandleHash" IS NOT NULL);

-- CreateIndex
CREATE UNIQUE INDEX "IssuanceTransaction_preAuthorizedCodeHash_key" ON "IssuanceTransaction"("preAuthorizedCodeHash") WHERE ("preAuthorizedCodeHash" IS NOT NULL);

-- CreateIndex
CREATE UNIQUE INDEX "IssuanceTransaction_issuerStateHash_key" ON "IssuanceTransaction"("issuerStateHash") WHERE ("issuerStateHash" IS NOT NULL);

-- CreateIndex
CREATE UNIQUE INDEX "IssuanceTransaction_deferredIdHash_key" ON "IssuanceTransaction"("deferredIdHash") WHERE ("deferredIdHash" IS NOT NULL);
