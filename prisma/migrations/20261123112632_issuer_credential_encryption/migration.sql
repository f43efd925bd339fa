-- AlterTable
ALTER TABLE "Issuer" ADD COLUMN     "credentialEncryption" JSONB,
ADD COLUMN     "credentialEncryptionKeyCipher" TEXT;
