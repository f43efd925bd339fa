import type { TVerificationResult } from "@cred/contracts/verification-sessions";
import {
  type CredentialVerification,
  createSdJwtVcCredentialVerifier,
  type DcqlQuery,
  typeMetadataViolations,
  type VerifiedSdJwtVc,
  type VerifyCredentialFn,
  verifyVpToken,
} from "@cred/oid4vc";
import type { AppDeps } from "../shared/context";
import type { TenantScope } from "../shared/principal";
import type { TPolicyRules } from "../verification-policies";
import { type ResolvedIssuerKey, resolveIssuerKey, type TrustContext } from "./issuer-trust";
import { dcqlQueryFor } from "./policy-query";
import { checkCredentialStatus } from "./status-check";
import {
  authorisedByPresentation,
  requestedTransactionData,
  transactionDataProblem,
} from "./transaction-data";
import { typeAncestors } from "./type-ancestors";
import { typeClaimRules } from "./type-claim-rules";

/** The session facts a presentation is judged against. */
export interface EngineSession {
  scope: TenantScope;
  rules: TPolicyRules;
  clientId: string;
  nonce: string;
  /** The request's `transaction_data` strings, when it asked the holder to authorise some. */
  transactionData?: string[] | null;
}

type Outcome = "passed" | "skipped";
interface EngineChecks {
  outcomes: Record<string, Outcome>;
  issuerId: string | null;
  /** The transaction data this presentation's key binding JWT authorised. */
  transactionDataHashes: string[];
}

/** How old a KB-JWT `iat` may be, in seconds. */
export const KB_IAT_WINDOW_SECONDS = 300;

/**
 * The one verification engine (wallet callback and legacy submission): OpenID4VP §8.6 order over the
 * session's DCQL query: format; per presentation the issuer signature and trust (per policy credential),
 * disclosures, `vct`, `exp`/`nbf`, key binding (`typ`, `aud` = client_id, `nonce`, `iat` window,
 * `sd_hash`, signature by `cnf`), status list, maximum credential age; then required claims and
 * credential sets. A failing presentation is discarded with structured reasons (§8.6) and the rest
 * decide; a response that misses what is required is rejected. The result holds only the claims the
 * policy asked for; the presentation itself is not kept.
 */
export async function runVerificationEngine(
  deps: AppDeps,
  session: EngineSession,
  vpToken: unknown,
  options: { now?: Date; query?: DcqlQuery } = {},
): Promise<TVerificationResult> {
  const now = options.now ?? new Date();
  const query = options.query ?? dcqlQueryFor(deps, session.rules);
  const policyCredentials = new Map(session.rules.credentials.map((c) => [c.id, c]));
  const transactionData = requestedTransactionData(session.transactionData ?? []);

  const verifyCredential: VerifyCredentialFn<EngineChecks> = async (presentation, credentialQuery) => {
    const credential = policyCredentials.get(credentialQuery.id)!;
    const trust: TrustContext = { deps, scope: session.scope, credential, now: now.getTime() };
    let issuer: ResolvedIssuerKey | null = null;
    let transactionDataHashes: string[] = [];
    const inner = createSdJwtVcCredentialVerifier({
      clientId: session.clientId,
      nonce: session.nonce,
      now: () => now,
      iatWindowSeconds: KB_IAT_WINDOW_SECONDS,
      // The query's `trusted_authorities` (aki of the policy's X.509 roots) hold for what is presented.
      enforceTrustedAuthorities: true,
      ...(credential.acceptExtendedTypes
        ? { resolveTypeAncestors: (vct: string, integrity?: string) => typeAncestors(deps, vct, integrity) }
        : {}),
      resolveIssuerKey: async (header, payload) => {
        issuer = await resolveIssuerKey(trust, header, payload);
        return issuer?.key ?? null;
      },
      policyChecks: async (verified) => {
        const resolved = issuer!;
        const checks: Record<string, Outcome> = { issuerTrusted: "passed" };
        const typeRules = await typeRulesCheck(deps, resolved, verified, credential.acceptExtendedTypes);
        if (!typeRules.ok) return { ok: false, reasons: [typeRules.reason] };
        checks.typeMetadata = typeRules.outcome;
        const transaction = authorisedByPresentation(
          transactionData,
          credential.id,
          verified.keyBindingClaims,
        );
        if (!transaction.ok) return { ok: false, reasons: [transaction.reason] };
        if (credential.maxCredentialAgeDays !== null) {
          const iat = verified.payload.iat;
          if (typeof iat !== "number") {
            return {
              ok: false,
              reasons: [{ code: "credential_age_unknown", message: "the credential has no iat" }],
            };
          }
          if (now.getTime() / 1000 - iat > credential.maxCredentialAgeDays * 86_400) {
            return {
              ok: false,
              reasons: [
                {
                  code: "credential_too_old",
                  message: `the credential was issued more than ${credential.maxCredentialAgeDays} days ago`,
                },
              ],
            };
          }
          checks.credentialAge = "passed";
        } else {
          checks.credentialAge = "skipped";
        }
        if (credential.checkStatus && verified.status) {
          const status = await checkCredentialStatus(trust, resolved, verified.status);
          if (!status.ok) return { ok: false, reasons: [{ code: status.code, message: status.message }] };
          checks.status = "passed";
        } else {
          checks.status = "skipped";
        }
        if (transaction.hashes.length > 0) {
          transactionDataHashes = transaction.hashes;
          checks.transactionData = "passed";
        }
        return { ok: true, checks };
      },
    });
    const result = await inner(presentation, credentialQuery);
    if (!result.ok) return result;
    const source = (issuer as ResolvedIssuerKey | null)?.source;
    return {
      ...result,
      // A credential without `iss` under an X.509 root: its leaf certificate's subject names the issuer.
      issuer: result.issuer || (source?.kind === "x5c" ? source.subject : result.issuer),
      checks: {
        outcomes: result.checks,
        issuerId: source?.kind === "platform" ? source.issuerId : null,
        transactionDataHashes,
      },
    } satisfies CredentialVerification<EngineChecks>;
  };

  // OpenID4VP §8.6: a failing presentation is discarded (its reasons reported), and the rest decide.
  const verification = await verifyVpToken({ query, vpToken, verifyCredential, rejectOnAnyFailure: false });
  // §8.4: every item authorised, by exactly one accepted presentation of a credential it names; short of
  // that the session is rejected like any other, with no credentials in its result.
  const unauthorised =
    verification.outcome === "verified" && transactionData.length > 0
      ? transactionDataProblem(
          transactionData,
          verification.credentials.map((c) => ({
            queryId: c.queryId,
            hashes: c.checks.transactionDataHashes,
          })),
        )
      : null;
  const accepted = unauthorised ? [] : verification.credentials;
  const result: TVerificationResult = {
    decidedAt: now.toISOString(),
    outcome: unauthorised ? "rejected" : verification.outcome,
    credentials: accepted.map((c) => ({
      credentialQueryId: c.queryId,
      credentialType: c.credentialType,
      issuer: c.issuer,
      issuerId: c.checks.issuerId,
      claims: c.claims,
      checks: c.checks.outcomes,
    })),
  };
  if (unauthorised) verification.reasons.push(unauthorised);
  if (verification.reasons.length > 0) {
    result.reasons = verification.reasons.map((r) => ({
      code: r.code,
      message: r.message,
      ...(r.credentialQueryId ? { credentialQueryId: r.credentialQueryId } : {}),
    }));
  }
  return result;
}

/** A wallet's error response (§8.5), e.g. the holder declined: the session is rejected with the reason. */
export function walletErrorResult(
  error: string,
  description: string | undefined,
  now = new Date(),
): TVerificationResult {
  return {
    decidedAt: now.toISOString(),
    outcome: "rejected",
    reasons: [{ code: error, message: description ?? `the wallet answered ${error}` }],
    credentials: [],
  };
}

/**
 * The presented credential against its type's claim rules (SD-JWT VC §7.8.2 `sd`, `mandatory`), where
 * the verifier has them (`typeClaimRules`): a claim presented in the clear that must be selectively
 * disclosable, one disclosed that must never be, or a mandatory non-disclosable claim missing →
 * `type_metadata_violation`; a fetched document not matching `vct#integrity` →
 * `type_metadata_integrity_mismatch` (also for a document it `extends`); a chain of `extends` with a
 * cycle, too many links, or a type relaxing the `sd` / `mandatory` of one it extends →
 * `type_metadata_invalid`. Skipped where there are no rules.
 */
async function typeRulesCheck(
  deps: AppDeps,
  issuer: ResolvedIssuerKey,
  verified: VerifiedSdJwtVc,
  readTypeMetadata: boolean,
): Promise<{ ok: true; outcome: Outcome } | { ok: false; reason: { code: string; message: string } }> {
  const { vct, "vct#integrity": integrity } = verified.payload;
  if (typeof vct !== "string") return { ok: true, outcome: "skipped" };
  const found = await typeClaimRules(
    deps,
    issuer.source,
    vct,
    typeof integrity === "string" ? integrity : undefined,
    readTypeMetadata,
  );
  if (found.kind === "integrity_mismatch") {
    return {
      ok: false,
      reason: {
        code: "type_metadata_integrity_mismatch",
        message:
          found.at === vct
            ? `the Type Metadata at ${vct} does not match the credential's vct#integrity`
            : `the Type Metadata at ${found.at}, which ${vct} extends, does not match its extends#integrity`,
      },
    };
  }
  if (found.kind === "invalid") {
    return { ok: false, reason: { code: "type_metadata_invalid", message: found.reason } };
  }
  if (found.kind === "none") return { ok: true, outcome: "skipped" };
  const violations = typeMetadataViolations(found.rules, verified);
  if (violations.length > 0) {
    return {
      ok: false,
      reason: {
        code: "type_metadata_violation",
        message: `the credential breaks its Type Metadata: ${violations.join("; ")}`,
      },
    };
  }
  return { ok: true, outcome: "passed" };
}
