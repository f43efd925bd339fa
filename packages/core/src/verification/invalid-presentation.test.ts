import type { TVerificationResult } from "@cred/contracts/verification-sessions";
import { SD_JWT_VC_REASON_CODES } from "@cred/oid4vc";
import { describe, expect, it } from "vitest";
import { invalidPresentationReasons } from "./invalid-presentation";

const rejected = (...codes: string[]): TVerificationResult => ({
  decidedAt: "2026-08-30T12:00:00.000Z",
  outcome: "rejected",
  credentials: [],
  reasons: codes.map((code) => ({ code, message: code, credentialQueryId: "pid" })),
});

/** Every SD-JWT VC reason, classified: a new code must be placed here (true: integrity or binding). */
const SD_JWT_VC: Record<(typeof SD_JWT_VC_REASON_CODES)[number], boolean> = {
  invalid_format: true,
  invalid_typ: true,
  unsupported_alg: true,
  unknown_issuer_key: false,
  invalid_issuer_signature: true,
  unsupported_sd_alg: true,
  invalid_disclosure: true,
  vct_mismatch: false,
  expired: false,
  not_yet_valid: false,
  invalid_cnf: true,
  key_binding_missing: true,
  invalid_kb_format: true,
  invalid_kb_typ: true,
  invalid_kb_signature: true,
  kb_audience_mismatch: true,
  kb_nonce_mismatch: true,
  kb_iat_out_of_window: true,
  kb_sd_hash_mismatch: true,
};

describe("invalidPresentationReasons", () => {
  it("classifies every SD-JWT VC reason", () => {
    for (const code of SD_JWT_VC_REASON_CODES) {
      expect(code in SD_JWT_VC, `${code} is not classified`).toBe(true);
      expect(invalidPresentationReasons(rejected(code)), code).toEqual(SD_JWT_VC[code] ? [code] : []);
    }
  });

  it("counts a malformed vp_token and transaction data the key binding does not authorise", () => {
    for (const code of [
      "invalid_vp_token",
      "invalid_presentation_format",
      "holder_binding_missing",
      "transaction_data_mismatch",
      "transaction_data_not_authorized",
    ])
      expect(invalidPresentationReasons(rejected(code)), code).toEqual([code]);
  });

  it("not a genuine credential the policy refuses, nor what only follows from a discarded presentation", () => {
    for (const code of [
      "credential_revoked",
      "credential_suspended",
      "status_unavailable",
      "credential_too_old",
      "untrusted_authority",
      "credential_type_mismatch",
      "missing_required_claims",
      "missing_credential",
      "credential_sets_unsatisfied",
      "credential_verification_failed",
      "access_denied",
    ])
      expect(invalidPresentationReasons(rejected(code)), code).toEqual([]);
  });

  it("each code once, in order; nothing for a verified result whose discarded presentation failed", () => {
    expect(
      invalidPresentationReasons(
        rejected("kb_nonce_mismatch", "credential_revoked", "kb_nonce_mismatch", "invalid_issuer_signature"),
      ),
    ).toEqual(["kb_nonce_mismatch", "invalid_issuer_signature"]);
    expect(invalidPresentationReasons({ ...rejected("kb_nonce_mismatch"), outcome: "verified" })).toEqual([]);
  });
});
