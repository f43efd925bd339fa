-- AlterTable
ALTER TABLE "Issuer" ADD COLUMN     "previousCredentialEncryption" JSONB,
ADD COLUMN     "previousCredentialEncryptionKeyCipher" TEXT;
