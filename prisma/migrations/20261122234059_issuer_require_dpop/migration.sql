-- AlterTable
ALTER TABLE "Issuer" ADD COLUMN     "requireDpop" BOOLEAN NOT NULL DEFAULT false;
