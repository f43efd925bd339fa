-- AlterTable
ALTER TABLE "VerificationSession" DROP COLUMN "expiryEventAt",
DROP COLUMN "result",
DROP COLUMN "walletNonce",
ADD COLUMN     "resultCipher" TEXT,
ADD COLUMN     "rules" JSONB NOT NULL;
