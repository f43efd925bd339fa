-- AlterTable
ALTER TABLE "Credential" DROP COLUMN "holderKeyThumb";
