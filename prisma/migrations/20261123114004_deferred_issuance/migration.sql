-- AlterTable
ALTER TABLE "IssuanceTransaction" ADD COLUMN     "claimsSuppliedAt" TIMESTAMP(3),
ADD COLUMN     "deferred" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "deferredAt" TIMESTAMP(3),
ADD COLUMN     "deferredHolderKeys" JSONB,
ADD COLUMN     "deferredIdHash" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "IssuanceTransaction_deferredIdHash_key" ON "IssuanceTransaction"("deferredIdHash");
