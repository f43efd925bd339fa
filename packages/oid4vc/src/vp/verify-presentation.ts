import { minimiseClaims } from "./claims-path";
import { checkClaimRequirements, claimValueMismatches, requestedClaimPaths } from "./dcql";
import { credentialSetReasons, matchPresentationsToQuery } from "./match-presentations";
import type { VpReason } from "./reasons";
import { zVpToken } from "./z-authorization-response";
import type { DcqlCredentialQuery, DcqlQuery } from "./z-dcql";

/**
 * Result of verifying one presentation, produced by the injected credential verifier. It is expected to
 * cover §8.6 steps 2.1 (issuer signature, disclosures, `vct`/`exp`/`nbf`), 2.3/2.4 (KB-JWT `typ`, `aud` =
 * client_id, `nonce`, fresh `iat`, `sd_hash`, `cnf` key, unless holder binding was waived) and 2.5 (trust,
 * status list). `claims` are the disclosed, processed claims (no `_sd`, no `...`).
 */
export type CredentialVerification<TChecks = Record<string, unknown>> =
  | {
      ok: true;
      claims: Record<string, unknown>;
      vct: string;
      /**
       * The further types it is of: those the issuer signed it as (SD-JWT VC `aka_vcts`, never
       * selectively disclosed: "Holders and Verifiers can treat the SD-JWT VC as a credential of any of
       * these types"), and, where the verifier follows them, those its `vct` extends (Type Metadata).
       */
      akaVcts?: readonly string[];
      issuer: string;
      checks: TChecks;
      /** Whether a KB-JWT was present and verified. When `"absent"` but required, the presentation fails. */
      holderBinding?: "verified" | "absent";
    }
  | { ok: false; reasons: readonly { readonly code: string; readonly message: string }[] };

export type VerifyCredentialFn<TChecks = Record<string, unknown>> = (
  presentation: string,
  credentialQuery: DcqlCredentialQuery,
) => Promise<CredentialVerification<TChecks>>;

export interface VerifiedCredential<TChecks = Record<string, unknown>> {
  queryId: string;
  credentialType: string;
  issuer: string;
  /** Only the claim paths the query asked for; over-disclosed claims are removed. */
  claims: Record<string, unknown>;
  checks: TChecks;
}

export interface VpVerificationResult<TChecks = Record<string, unknown>> {
  outcome: "verified" | "rejected";
  reasons: VpReason[];
  /** The verified credentials (claim-minimised). Empty when the outcome is `rejected`. */
  credentials: VerifiedCredential<TChecks>[];
}

export interface VerifyVpTokenInput<TChecks = Record<string, unknown>> {
  query: DcqlQuery;
  /** The parsed `vp_token` (see `parseAuthorizationResponse`); re-validated structurally here. */
  vpToken: unknown;
  verifyCredential: VerifyCredentialFn<TChecks>;
  /**
   * `true` (default, product policy "any failure rejects"): one failed presentation rejects the whole
   * response. `false`: strict §8.6 semantics, failed presentations are discarded and the outcome depends
   * on whether the remaining ones still satisfy the query (their reasons are still reported).
   */
  rejectOnAnyFailure?: boolean;
}

function looksLikeSdJwt(presentation: string): boolean {
  // <issuer-jwt>~<disclosure>~…~[<kb-jwt>]: at least one "~", a 3-part JWS first.
  const tilde = presentation.indexOf("~");
  if (tilde <= 0) return false;
  return presentation.slice(0, tilde).split(".").length === 3;
}

async function verifyOne<TChecks>(
  queryId: string,
  credentialQuery: DcqlCredentialQuery,
  presentation: string,
  verifyCredential: VerifyCredentialFn<TChecks>,
): Promise<{ reasons: VpReason[]; credential?: VerifiedCredential<TChecks> }> {
  const at = (code: string, message: string): VpReason => ({ code, message, credentialQueryId: queryId });
  if (credentialQuery.format === "dc+sd-jwt" && !looksLikeSdJwt(presentation)) {
    return { reasons: [at("invalid_presentation_format", "presentation is not an SD-JWT")] };
  }
  // §8.6 2.1, 2.4, 2.5: integrity, authenticity, holder binding, trust/status: delegated.
  let verification: CredentialVerification<TChecks>;
  try {
    verification = await verifyCredential(presentation, credentialQuery);
  } catch (error) {
    return {
      reasons: [at("credential_verification_failed", (error as Error)?.message ?? "verification failed")],
    };
  }
  if (!verification.ok) {
    const reasons = verification.reasons.length
      ? verification.reasons.map((r) => at(r.code, r.message))
      : [at("credential_verification_failed", "credential verification failed")];
    return { reasons };
  }
  // §8.6 2.2: the credential meets the query.
  const reasons: VpReason[] = [];
  const vctValues = credentialQuery.meta.vct_values;
  const types = [verification.vct, ...(verification.akaVcts ?? [])];
  if (vctValues && !types.some((type) => vctValues.includes(type))) {
    reasons.push(at("credential_type_mismatch", `credential type ${verification.vct} was not requested`));
  }
  const claimCheck = checkClaimRequirements(credentialQuery, verification.claims);
  if (!claimCheck.ok) {
    reasons.push(
      at(
        "missing_required_claims",
        `missing claims: ${claimCheck.missing.map((p) => JSON.stringify(p)).join(", ")}`,
      ),
    );
  }
  for (const mismatch of claimValueMismatches(credentialQuery, verification.claims)) {
    reasons.push(
      at(
        "claim_value_mismatch",
        `claim ${JSON.stringify(mismatch.path)} has none of the requested values ${JSON.stringify(mismatch.values)}`,
      ),
    );
  }
  // §8.6 2.3: holder binding present unless waived.
  if (
    credentialQuery.require_cryptographic_holder_binding !== false &&
    verification.holderBinding === "absent"
  ) {
    reasons.push(at("holder_binding_missing", "the presentation carries no key binding proof"));
  }
  if (reasons.length > 0) return { reasons };
  return {
    reasons,
    credential: {
      queryId,
      credentialType: verification.vct,
      issuer: verification.issuer,
      claims: minimiseClaims(verification.claims, requestedClaimPaths(credentialQuery)),
      checks: verification.checks,
    },
  };
}

/**
 * The verification engine's pure core, in OpenID4VP §8.6 order:
 * 1. the VP Token's format and structural match to the query (unknown ids, `multiple`) → reject;
 * 2. each presentation: format, then `verifyCredential` (integrity, holder binding, policy), then the match
 *    to its credential query (`vct_values`, required claims / `claim_sets`, claim `values`);
 * 3. the valid presentations satisfy the required credential queries / `credential_sets`.
 * Presentations are verified concurrently. Claims in the result are minimised to the requested paths.
 */
export async function verifyVpToken<TChecks = Record<string, unknown>>(
  input: VerifyVpTokenInput<TChecks>,
): Promise<VpVerificationResult<TChecks>> {
  const rejectOnAnyFailure = input.rejectOnAnyFailure ?? true;
  const parsed = zVpToken.safeParse(input.vpToken);
  if (!parsed.success) {
    return {
      outcome: "rejected",
      reasons: [{ code: "invalid_vp_token", message: parsed.error.issues.map((i) => i.message).join("; ") }],
      credentials: [],
    };
  }
  const vpToken = parsed.data;
  const structural = matchPresentationsToQuery(input.query, vpToken).filter(
    (r) => r.code !== "missing_credential" && r.code !== "credential_sets_unsatisfied",
  );
  if (structural.length > 0) return { outcome: "rejected", reasons: structural, credentials: [] };

  const byId = new Map(input.query.credentials.map((c) => [c.id, c]));
  const jobs: Promise<{ reasons: VpReason[]; credential?: VerifiedCredential<TChecks> }>[] = [];
  for (const [queryId, presentations] of Object.entries(vpToken)) {
    const credentialQuery = byId.get(queryId)!;
    for (const presentation of presentations) {
      jobs.push(verifyOne(queryId, credentialQuery, presentation, input.verifyCredential));
    }
  }
  const results = await Promise.all(jobs);

  const reasons: VpReason[] = [];
  const credentials: VerifiedCredential<TChecks>[] = [];
  const validIds = new Set<string>();
  let anyFailed = false;
  for (const result of results) {
    reasons.push(...result.reasons);
    if (result.credential) {
      credentials.push(result.credential);
      validIds.add(result.credential.queryId);
    } else anyFailed = true;
  }
  // Discarded presentations (§8.6) no longer count towards the credential requirements.
  const setReasons = credentialSetReasons(input.query, validIds);
  reasons.push(...setReasons);
  // Verified means something was: a response none of whose presentations survived (or that had none)
  // is rejected, even under a query whose every credential set is optional.
  if (credentials.length === 0 && setReasons.length === 0) {
    reasons.push({ code: "missing_credential", message: "no presentation could be verified" });
  }
  if (setReasons.length > 0 || credentials.length === 0 || (rejectOnAnyFailure && anyFailed)) {
    return { outcome: "rejected", reasons, credentials: [] };
  }
  return {
    outcome: "verified",
    reasons,
    credentials,
  };
}
