-- AlterTable
ALTER TABLE "Issuer" ADD COLUMN     "allowedRedirectUris" JSONB;
