import type { JWK } from "jose";
import { z } from "zod";
import { holderP256Jwk, jwkThumbprintKid } from "../jose/jwk";
import {
  audienceIncludes,
  type DecodedJwt,
  decodeJwtUnverified,
  type Es256PublicKey,
  type JwsHeader,
  typIs,
  verifyEs256Signature,
} from "../jose/jws";
import { es256PublicKeyObject } from "../jose/keys";
import { OAuthError } from "../jose/oauth-error";
import { type Instant, toEpochSeconds } from "../jose/time";
import { type StatusListReference, statusListReferenceOf } from "../status-list/status-reference";

/** OAuth 2.0 Attestation-Based Client Authentication: the token endpoint auth methods it registers. */
export const ATTEST_JWT_CLIENT_AUTH = "attest_jwt_client_auth";
export const ATTEST_JWT_CLIENT_AUTH_DPOP = "attest_jwt_client_auth_dpop";
export const CLIENT_ATTESTATION_TYP = "oauth-client-attestation+jwt";
export const CLIENT_ATTESTATION_POP_TYP = "oauth-client-attestation-pop+jwt";
/** What the metadata announces for attestations and their PoPs, and the only `alg` accepted. */
export const CLIENT_ATTESTATION_ALGS = ["ES256"] as const;
export const CLIENT_ATTESTATION_HEADER = "oauth-client-attestation";
export const CLIENT_ATTESTATION_POP_HEADER = "oauth-client-attestation-pop";
/** §8.2: a fresh challenge on any response; §9: the error of a PoP without the expected one. */
export const CLIENT_ATTESTATION_CHALLENGE_HEADER = "OAuth-Client-Attestation-Challenge";
export const USE_ATTESTATION_CHALLENGE = "use_attestation_challenge";

const ZAttestationPayload = z.looseObject({
  sub: z.string().min(1).max(2_000),
  exp: z.number().finite(),
  iat: z.number().finite().optional(),
  nbf: z.number().finite().optional(),
  iss: z.string().optional(),
  cnf: z.looseObject({ jwk: z.unknown() }),
  wallet_name: z.unknown().optional(),
  status: z.unknown().optional(),
});

const ZPopPayload = z.looseObject({
  aud: z.union([z.string(), z.array(z.string()).min(1)]),
  jti: z.string().min(1).max(256),
  iat: z.number().finite(),
  exp: z.number().finite().optional(),
  challenge: z.string().max(1_000).optional(),
});

/**
 * A client attestation that cannot be accepted (401): `invalid_client` (RFC 6749 §5.2), or the
 * draft's `invalid_client_attestation` for an attestation that has expired, the one failure a
 * wallet mends by fetching a new attestation from its provider. The draft's `use_fresh_attestation` is
 * for an attestation the server deems not fresh enough by a freshness policy of its own; this server
 * has none beyond `exp`, so it never answers with it (an expired attestation is invalid, not stale).
 */
export class ClientAttestationError extends Error {
  override readonly name = "ClientAttestationError";
  constructor(
    message: string,
    readonly code: "invalid_client" | "invalid_client_attestation" = "invalid_client",
    /** No trusted Client Attester key was found: a matter of trust, not of a malformed or forged attestation. */
    readonly untrustedAttester = false,
  ) {
    super(message);
  }

  toOAuthError(): OAuthError {
    return new OAuthError(this.code, this.message, { status: 401 });
  }
}

const invalid = (message: string) => new ClientAttestationError(message);

export interface VerifiedClientAttestation {
  /** The client_id the attestation was issued for. */
  clientId: string;
  /** The Client Instance key (`cnf.jwk`) and its RFC 7638 thumbprint. */
  instanceJwk: JWK;
  instanceJkt: string;
  walletName?: string;
  /** Where the attestation's status is kept (Token Status List), for the caller to check. */
  status?: StatusListReference;
  /**
   * The PoP's `jti` and `iat` (epoch seconds), for the caller's replay check, and its `challenge`, for the
   * caller to match against the challenges it hands out; absent in DPoP combined mode.
   */
  pop?: { jti: string; iat: number; challenge?: string };
}

export interface VerifyClientAttestationOptions {
  /** The `OAuth-Client-Attestation` header. */
  attestation: string;
  /** The `OAuth-Client-Attestation-PoP` header; without it, the DPoP proof is the PoP (combined mode). */
  pop?: string;
  /** Thumbprint of the request's checked DPoP proof key, if any (combined mode needs one). */
  dpopJkt?: string | null;
  /**
   * The key of a Client Attester trusted for this attestation, from its header (e.g. its `x5c` chain
   * validated up to a trusted root), or null when none is trusted.
   */
  attesterKey: (header: JwsHeader) => Promise<Es256PublicKey | null>;
  /** The authorization server's issuer identifier: the PoP's `aud`. */
  audience: string;
  now: Instant;
  /** How old a PoP's `iat` may be. Default 300 s. */
  maxPopAgeSeconds?: number;
  /** Clock skew allowed on every time claim. Default 60 s. */
  skewSeconds?: number;
}

function decode(jwt: string, what: string): DecodedJwt {
  try {
    return decodeJwtUnverified(jwt);
  } catch {
    throw invalid(`the ${what} is not a well-formed JWT`);
  }
}

/**
 * Checks a client attestation and its proof of possession (draft-ietf-oauth-attestation-based-client-auth
 * §5–§6, OpenID4VCI Appendix E): the attestation is an ES256 `oauth-client-attestation+jwt` signed by a
 * trusted Client Attester, unexpired, with `sub` (the client_id) and a public P-256 `cnf.jwk`. The PoP is
 * either an ES256 `oauth-client-attestation-pop+jwt` signed by that key, for this server (`aud`), with
 * `jti` and a recent `iat` (normal mode), or, without one, the request's DPoP proof by that key
 * (combined mode). Replay of the PoP's `jti` is for the caller to refuse. Throws `ClientAttestationError`.
 */
export async function verifyClientAttestation(
  options: VerifyClientAttestationOptions,
): Promise<VerifiedClientAttestation> {
  const now = toEpochSeconds(options.now);
  const skew = options.skewSeconds ?? 60;
  const attestation = decode(options.attestation, "client attestation");
  if (!typIs(attestation.header.typ, CLIENT_ATTESTATION_TYP)) {
    throw invalid(`the client attestation typ must be ${CLIENT_ATTESTATION_TYP}`);
  }
  if (attestation.header.alg !== "ES256") throw invalid("the client attestation alg must be ES256");
  const attesterKey = await options.attesterKey(attestation.header);
  if (!attesterKey) {
    throw new ClientAttestationError(
      "the client attestation is not signed by a wallet provider this issuer trusts",
      "invalid_client",
      true,
    );
  }
  if (!(await verifyEs256Signature(options.attestation, attesterKey))) {
    throw invalid("the client attestation signature is invalid");
  }
  const parsed = ZAttestationPayload.safeParse(attestation.payload);
  if (!parsed.success) throw invalid("the client attestation must contain sub, exp and cnf.jwk");
  const claims = parsed.data;
  if (claims.exp <= now - skew) {
    throw new ClientAttestationError("the client attestation has expired", "invalid_client_attestation");
  }
  if (claims.nbf !== undefined && claims.nbf > now + skew)
    throw invalid("the client attestation is not valid yet");
  if (claims.iat !== undefined && claims.iat > now + skew)
    throw invalid("the client attestation iat is in the future");
  const instanceJwk = holderP256Jwk(claims.cnf.jwk);
  if (typeof instanceJwk === "string") {
    throw invalid("the client attestation cnf.jwk must be a public EC P-256 key");
  }
  const instanceJkt = jwkThumbprintKid(instanceJwk);
  const status = statusListReferenceOf(claims.status);
  if (status === "malformed") throw invalid("the client attestation status claim is malformed");
  const verified: VerifiedClientAttestation = {
    clientId: claims.sub,
    instanceJwk,
    instanceJkt,
    // A name that is not a short string is not understood, and so ignored (claims not understood are).
    ...(typeof claims.wallet_name === "string" && claims.wallet_name.length <= 500
      ? { walletName: claims.wallet_name }
      : {}),
    ...(status ? { status } : {}),
  };

  if (options.pop === undefined) {
    if (!options.dpopJkt) {
      throw invalid(
        "send OAuth-Client-Attestation-PoP, or a DPoP proof by the attested key, with the attestation",
      );
    }
    if (options.dpopJkt !== instanceJkt) throw invalid("the DPoP proof is not by the attested key (cnf.jwk)");
    return verified;
  }
  const pop = decode(options.pop, "client attestation PoP");
  if (!typIs(pop.header.typ, CLIENT_ATTESTATION_POP_TYP)) {
    throw invalid(`the client attestation PoP typ must be ${CLIENT_ATTESTATION_POP_TYP}`);
  }
  let instanceKey: ReturnType<typeof es256PublicKeyObject>;
  try {
    instanceKey = es256PublicKeyObject(instanceJwk);
  } catch {
    throw invalid("the client attestation cnf.jwk is not a valid P-256 public key");
  }
  if (!(await verifyEs256Signature(options.pop, instanceKey))) {
    throw invalid("the client attestation PoP is not signed by the attested key (ES256 by cnf.jwk)");
  }
  const popParsed = ZPopPayload.safeParse(pop.payload);
  if (!popParsed.success) throw invalid("the client attestation PoP must contain aud, jti and iat");
  const popClaims = popParsed.data;
  if (!audienceIncludes(popClaims.aud, options.audience)) {
    throw invalid(`the client attestation PoP aud must be ${options.audience}`);
  }
  if (popClaims.iat > now + skew) throw invalid("the client attestation PoP iat is in the future");
  if (popClaims.iat < now - (options.maxPopAgeSeconds ?? 300))
    throw invalid("the client attestation PoP is too old");
  if (popClaims.exp !== undefined && popClaims.exp <= now - skew)
    throw invalid("the client attestation PoP has expired");
  const challenge = popClaims.challenge !== undefined ? { challenge: popClaims.challenge } : {};
  return { ...verified, pop: { jti: popClaims.jti, iat: popClaims.iat, ...challenge } };
}
