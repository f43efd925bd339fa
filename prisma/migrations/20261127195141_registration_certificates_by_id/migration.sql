-- DropIndex
DROP INDEX "VerifierRegistrationCertificate_tenantId_environment_key";

-- AlterTable
ALTER TABLE "VerifierRegistrationCertificate" ADD COLUMN     "defaultKey" TEXT DEFAULT 'default';

-- CreateIndex
CREATE INDEX "VerifierRegistrationCertificate_tenantId_environment_id_idx" ON "VerifierRegistrationCertificate"("tenantId", "environment", "id");

-- CreateIndex
CREATE UNIQUE INDEX "VerifierRegistrationCertificate_tenantId_environment_defaul_key" ON "VerifierRegistrationCertificate"("tenantId", "environment", "defaultKey");
