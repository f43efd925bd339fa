-- AlterTable
ALTER TABLE "VerificationSession" ADD COLUMN     "invocation" TEXT NOT NULL DEFAULT 'openid';
