/**
 * The verification engine's check names and reason codes (VerificationSessions_Get's
 * `result.credentials[].checks` and `result.reasons[].code`) in sentences a staff member understands.
 * The one place that maps them: the Verifications pages and the playground read them from here.
 * A code not listed (a wallet's own error, a newer check) is shown as it is, with the API's message.
 */

export type CheckOutcome = "passed" | "skipped";

const CHECKS: Record<string, { passed: string; skipped: string }> = {
  issuerSignature: {
    passed: "The issuer's signature on the credential is valid.",
    skipped: "The issuer's signature was not checked.",
  },
  disclosures: {
    passed: "Every disclosed claim belongs to the signed credential (none was altered or added).",
    skipped: "The disclosed claims were not checked against the credential.",
  },
  validityPeriod: {
    passed: "The credential is within its validity period (not expired, not yet to come).",
    skipped: "The credential's validity period was not checked.",
  },
  holderBinding: {
    passed: "The person presenting it proved they hold the credential's key (holder binding).",
    skipped: "The policy did not ask the holder to prove possession of the credential's key.",
  },
  issuerTrusted: {
    passed: "The issuer is one the policy trusts.",
    skipped: "The policy does not restrict which issuers it trusts.",
  },
  trustedAuthorities: {
    passed: "The issuer's certificate chain leads to an authority the request named.",
    skipped: "No trusted authority was named, so none was checked.",
  },
  typeMetadata: {
    passed: "The credential keeps its type's rules on which claims are selectively disclosable or mandatory.",
    skipped: "The credential type's rules were not available, so they were not checked.",
  },
  credentialAge: {
    passed: "The credential was issued recently enough for the policy.",
    skipped: "The policy sets no maximum age for the credential.",
  },
  status: {
    passed: "The issuer's status list says the credential is neither revoked nor suspended.",
    skipped: "Revocation was not checked (the policy does not ask for it, or the credential has no status).",
  },
  transactionData: {
    passed: "The holder authorised the transaction the request carried (e.g. a payment).",
    skipped: "No transaction needed the holder's authorisation.",
  },
};

const REASONS: Record<string, string> = {
  // The presented credential itself (SD-JWT VC).
  invalid_format: "The credential is not a well-formed SD-JWT VC.",
  invalid_typ: "The credential has the wrong type header.",
  unsupported_alg: "The credential is signed with an algorithm the platform does not accept.",
  unknown_issuer_key: "The credential's issuer is not trusted by the policy, or its signing key is unknown.",
  invalid_issuer_signature:
    "The issuer's signature on the credential is not valid: it may have been altered.",
  unsupported_sd_alg:
    "The credential uses a selective-disclosure hash algorithm the platform does not accept.",
  invalid_disclosure: "A disclosed claim does not belong to the signed credential.",
  vct_mismatch: "The credential is not of the type it claims to be.",
  type_metadata_violation:
    "The credential breaks its type's rules: a claim is selectively disclosable where it must not be, or the other way round, or a mandatory claim is missing.",
  type_metadata_integrity_mismatch:
    "The description of the credential's type does not match the one the issuer committed to (vct#integrity).",
  type_metadata_invalid:
    "The description of the credential's type cannot be used: the types it extends form a loop or a chain too long, or it loosens a rule of a type it extends.",
  expired: "The credential has expired.",
  not_yet_valid: "The credential is not valid yet.",
  invalid_cnf: "The credential names its holder's key in a form that cannot be used.",
  key_binding_missing: "The holder did not prove possession of the credential's key.",
  invalid_kb_format: "The holder's proof of possession is malformed.",
  invalid_kb_typ: "The holder's proof of possession has the wrong type header.",
  invalid_kb_signature: "The holder's proof of possession is not signed with the credential's key.",
  kb_audience_mismatch: "The presentation was made for another verifier.",
  kb_nonce_mismatch: "The presentation was made for another request (it may be a replay).",
  kb_iat_out_of_window: "The presentation was made too long ago, or claims to be from the future.",
  kb_sd_hash_mismatch: "The holder's proof of possession does not cover what was presented.",
  // The answer as a whole (OpenID4VP).
  invalid_vp_token: "The wallet's answer is malformed.",
  unknown_credential_query: "The wallet answered with a credential the request did not ask for.",
  too_many_presentations: "The wallet presented more credentials than the request allows.",
  invalid_presentation_format: "A presented credential is in a format the request did not ask for.",
  credential_verification_failed: "A presented credential could not be verified.",
  credential_type_mismatch: "A presented credential is not of a type the policy accepts.",
  missing_required_claims: "A presented credential lacks claims the policy requires.",
  claim_value_mismatch: "A presented claim has a value other than the ones the policy accepts.",
  holder_binding_missing:
    "The policy requires proof that the holder owns the credential, and none was given.",
  missing_credential: "No credential the policy requires was presented and verified.",
  credential_sets_unsatisfied: "The credentials presented do not make up any combination the policy accepts.",
  untrusted_authority: "The issuer's certificate chain leads to no authority the request trusts.",
  // The policy's own rules.
  credential_revoked: "The issuer has revoked the credential.",
  credential_suspended: "The issuer has suspended the credential.",
  credential_status_invalid: "The issuer's status list gives the credential a state other than valid.",
  status_unavailable: "The credential's revocation status could not be read from its issuer.",
  credential_age_unknown: "The credential carries no issuance date, so its age could not be checked.",
  credential_too_old: "The credential was issued longer ago than the policy allows.",
  transaction_data_hash_alg:
    "The holder authorised the transaction with a hash algorithm that is not accepted.",
  transaction_data_mismatch:
    "The holder authorised something other than the transaction the request carried.",
  transaction_data_not_authorized: "The holder did not authorise the transaction the request carried.",
  transaction_data_authorized_twice: "The transaction was authorised by more than one credential.",
  // The wallet's own answer (OpenID4VP §8.5).
  access_denied: "The holder declined to share the credentials (or the wallet has none that fit).",
  invalid_request: "The wallet found the request invalid.",
  invalid_client: "The wallet did not accept the verifier's identity.",
  invalid_scope: "The wallet did not understand what was asked for.",
  vp_formats_not_supported: "The wallet supports none of the credential formats asked for.",
  invalid_request_uri_method: "The wallet could not fetch the request the way it was offered.",
  invalid_transaction_data: "The wallet could not handle the transaction the request carried.",
  wallet_unavailable: "The wallet was not available to answer.",
  server_error: "The wallet reported an error of its own.",
};

/** A check's name in words, e.g. `holderBinding` → "Holder binding". */
export function checkLabel(name: string): string {
  const words = name.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What a check's outcome means, as a sentence; an unknown check says plainly what it reported. */
export function checkSentence(name: string, outcome: CheckOutcome): string {
  const known = CHECKS[name];
  if (known) return known[outcome];
  return outcome === "passed"
    ? `The check “${checkLabel(name)}” passed.`
    : `The check “${checkLabel(name)}” was skipped.`;
}

/** A reason code as a sentence; null for a code this console does not know (show the API's message). */
export function reasonSentence(code: string): string | null {
  return REASONS[code] ?? null;
}

/** The codes the console explains, for the reason filter's suggestions. */
export const KNOWN_REASON_CODES = Object.keys(REASONS);
