-- AlterTable
ALTER TABLE "CredentialConfiguration" ADD COLUMN     "typeMetadataDocument" TEXT,
ADD COLUMN     "typeMetadataIntegrity" TEXT;
