-- AlterTable
ALTER TABLE "VerificationSession" ADD COLUMN     "dcApi" JSONB;
