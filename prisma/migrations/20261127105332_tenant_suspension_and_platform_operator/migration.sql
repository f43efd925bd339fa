-- AlterTable
ALTER TABLE "Tenant" ADD COLUMN     "suspendedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "StaffUser" ADD COLUMN     "platformOperator" BOOLEAN NOT NULL DEFAULT false;
