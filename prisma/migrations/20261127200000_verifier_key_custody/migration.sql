-- AlterTable
ALTER TABLE "VerifierCertificate" ADD COLUMN     "keyProvider" TEXT,
ADD COLUMN     "pendingKeyProvider" TEXT,
ADD COLUMN     "pendingProviderKeyRef" TEXT,
ADD COLUMN     "providerKeyRef" TEXT,
ALTER COLUMN "privateKeyCipher" DROP NOT NULL;
