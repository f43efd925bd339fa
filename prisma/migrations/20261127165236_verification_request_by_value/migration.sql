-- AlterTable
ALTER TABLE "VerificationSession" ADD COLUMN     "requestObject" TEXT;
