-- AlterTable
ALTER TABLE "VerifierCertificate" ADD COLUMN     "pendingCreatedAt" TIMESTAMP(3),
ADD COLUMN     "pendingCsrPem" TEXT,
ADD COLUMN     "pendingPrivateKeyCipher" TEXT;

-- CreateTable
CREATE TABLE "VerifierRegistrationCertificate" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "jwt" TEXT NOT NULL,
    "trustAnchorPem" TEXT NOT NULL,
    "registration" JSONB NOT NULL,
    "issuedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "VerifierRegistrationCertificate_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "VerifierRegistrationCertificate_tenantId_environment_key" ON "VerifierRegistrationCertificate"("tenantId", "environment");
