-- AlterTable
ALTER TABLE "Issuer" ADD COLUMN     "keyProvider" TEXT NOT NULL DEFAULT 'software';
