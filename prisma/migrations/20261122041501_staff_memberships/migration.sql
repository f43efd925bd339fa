-- AlterTable
ALTER TABLE "StaffSession" ADD COLUMN     "tenantId" TEXT;

-- CreateTable
CREATE TABLE "StaffMembership" (
    "userId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "StaffMembership_pkey" PRIMARY KEY ("userId","tenantId")
);
