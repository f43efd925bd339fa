-- AlterTable
ALTER TABLE "Issuer" ADD COLUMN     "keyAttestation" JSONB;
