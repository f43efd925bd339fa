-- AlterTable
ALTER TABLE "Issuer" ADD COLUMN     "requireDpopNonce" BOOLEAN NOT NULL DEFAULT false;
