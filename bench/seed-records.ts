// The `lists` workload's table: many issuance transactions and verification sessions for one tenant,
// written in SQL (INSERT … SELECT over generate_series), not through the API.

/** Crockford base32 of a millisecond time, 10 characters: the time part of our ids (shared/ids.ts). */
const B32 = `CREATE OR REPLACE FUNCTION bench_b32(v bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(substr('0123456789abcdefghjkmnpqrstvwxyz', ((v / power(32, k)::bigint) % 32)::int + 1, 1), '' ORDER BY k DESC)
    FROM generate_series(0, 9) AS k $$`;

/** The bench's issuer, configuration and policy (made through the API); the rest is read from their rows. */
export interface RecordSeed {
  issuerId: string;
  configuration: string;
  policy: string;
  /** Rows of each table. */
  rows: number;
}

/** Rows spread evenly over the 30 days before an hour ago; ids time-ordered as the service makes them. */
const SPAN_MS = 30 * 24 * 3600 * 1000;

/**
 * The statements that seed `seed.rows` transactions (60% completed, 10% cancelled, 10% expired, 20%
 * pending of which most are past expiry; a quarter under a second issuer id; a subject and callback
 * reference each) and as many sessions (70% verified, 20% rejected with a reason code, 10% pending or
 * expired). Decided sessions carry no sealed result: a page's cost is the query, not decryption.
 */
export function seedStatements(seed: RecordSeed, now = Date.now()): string[] {
  const end = now - 3600_000;
  const step = Math.max(1, Math.floor(SPAN_MS / seed.rows));
  const q = (s: string) => `'${s.replace(/'/g, "''")}'`;
  const at = `(${end}::bigint - (${seed.rows}::bigint - i) * ${step}::bigint)`;
  const ts = (ms: string) => `to_timestamp(${ms} / 1000.0)::timestamp(3)`;
  // The issuer's partition, and the configuration's and policy's row ids, as one row `k` to join.
  const keys = `(SELECT iss."tenantId", iss."environment",
      (SELECT c."id" FROM "CredentialConfiguration" c WHERE c."issuerId" = iss."id" AND c."identifier" = ${q(seed.configuration)} LIMIT 1) AS "configurationId",
      coalesce((SELECT p."id" FROM "VerificationPolicy" p WHERE p."tenantId" = iss."tenantId"
         AND p."environment" = iss."environment" AND p."identifier" = ${q(seed.policy)} LIMIT 1), 'vp_bench') AS "policyId"
    FROM "Issuer" iss WHERE iss."id" = ${q(seed.issuerId)}) AS k`;
  return [
    B32,
    `INSERT INTO "IssuanceTransaction" ("id","tenantId","environment","issuerId","configurationId",
       "configurationIdentifier","configurationVersion","status","offerBy","expiresAt","createdAt","updatedAt",
       "completedAt","cancelledAt","credentialId","externalSubjectReference","callbackReference")
     SELECT 'itx_' || bench_b32(${at}) || '000000' || bench_b32(i), k."tenantId", k."environment",
       CASE WHEN i % 4 = 0 THEN 'iss_bench_other' ELSE ${q(seed.issuerId)} END, k."configurationId",
       ${q(seed.configuration)}, 1,
       CASE WHEN i % 10 < 6 THEN 'completed' WHEN i % 10 = 6 THEN 'cancelled' WHEN i % 10 = 7 THEN 'expired' ELSE 'pending' END,
       'reference',
       CASE WHEN i % 100 = 99 THEN ${ts(`(${at} + 86400000::bigint * 40)`)} ELSE ${ts(`(${at} + 900000)`)} END,
       ${ts(at)}, ${ts(at)},
       CASE WHEN i % 10 < 6 THEN ${ts(`(${at} + 20000)`)} END,
       CASE WHEN i % 10 = 6 THEN ${ts(`(${at} + 60000)`)} END,
       CASE WHEN i % 10 < 6 THEN 'cred_bench' || i END,
       'crm-' || i, 'order-' || i
     FROM generate_series(1, ${seed.rows}) AS i, ${keys}`,
    `INSERT INTO "VerificationSession" ("id","tenantId","environment","policyId","policyIdentifier","status",
       "rules","state","nonce","clientId","responseMode","reasonCodes","decidedAt","expiresAt","createdAt","updatedAt")
     SELECT 'vs_' || bench_b32(${at}) || '000000' || bench_b32(i), k."tenantId", k."environment",
       k."policyId", CASE WHEN i % 3 = 0 THEN 'bench-other-policy' ELSE ${q(seed.policy)} END,
       CASE WHEN i % 10 < 7 THEN 'verified' WHEN i % 10 < 9 THEN 'rejected' WHEN i % 100 = 99 THEN 'pending' ELSE 'expired' END,
       '{}'::jsonb, 'bench-' || i, 'bench', 'bench', 'direct_post.jwt',
       CASE WHEN i % 10 IN (7, 8) THEN ARRAY[CASE WHEN i % 50 = 7 THEN 'credential_revoked' ELSE 'kb_nonce_mismatch' END]
            ELSE ARRAY[]::text[] END,
       CASE WHEN i % 10 < 9 THEN ${ts(`(${at} + 5000)`)} END,
       CASE WHEN i % 100 = 99 THEN ${ts(`(${at} + 86400000::bigint * 40)`)} ELSE ${ts(`(${at} + 300000)`)} END,
       ${ts(at)}, ${ts(at)}
     FROM generate_series(1, ${seed.rows}) AS i, ${keys}`,
    "DROP FUNCTION bench_b32(bigint)",
    // Settled before timing: hint bits and the visibility map written, statistics current.
    `VACUUM (ANALYZE) "IssuanceTransaction"`,
    `VACUUM (ANALYZE) "VerificationSession"`,
  ];
}
