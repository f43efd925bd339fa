-- AlterTable
ALTER TABLE "VerificationSession" ADD COLUMN     "transactionData" JSONB;
