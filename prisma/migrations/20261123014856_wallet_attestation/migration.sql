-- AlterTable
ALTER TABLE "Issuer" ADD COLUMN     "walletAttestation" JSONB;

-- AlterTable
ALTER TABLE "AccessToken" ADD COLUMN     "authorizationRequestId" TEXT;

-- AlterTable
ALTER TABLE "AuthorizationRequest" ADD COLUMN     "scope" TEXT;
