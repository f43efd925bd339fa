-- AlterTable
ALTER TABLE "VerifierRegistrationCertificate" ADD COLUMN     "relyingPartyId" TEXT;

-- AlterTable
ALTER TABLE "VerificationSession" ADD COLUMN     "relyingPartyId" TEXT;

-- CreateTable
CREATE TABLE "RelyingParty" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "legalName" TEXT,
    "identifiers" TEXT[],
    "country" TEXT,
    "infoUri" TEXT,
    "privacyPolicyUri" TEXT,
    "registryUri" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RelyingParty_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RelyingParty_tenantId_environment_id_idx" ON "RelyingParty"("tenantId", "environment", "id");

-- CreateIndex
CREATE INDEX "VerifierRegistrationCertificate_tenantId_environment_relyin_idx" ON "VerifierRegistrationCertificate"("tenantId", "environment", "relyingPartyId", "id");
