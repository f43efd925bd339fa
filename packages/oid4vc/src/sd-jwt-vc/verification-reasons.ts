/**
 * Stable reason codes of `verifySdJwtVc`. Each check has its own code so callers can map them to
 * user-facing messages and metrics without parsing text.
 */
export const SD_JWT_VC_REASON_CODES = [
  "invalid_format",
  "invalid_typ",
  "unsupported_alg",
  "unknown_issuer_key",
  "invalid_issuer_signature",
  "unsupported_sd_alg",
  "invalid_disclosure",
  "vct_mismatch",
  "expired",
  "not_yet_valid",
  "invalid_cnf",
  "key_binding_missing",
  "invalid_kb_format",
  "invalid_kb_typ",
  "invalid_kb_signature",
  "kb_audience_mismatch",
  "kb_nonce_mismatch",
  "kb_iat_out_of_window",
  "kb_sd_hash_mismatch",
] as const;

export type SdJwtVcReasonCode = (typeof SD_JWT_VC_REASON_CODES)[number];

export interface VerificationReason {
  code: SdJwtVcReasonCode;
  message: string;
}
