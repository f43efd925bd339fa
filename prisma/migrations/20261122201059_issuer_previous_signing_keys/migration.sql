-- AlterTable
ALTER TABLE "Issuer" ADD COLUMN     "previousSigningKeys" JSONB NOT NULL DEFAULT '[]';
