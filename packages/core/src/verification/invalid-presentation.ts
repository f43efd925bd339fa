import type { TVerificationResult } from "@cred/contracts/verification-sessions";
import type { SdJwtVcReasonCode, VpReasonCode } from "@cred/oid4vc";
import type { TransactionDataReasonCode } from "./transaction-data";

/**
 * Reasons that say a presentation is not genuine, malformed, or not bound to this request: the wallet
 * (or whoever posted it) sent something no honest wallet would, as opposed to a genuine credential the
 * policy does not accept (untrusted issuer, type, validity period, status, age, claims, sets).
 */
const INTEGRITY_OR_BINDING: ReadonlySet<string> = new Set<
  SdJwtVcReasonCode | VpReasonCode | TransactionDataReasonCode
>([
  // The VP Token and its presentations (OpenID4VP §8.6 step 1).
  "invalid_vp_token",
  "unknown_credential_query",
  "too_many_presentations",
  "invalid_presentation_format",
  // The issuer-signed JWT and its disclosures (SD-JWT VC integrity).
  "invalid_format",
  "invalid_typ",
  "unsupported_alg",
  "invalid_issuer_signature",
  "unsupported_sd_alg",
  "invalid_disclosure",
  "invalid_cnf",
  // Holder binding: the key binding JWT (its signature, aud, nonce, iat, sd_hash).
  "key_binding_missing",
  "holder_binding_missing",
  "invalid_kb_format",
  "invalid_kb_typ",
  "invalid_kb_signature",
  "kb_audience_mismatch",
  "kb_nonce_mismatch",
  "kb_iat_out_of_window",
  "kb_sd_hash_mismatch",
  // The key binding JWT's transaction_data_hashes against the request's transaction data (§8.4).
  "transaction_data_hash_alg",
  "transaction_data_mismatch",
  "transaction_data_not_authorized",
  "transaction_data_authorized_twice",
]);

/**
 * The reason codes (each once, in order) that make a rejected result a rejection of an invalid
 * presentation (integrity or binding); empty for a verified result and for one rejected only because
 * what was presented, though genuine, does not satisfy the policy.
 */
export function invalidPresentationReasons(result: TVerificationResult): string[] {
  if (result.outcome !== "rejected") return [];
  const codes = (result.reasons ?? []).map((r) => r.code).filter((code) => INTEGRITY_OR_BINDING.has(code));
  return [...new Set(codes)];
}
