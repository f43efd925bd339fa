-- AlterTable
ALTER TABLE "IssuanceTransaction" ADD COLUMN     "deferredWaitSeconds" INTEGER;
