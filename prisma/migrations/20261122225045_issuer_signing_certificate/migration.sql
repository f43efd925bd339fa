-- AlterTable
ALTER TABLE "Issuer" ADD COLUMN     "signingCertificate" JSONB;
