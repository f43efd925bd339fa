import type { FastSql } from "@cred/db";
import { DpopProofError, tokenError, type VerifiedDpopProof, verifyDpopProof } from "@cred/oid4vc";
import { hashSecret } from "../../shared/secret-box";

/** How old a proof's `iat` may be; a proof is remembered (against replay) for as long as it is accepted. */
const MAX_AGE_SECONDS = 300;
const FUTURE_SKEW_SECONDS = 60;

/**
 * The key a token request's DPoP proof binds its access token to (RFC 9449 §5), or null without a
 * proof where the issuer does not require one; a proof that fails, or one missing where required, is
 * 400 `invalid_dpop_proof`.
 */
export async function dpopKeyForTokenRequest(
  sql: FastSql,
  proof: string | string[] | undefined,
  tokenEndpoint: string,
  required: boolean,
): Promise<string | null> {
  if (proof === undefined) {
    if (required)
      throw tokenError("invalid_dpop_proof", "This credential issuer requires DPoP: send a DPoP proof.");
    return null;
  }
  try {
    return (await checkDpopProof(sql, proof, { method: "POST", url: tokenEndpoint })).jkt;
  } catch (error) {
    if (error instanceof DpopProofError) throw tokenError("invalid_dpop_proof", error.message);
    throw error;
  }
}

/**
 * Checks a DPoP proof for a request (see `verifyDpopProof`) and spends its `jti`: a proof is accepted
 * once (RFC 9449 §11.1), in every process, for as long as its `iat` would let it pass. Throws
 * `DpopProofError`.
 */
export async function checkDpopProof(
  sql: FastSql,
  proof: string | string[],
  request: { method: string; url: string; accessToken?: string },
): Promise<VerifiedDpopProof> {
  // RFC 9449 §4.3: exactly one DPoP header.
  if (Array.isArray(proof)) throw new DpopProofError("send exactly one DPoP header");
  const now = Date.now();
  const verified = await verifyDpopProof(proof, {
    ...request,
    now: new Date(now),
    maxAgeSeconds: MAX_AGE_SECONDS,
    futureSkewSeconds: FUTURE_SKEW_SECONDS,
  });
  const forgetAfter = new Date((verified.iat + MAX_AGE_SECONDS + FUTURE_SKEW_SECONDS) * 1000);
  const { affected } = await sql.query(
    `INSERT INTO "DpopProofUse" ("key", "expiresAt") VALUES ($1, $2::timestamp(3)) ON CONFLICT DO NOTHING RETURNING 1`,
    [hashSecret(`${verified.jkt}:${verified.jti}`), forgetAfter],
  );
  if (affected !== 1) throw new DpopProofError("the DPoP proof was already used; make a new one per request");
  return verified;
}
