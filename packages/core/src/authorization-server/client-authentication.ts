import type { UnitOfWork } from "@cred/db";
import { ClientAttestationError, USE_ATTESTATION_CHALLENGE, verifyClientAttestation } from "@cred/oid4vc";
import type { TWalletAttestation } from "../issuers";
import { trustedAttester } from "../shared/attestation-status";
import type { Caches } from "../shared/caches";
import type { CoreConfig } from "../shared/context";
import type { TenantScope } from "../shared/principal";
import type { SecretBox } from "../shared/secret-box";
import { hashSecret } from "../shared/secret-box";
import { trustSettingsOf } from "../shared/x5c-chain";
import { trustSourceAnchorsIn } from "../trust-sources";
import { type IssuerNonces, issuerNonces, useNonceError } from "./issuer-nonces";
import { proofUseRepository } from "./proof-use-repository";

/** How old a client attestation PoP's `iat` may be; its `jti` is remembered (against replay) as long. */
const POP_MAX_AGE_SECONDS = 300;
const SKEW_SECONDS = 60;

/** What a wallet sent at the PAR or token endpoint to authenticate itself. */
export interface WalletClientCredentials {
  /** The `OAuth-Client-Attestation` and `OAuth-Client-Attestation-PoP` values sent (one each is good). */
  attestations?: readonly string[];
  attestationPops?: readonly string[];
  /** Thumbprint of the request's checked DPoP proof key (the PoP in combined mode). */
  dpopJkt: string | null;
  /** The checked DPoP proof's `nonce`: the challenge, where the proof is the PoP (combined mode). */
  dpopNonce?: string | undefined;
  /** The issuer's challenges where it requires them (`attestationChallengesOf`): a PoP must carry one. */
  challenges?: IssuerNonces | undefined;
}

/** The issuer's wallet attestation settings (`walletAttestation`), or null when it takes none. */
export function walletAttestationOf(issuer: { walletAttestation: unknown }): TWalletAttestation | null {
  const settings = issuer.walletAttestation as Partial<TWalletAttestation> | null;
  // Settings stored before trust sources existed have roots only.
  const sources = Array.isArray(settings?.trustSources) ? settings.trustSources : [];
  if (settings && sources.length > 0) {
    return {
      ...settings,
      trustedRoots: settings.trustedRoots ?? [],
      trustSources: sources,
    } as TWalletAttestation;
  }
  const withRoots = trustSettingsOf<TWalletAttestation>(issuer.walletAttestation);
  return withRoots;
}

const refused = (message: string) => new ClientAttestationError(message).toOAuthError();

/** The issuer's attestation challenges where it requires them (`walletAttestation.requireChallenge`). */
export function attestationChallengesOf(
  secretBox: SecretBox,
  issuer: { id: string; walletAttestation: unknown },
): IssuerNonces | undefined {
  return walletAttestationOf(issuer)?.requireChallenge ? issuerNonces(secretBox, issuer.id) : undefined;
}

function useChallenge(challenges: IssuerNonces) {
  return useNonceError(
    USE_ATTESTATION_CHALLENGE,
    "This credential issuer requires one of its challenges in the client attestation PoP (or, where the DPoP proof is the PoP, as its nonce): use the one in OAuth-Client-Attestation-Challenge, or one from its challenge endpoint.",
    { attestationChallenge: challenges.issue() },
  );
}

/** A wallet authenticated by its attestation: its client_id and its instance key's thumbprint. */
export interface AuthenticatedWallet {
  clientId: string;
  instanceJkt: string;
}

/**
 * Wallet attestation as OAuth client authentication (`attest_jwt_client_auth`, or
 * `attest_jwt_client_auth_dpop` with the DPoP proof as PoP) at the PAR and token endpoints (OpenID4VCI
 * Appendix E, HAIP §4.4.1). The attestation's `x5c` chain must end at one of the issuer's trusted wallet
 * provider roots; a `client_id` sent with the request must be its `sub`; a PoP's `jti` is accepted once.
 * Returns the authenticated wallet, or null for an anonymous public client: no attestation sent where
 * none is required, an issuer that trusts no wallet provider, or, where attestation is optional, one from
 * a provider it does not trust (a HAIP wallet sends its attestation to every issuer; an issuer that
 * does not know its provider treats it as it would a wallet that sent none). An attestation with a
 * `status` is refused when its status list says it is not valid, or cannot be checked. Throws 401
 * `invalid_client` (`invalid_client_attestation` for an expired attestation).
 */
/** The issuer's pinned wallet provider roots and the CAs its trust sources grant now (PEM). */
async function attesterRoots(
  db: UnitOfWork,
  issuer: { tenantId: string; environment: string },
  settings: TWalletAttestation,
  now: number,
): Promise<string[]> {
  const scope = { tenantId: issuer.tenantId, environment: issuer.environment } as TenantScope;
  const fromSources = await Promise.all(
    (settings.trustSources ?? []).map((source) =>
      trustSourceAnchorsIn(db, scope, source.trustSourceId, source.serviceType, now),
    ),
  );
  return [...new Set([...settings.trustedRoots, ...fromSources.flat()])];
}

export async function authenticateWallet(
  db: UnitOfWork,
  config: CoreConfig,
  caches: Caches,
  issuer: { tenantId: string; environment: string; walletAttestation: unknown },
  credentials: WalletClientCredentials,
  request: { audience: string; clientId?: string },
): Promise<AuthenticatedWallet | null> {
  const settings = walletAttestationOf(issuer);
  if (!settings) return null;
  const { attestations = [], attestationPops = [] } = credentials;
  if (attestations.length > 1 || attestationPops.length > 1) {
    throw refused("send OAuth-Client-Attestation and OAuth-Client-Attestation-PoP once each");
  }
  const [attestation] = attestations;
  const [attestationPop] = attestationPops;
  if (attestation === undefined) {
    if (attestationPop !== undefined)
      throw refused("OAuth-Client-Attestation-PoP came without OAuth-Client-Attestation");
    if (settings.required) {
      throw refused(
        "This credential issuer requires wallet attestation: send OAuth-Client-Attestation with OAuth-Client-Attestation-PoP (or a DPoP proof by the attested key).",
      );
    }
    return null;
  }
  const now = Date.now();
  const attester = trustedAttester({ config, caches }, await attesterRoots(db, issuer, settings, now), now);
  try {
    const verified = await verifyClientAttestation({
      attestation,
      ...(attestationPop !== undefined ? { pop: attestationPop } : {}),
      dpopJkt: credentials.dpopJkt,
      audience: request.audience,
      now: new Date(now),
      maxPopAgeSeconds: POP_MAX_AGE_SECONDS,
      skewSeconds: SKEW_SECONDS,
      // HAIP §4.4.1: the attestation carries its signer's certificate (and chain, no anchor) in x5c.
      attesterKey: attester.key,
    });
    if (request.clientId !== undefined && request.clientId !== verified.clientId) {
      throw refused("client_id is not the client the wallet attestation was issued for (its sub)");
    }
    // §8: the PoP's challenge; in combined mode (no PoP JWT) the DPoP proof's nonce.
    const challenge = verified.pop ? verified.pop.challenge : credentials.dpopNonce;
    if (credentials.challenges && !credentials.challenges.accepts(challenge)) {
      throw useChallenge(credentials.challenges);
    }
    const problem = await attester.statusProblem(verified.status);
    if (problem) throw refused(`the wallet attestation ${problem}`);
    if (verified.pop) {
      const forgetAfter = new Date((verified.pop.iat + POP_MAX_AGE_SECONDS + SKEW_SECONDS) * 1000);
      const key = hashSecret(`client-attestation-pop:${verified.instanceJkt}:${verified.pop.jti}`);
      if (!(await proofUseRepository.spend(db, key, forgetAfter)))
        throw refused("the client attestation PoP was already used; make a new one per request");
    }
    return { clientId: verified.clientId, instanceJkt: verified.instanceJkt };
  } catch (error) {
    if (error instanceof ClientAttestationError) {
      if (error.untrustedAttester && !settings.required) return null;
      throw error.toOAuthError();
    }
    throw error;
  }
}
