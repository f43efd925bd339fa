-- AlterTable
ALTER TABLE "Issuer" ADD COLUMN     "keyCustodyPurposes" JSONB;
