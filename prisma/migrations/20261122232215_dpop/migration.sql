-- AlterTable
ALTER TABLE "AccessToken" ADD COLUMN     "dpopJkt" TEXT;

-- CreateTable
CREATE TABLE "DpopProofUse" (
    "key" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "DpopProofUse_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "DpopProofUse_expiresAt_idx" ON "DpopProofUse"("expiresAt");
