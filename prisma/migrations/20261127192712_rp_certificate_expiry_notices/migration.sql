-- AlterTable
ALTER TABLE "VerifierCertificate" ADD COLUMN     "expiryNotifiedFor" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "VerifierRegistrationCertificate" ADD COLUMN     "expiryNotifiedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "TrustSource" ADD COLUMN     "expiryNotifiedFor" TIMESTAMP(3);
