-- A rotation during another's overlap keeps every secret whose overlap has not ended (was: only the last).
ALTER TABLE "WebhookSubscription" ADD COLUMN "previousSecrets" JSONB NOT NULL DEFAULT '[]';

-- The secret still in its overlap moves over as it is (sealed to the subscription id either way).
UPDATE "WebhookSubscription"
   SET "previousSecrets" = jsonb_build_array(jsonb_build_object(
         'cipher', "previousSecretCipher",
         'expiresAt', to_char("previousSecretExpiresAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
 WHERE "previousSecretCipher" IS NOT NULL AND "previousSecretExpiresAt" IS NOT NULL;

ALTER TABLE "WebhookSubscription" DROP COLUMN "previousSecretCipher",
DROP COLUMN "previousSecretExpiresAt";
