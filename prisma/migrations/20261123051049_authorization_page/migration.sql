-- AlterTable
ALTER TABLE "Issuer" ADD COLUMN     "authorizationPage" JSONB;

-- AlterTable
ALTER TABLE "AuthorizationRequest" ADD COLUMN     "interactionExpiresAt" TIMESTAMP(3),
ADD COLUMN     "interactionHash" TEXT,
ADD COLUMN     "interactionUsedAt" TIMESTAMP(3);

-- CreateIndex
CREATE UNIQUE INDEX "AuthorizationRequest_interactionHash_key" ON "AuthorizationRequest"("interactionHash");
