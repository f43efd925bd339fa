-- AlterTable
ALTER TABLE "Issuer" ADD COLUMN     "nextPrivateKeyCipher" TEXT,
ADD COLUMN     "nextSigningKey" JSONB;
