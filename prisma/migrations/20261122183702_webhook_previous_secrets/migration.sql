-- A rotation during the overlap of an earlier one keeps every secret whose overlap has not ended
-- (was: only the last). The old columns stay for one release, so processes still on the old code keep
-- working while a rolling upgrade replaces them. A later migration drops them.
ALTER TABLE "WebhookSubscription" ADD COLUMN "previousSecrets" JSONB NOT NULL DEFAULT '[]';

-- The secret still in its overlap moves over as it is (sealed to the subscription id either way).
UPDATE "WebhookSubscription"
   SET "previousSecrets" = jsonb_build_array(jsonb_build_object(
         'cipher', "previousSecretCipher",
         'expiresAt', to_char("previousSecretExpiresAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
 WHERE "previousSecretCipher" IS NOT NULL
   AND "previousSecretExpiresAt" > (now() AT TIME ZONE 'UTC');
