-- AlterTable
ALTER TABLE "AuthorizationRequest" ADD COLUMN     "configurationIdentifier" TEXT,
ALTER COLUMN "transactionId" DROP NOT NULL;
