-- AlterTable
ALTER TABLE "AuthorizationRequest" ADD COLUMN     "browserBindingHash" TEXT,
ADD COLUMN     "interactionDecision" TEXT,
ADD COLUMN     "interactionResultHash" TEXT,
ADD COLUMN     "interactionReturnedAt" TIMESTAMP(3);

-- CreateIndex
CREATE UNIQUE INDEX "AuthorizationRequest_interactionResultHash_key" ON "AuthorizationRequest"("interactionResultHash");
