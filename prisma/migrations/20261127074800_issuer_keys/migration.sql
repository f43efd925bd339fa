-- CreateTable
CREATE TABLE "IssuerKey" (
    "id" TEXT NOT NULL,
    "issuerId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "kid" TEXT NOT NULL,
    "publicJwk" JSONB NOT NULL,
    "privateKeyCipher" TEXT,
    "provider" TEXT DEFAULT 'software',
    "providerKeyRef" TEXT,
    "chainPem" TEXT,
    "x5c" JSONB,
    "notBefore" TIMESTAMP(3),
    "notAfter" TIMESTAMP(3),
    "acceptedUntil" TIMESTAMP(3),
    "preparedAt" TIMESTAMP(3),
    "activatedAt" TIMESTAMP(3),
    "retiredAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "IssuerKey_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "IssuerKey_issuerId_purpose_state_idx" ON "IssuerKey"("issuerId", "purpose", "state");

-- CreateIndex
CREATE INDEX "IssuerKey_kid_idx" ON "IssuerKey"("kid");

-- CreateIndex
CREATE UNIQUE INDEX "IssuerKey_one_current_or_next" ON "IssuerKey"("issuerId", "purpose", "state") WHERE (state IN ('current', 'next'));

-- Moves every issuer's keys into IssuerKey rows (docs/adr/0021-issuer-keys.md), before the columns go.
-- Timestamps held as ISO strings in JSON become TIMESTAMP(3) in UTC, as Prisma stores DateTime.

-- The current signing key, with its certificate chain.
INSERT INTO "IssuerKey" ("id", "issuerId", "tenantId", "environment", "purpose", "state", "kid", "publicJwk",
    "privateKeyCipher", "provider", "chainPem", "x5c", "notBefore", "notAfter", "activatedAt", "createdAt")
SELECT 'ikey_' || replace(gen_random_uuid()::text, '-', ''), i."id", i."tenantId", i."environment",
    'credential_signing', 'current', i."signingKid", i."publicJwk", i."privateKeyCipher", 'software',
    i."signingCertificate"->>'chainPem',
    CASE WHEN jsonb_typeof(i."signingCertificate"->'chainPem') = 'string' THEN i."signingCertificate"->'x5c' END,
    ((i."signingCertificate"->>'notBefore')::timestamptz AT TIME ZONE 'UTC'),
    ((i."signingCertificate"->>'notAfter')::timestamptz AT TIME ZONE 'UTC'),
    i."createdAt", i."createdAt"
FROM "Issuer" i;

-- The prepared next signing key (with its chain, if one was set for it).
INSERT INTO "IssuerKey" ("id", "issuerId", "tenantId", "environment", "purpose", "state", "kid", "publicJwk",
    "privateKeyCipher", "provider", "chainPem", "x5c", "notBefore", "notAfter", "preparedAt", "createdAt")
SELECT 'ikey_' || replace(gen_random_uuid()::text, '-', ''), i."id", i."tenantId", i."environment",
    'credential_signing', 'next', i."nextSigningKey"->>'kid', i."nextSigningKey"->'publicJwk',
    i."nextPrivateKeyCipher", 'software',
    i."nextSigningKey"->'signingCertificate'->>'chainPem',
    CASE WHEN jsonb_typeof(i."nextSigningKey"->'signingCertificate'->'chainPem') = 'string' THEN i."nextSigningKey"->'signingCertificate'->'x5c' END,
    ((i."nextSigningKey"->'signingCertificate'->>'notBefore')::timestamptz AT TIME ZONE 'UTC'),
    ((i."nextSigningKey"->'signingCertificate'->>'notAfter')::timestamptz AT TIME ZONE 'UTC'),
    ((i."nextSigningKey"->>'preparedAt')::timestamptz AT TIME ZONE 'UTC'),
    COALESCE(((i."nextSigningKey"->>'preparedAt')::timestamptz AT TIME ZONE 'UTC'), i."updatedAt")
FROM "Issuer" i
WHERE i."nextPrivateKeyCipher" IS NOT NULL AND jsonb_typeof(i."nextSigningKey"->'kid') = 'string'
  AND jsonb_typeof(i."nextSigningKey"->'publicJwk') = 'object';

-- Replaced signing keys still published; their private parts were discarded already.
INSERT INTO "IssuerKey" ("id", "issuerId", "tenantId", "environment", "purpose", "state", "kid", "publicJwk",
    "provider", "retiredAt", "createdAt")
SELECT 'ikey_' || replace(gen_random_uuid()::text, '-', ''), i."id", i."tenantId", i."environment",
    'credential_signing', 'retired', k.value->>'kid', k.value->'publicJwk', 'software',
    ((k.value->>'retiredAt')::timestamptz AT TIME ZONE 'UTC'), i."createdAt"
FROM "Issuer" i, jsonb_array_elements(CASE WHEN jsonb_typeof(i."previousSigningKeys") = 'array'
    THEN i."previousSigningKeys" ELSE '[]'::jsonb END) AS k(value)
WHERE jsonb_typeof(k.value->'kid') = 'string' AND jsonb_typeof(k.value->'publicJwk') = 'object'
  AND jsonb_typeof(k.value->'retiredAt') = 'string';

-- The current request encryption key.
INSERT INTO "IssuerKey" ("id", "issuerId", "tenantId", "environment", "purpose", "state", "kid", "publicJwk",
    "privateKeyCipher", "provider", "activatedAt", "createdAt")
SELECT 'ikey_' || replace(gen_random_uuid()::text, '-', ''), i."id", i."tenantId", i."environment",
    'credential_request_encryption', 'current', i."credentialEncryption"->'publicJwk'->>'kid',
    i."credentialEncryption"->'publicJwk', i."credentialEncryptionKeyCipher", 'software',
    i."updatedAt", i."updatedAt"
FROM "Issuer" i
WHERE i."credentialEncryptionKeyCipher" IS NOT NULL
  AND jsonb_typeof(i."credentialEncryption"->'publicJwk'->'kid') = 'string';

-- The replaced request encryption key, decrypting until acceptedUntil.
INSERT INTO "IssuerKey" ("id", "issuerId", "tenantId", "environment", "purpose", "state", "kid", "publicJwk",
    "privateKeyCipher", "provider", "acceptedUntil", "retiredAt", "createdAt")
SELECT 'ikey_' || replace(gen_random_uuid()::text, '-', ''), i."id", i."tenantId", i."environment",
    'credential_request_encryption', 'retired', i."previousCredentialEncryption"->'publicJwk'->>'kid',
    i."previousCredentialEncryption"->'publicJwk', i."previousCredentialEncryptionKeyCipher", 'software',
    ((i."previousCredentialEncryption"->>'acceptedUntil')::timestamptz AT TIME ZONE 'UTC'),
    i."updatedAt", i."updatedAt"
FROM "Issuer" i
WHERE i."previousCredentialEncryptionKeyCipher" IS NOT NULL
  AND jsonb_typeof(i."previousCredentialEncryption"->'publicJwk'->'kid') = 'string'
  AND jsonb_typeof(i."previousCredentialEncryption"->'acceptedUntil') = 'string';

-- The settings keep what is not a key: {required}.
UPDATE "Issuer" SET "credentialEncryption" = CASE
    WHEN "credentialEncryptionKeyCipher" IS NOT NULL
      AND jsonb_typeof("credentialEncryption"->'required') = 'boolean'
      AND jsonb_typeof("credentialEncryption"->'publicJwk'->'kid') = 'string'
    THEN jsonb_build_object('required', "credentialEncryption"->'required')
  END
WHERE "credentialEncryption" IS NOT NULL;

-- AddForeignKey
ALTER TABLE "IssuerKey" ADD CONSTRAINT "IssuerKey_issuerId_fkey" FOREIGN KEY ("issuerId") REFERENCES "Issuer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable
ALTER TABLE "Issuer" DROP COLUMN "credentialEncryptionKeyCipher",
DROP COLUMN "nextPrivateKeyCipher",
DROP COLUMN "nextSigningKey",
DROP COLUMN "previousCredentialEncryption",
DROP COLUMN "previousCredentialEncryptionKeyCipher",
DROP COLUMN "previousSigningKeys",
DROP COLUMN "privateKeyCipher",
DROP COLUMN "publicJwk",
DROP COLUMN "signingCertificate",
DROP COLUMN "signingKid";

