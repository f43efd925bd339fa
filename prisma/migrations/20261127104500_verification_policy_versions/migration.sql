-- AlterTable
ALTER TABLE "VerificationPolicy" ADD COLUMN     "activeVersion" INTEGER NOT NULL DEFAULT 1;

-- CreateTable
CREATE TABLE "VerificationPolicyVersion" (
    "id" TEXT NOT NULL,
    "policyId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "purpose" TEXT,
    "rules" JSONB NOT NULL,
    "reason" TEXT,
    "activatedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "VerificationPolicyVersion_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "VerificationPolicyVersion_policyId_version_key" ON "VerificationPolicyVersion"("policyId", "version");

-- Every existing policy becomes version 1 of itself, active since it was created.
INSERT INTO "VerificationPolicyVersion" ("id", "policyId", "version", "status", "displayName", "purpose", "rules", "reason", "activatedAt", "createdAt")
SELECT 'vpv_' || "id", "id", 1, 'active', "displayName", "purpose", "rules", NULL, "createdAt", "createdAt"
  FROM "VerificationPolicy";
