import { credentialError, type KeyAttestationCheck, verifyKeyAttestation } from "@cred/oid4vc";
import type { TKeyAttestation } from "../../issuers";
import { type AttestationStatusDeps, trustedAttester } from "../../shared/attestation-status";
import type { AppDeps } from "../../shared/context";
import type { TenantScope } from "../../shared/principal";
import { trustSettingsOf } from "../../shared/x5c-chain";
import { trustSourceAnchors } from "../../trust-sources";

/** The issuer's key attestation settings (`keyAttestation`), or null when it reads none. */
export function keyAttestationOf(issuer: { keyAttestation: unknown }): TKeyAttestation | null {
  const settings = issuer.keyAttestation as Partial<TKeyAttestation> | null;
  // Settings stored before trust sources existed have roots only.
  if (settings && Array.isArray(settings.trustSources) && settings.trustSources.length > 0) {
    return { ...settings, trustedRoots: settings.trustedRoots ?? [] } as TKeyAttestation;
  }
  return trustSettingsOf<TKeyAttestation>(issuer.keyAttestation);
}

/** What `key_attestations_required` announces (§12.2.4), or null when attestations are not required. */
export function keyAttestationsRequired(issuer: { keyAttestation: unknown }) {
  const settings = keyAttestationOf(issuer);
  if (!settings?.required) return null;
  return {
    ...(settings.keyStorage ? { key_storage: settings.keyStorage } : {}),
    ...(settings.userAuthentication ? { user_authentication: settings.userAuthentication } : {}),
  };
}

/**
 * How the credential endpoint checks key attestations for this issuer (OpenID4VCI Appendix D): signed
 * under one of its trusted roots (`x5c`), with the key storage and user authentication it accepts, and,
 * where it has a `status`, valid by its status list (a revoked one, or one whose status cannot be
 * checked, is `invalid_proof` even where attestations are optional: its keys are not to be trusted).
 * Undefined when the issuer reads none.
 */
export function keyAttestationCheck(
  deps: AttestationStatusDeps & Pick<AppDeps, "database">,
  issuer: { tenantId: string; environment: string; keyAttestation: unknown },
  now: number,
): KeyAttestationCheck | undefined {
  const settings = keyAttestationOf(issuer);
  if (!settings) return undefined;
  const requirement = {
    ...(settings.keyStorage ? { keyStorage: settings.keyStorage } : {}),
    ...(settings.userAuthentication ? { userAuthentication: settings.userAuthentication } : {}),
  };
  return {
    required: settings.required,
    verify: async (jwt, { requireExp }) => {
      const fromSources = await Promise.all(
        (settings.trustSources ?? []).map((source) =>
          trustSourceAnchors(
            deps,
            { tenantId: issuer.tenantId, environment: issuer.environment } as TenantScope,
            source.trustSourceId,
            source.serviceType,
            now,
          ),
        ),
      );
      const roots = [...new Set([...settings.trustedRoots, ...fromSources.flat()])];
      const attester = trustedAttester(deps, roots, now);
      const verified = await verifyKeyAttestation(jwt, {
        attesterKey: attester.key,
        requirement,
        now: new Date(now),
        requireExp,
      });
      const problem = await attester.statusProblem(verified.status);
      if (problem) throw credentialError("invalid_proof", `the key attestation ${problem}`);
      return verified;
    },
  };
}
