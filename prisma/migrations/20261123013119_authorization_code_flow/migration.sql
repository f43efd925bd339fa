-- AlterTable
ALTER TABLE "IssuanceTransaction" ADD COLUMN     "issuerStateHash" TEXT;

-- CreateTable
CREATE TABLE "AuthorizationRequest" (
    "id" TEXT NOT NULL,
    "issuerId" TEXT NOT NULL,
    "transactionId" TEXT NOT NULL,
    "requestUriHash" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "codeChallenge" TEXT NOT NULL,
    "state" TEXT,
    "authorizationDetails" JSONB,
    "dpopJkt" TEXT,
    "requestUriExpiresAt" TIMESTAMP(3) NOT NULL,
    "requestUriUsedAt" TIMESTAMP(3),
    "codeHash" TEXT,
    "codeExpiresAt" TIMESTAMP(3),
    "codeUsedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AuthorizationRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "AuthorizationRequest_requestUriHash_key" ON "AuthorizationRequest"("requestUriHash");

-- CreateIndex
CREATE UNIQUE INDEX "AuthorizationRequest_codeHash_key" ON "AuthorizationRequest"("codeHash");

-- CreateIndex
CREATE INDEX "AuthorizationRequest_transactionId_idx" ON "AuthorizationRequest"("transactionId");

-- CreateIndex
CREATE INDEX "AuthorizationRequest_expiresAt_idx" ON "AuthorizationRequest"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "IssuanceTransaction_issuerStateHash_key" ON "IssuanceTransaction"("issuerStateHash");
