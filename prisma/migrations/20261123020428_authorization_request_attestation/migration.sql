-- AlterTable
ALTER TABLE "AuthorizationRequest" ADD COLUMN     "clientAttestationJkt" TEXT;
