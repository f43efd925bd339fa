-- AlterTable
ALTER TABLE "IssuanceTransaction" ADD COLUMN     "offerCipher" TEXT,
ADD COLUMN     "offerHandleHash" TEXT;

-- DropTable
DROP TABLE "RateLimitCounter";

-- CreateIndex
CREATE UNIQUE INDEX "IssuanceTransaction_offerHandleHash_key" ON "IssuanceTransaction"("offerHandleHash");
