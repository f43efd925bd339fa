/** Stable reason codes of a rejected (or partly discarded) VP Token. */
export type VpReasonCode =
  /** §8.6 step 1: the VP Token itself is malformed. */
  | "invalid_vp_token"
  | "unknown_credential_query"
  | "too_many_presentations"
  | "invalid_presentation_format"
  /** §8.6 step 2.1/2.4/2.5 failures reported by the injected credential verifier use their own codes. */
  | "credential_verification_failed"
  | "credential_type_mismatch"
  | "missing_required_claims"
  /** A disclosed claim's value is none of the claim query's `values`. */
  | "claim_value_mismatch"
  /** The issuer's x5c chain matches none of the credential query's `trusted_authorities`. */
  | "untrusted_authority"
  | "holder_binding_missing"
  /** §8.6 step 3. */
  | "missing_credential"
  | "credential_sets_unsatisfied"
  | (string & {});

export interface VpReason {
  code: VpReasonCode;
  message: string;
  credentialQueryId?: string;
}
