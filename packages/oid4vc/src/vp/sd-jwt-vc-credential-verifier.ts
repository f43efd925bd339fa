import type { CryptoKey, JWK } from "jose";
import { decodeB64urlJson } from "../jose/encoding";
import { isPlainObject, type JwsHeader } from "../jose/jws";
import type { Instant } from "../jose/time";
import { type VerifiedSdJwtVc, verifySdJwtVc } from "../sd-jwt-vc/verify-sd-jwt-vc";
import { matchesTrustedAuthorities } from "./trusted-authorities";
import type { CredentialVerification, VerifyCredentialFn } from "./verify-presentation";
import type { DcqlCredentialQuery } from "./z-dcql";

export type CredentialCheckOutcome = "passed" | "skipped";

export type PolicyCheckResult =
  | { ok: true; checks?: Record<string, CredentialCheckOutcome> }
  | { ok: false; reasons: readonly { code: string; message: string }[] };

export interface SdJwtVcCredentialVerifierOptions {
  /** Full prefixed client_id of the request: the expected KB-JWT `aud`. */
  clientId: string;
  /** The request `nonce`: the expected KB-JWT `nonce`. */
  nonce: string;
  /** Issuer key resolution and trust (see `verifySdJwtVc`). */
  resolveIssuerKey: (header: JwsHeader, payload: Record<string, unknown>) => Promise<CryptoKey | JWK | null>;
  now?: () => Instant;
  iatWindowSeconds?: number;
  clockToleranceSeconds?: number;
  acceptLegacyTyp?: boolean;
  /** The types a `vct` extends, from its Type Metadata (see `verifySdJwtVc`). */
  resolveTypeAncestors?: (vct: string, integrity?: string) => Promise<string[]>;
  /** Reject credentials whose `x5c` chain does not match the query's `trusted_authorities` (type `aki`). */
  enforceTrustedAuthorities?: boolean;
  /** Further policy checks after the cryptographic ones (§8.6 step 2.5), e.g. status list, credential age. */
  policyChecks?: (
    verified: VerifiedSdJwtVc,
    credentialQuery: DcqlCredentialQuery,
  ) => Promise<PolicyCheckResult>;
}

/** The `x5c` header of the presentation's issuer-signed JWT, undefined when absent or unreadable. */
function issuerX5c(presentation: string): string[] | undefined {
  try {
    const header = decodeB64urlJson(presentation.split(".")[0] ?? "");
    const x5c = isPlainObject(header) ? header.x5c : undefined;
    return Array.isArray(x5c) && x5c.every((c) => typeof c === "string") ? x5c : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Adapts `verifySdJwtVc` (../sd-jwt-vc) to the `verifyCredential` function `verifyVpToken` expects:
 * `vct` against `meta.vct_values`, KB-JWT required unless the query waives holder binding, `aud` =
 * client_id, `nonce`, then the optional trusted-authorities and policy checks.
 */
export function createSdJwtVcCredentialVerifier(
  options: SdJwtVcCredentialVerifierOptions,
): VerifyCredentialFn<Record<string, CredentialCheckOutcome>> {
  return async (
    presentation,
    credentialQuery,
  ): Promise<CredentialVerification<Record<string, CredentialCheckOutcome>>> => {
    const bindingRequired = credentialQuery.require_cryptographic_holder_binding !== false;
    // Before any key is fetched: a chain under an authority the query does not name is refused as such
    // (the header is unverified here, so this can only ever refuse; acceptance needs the checks below).
    if (
      options.enforceTrustedAuthorities &&
      credentialQuery.trusted_authorities &&
      !matchesTrustedAuthorities(issuerX5c(presentation), credentialQuery.trusted_authorities)
    ) {
      return {
        ok: false,
        reasons: [
          { code: "untrusted_authority", message: "issuer chain matches none of trusted_authorities" },
        ],
      };
    }
    const result = await verifySdJwtVc(presentation, {
      resolveIssuerKey: options.resolveIssuerKey,
      now: options.now?.() ?? new Date(),
      ...(credentialQuery.meta.vct_values ? { expectedVct: credentialQuery.meta.vct_values } : {}),
      ...(options.resolveTypeAncestors ? { resolveTypeAncestors: options.resolveTypeAncestors } : {}),
      keyBinding: {
        required: bindingRequired,
        audience: options.clientId,
        nonce: options.nonce,
        ...(options.iatWindowSeconds === undefined ? {} : { iatWindowSeconds: options.iatWindowSeconds }),
      },
      ...(options.acceptLegacyTyp === undefined ? {} : { acceptLegacyTyp: options.acceptLegacyTyp }),
      ...(options.clockToleranceSeconds === undefined
        ? {}
        : { clockToleranceSeconds: options.clockToleranceSeconds }),
    });
    if (!result.ok) return { ok: false, reasons: result.reasons };

    const checks: Record<string, CredentialCheckOutcome> = {
      issuerSignature: "passed",
      disclosures: "passed",
      validityPeriod: "passed",
      holderBinding: result.keyBindingVerified ? "passed" : "skipped",
    };
    if (options.enforceTrustedAuthorities && credentialQuery.trusted_authorities) {
      checks.trustedAuthorities = "passed";
    }
    if (options.policyChecks) {
      const policy = await options.policyChecks(result, credentialQuery);
      if (!policy.ok) return { ok: false, reasons: policy.reasons };
      Object.assign(checks, policy.checks);
    }
    return {
      ok: true,
      claims: result.payload,
      vct: String(result.payload.vct),
      // The types it is of besides its vct: those the issuer signed (aka_vcts) and those it extends.
      ...(Array.isArray(result.payload.aka_vcts) || result.extendedTypes
        ? {
            akaVcts: [
              ...(Array.isArray(result.payload.aka_vcts) ? (result.payload.aka_vcts as string[]) : []),
              ...(result.extendedTypes ?? []),
            ],
          }
        : {}),
      issuer: typeof result.payload.iss === "string" ? result.payload.iss : "",
      checks,
      holderBinding: result.keyBindingVerified ? "verified" : "absent",
    };
  };
}
