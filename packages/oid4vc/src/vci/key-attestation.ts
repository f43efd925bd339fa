import type { JWK } from "jose";
import { z } from "zod";
import { holderP256Jwk, jwkThumbprintKid, toPublicJwk } from "../jose/jwk";
import {
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
import { credentialError } from "./errors";

/** Header `typ` of a key attestation (OpenID4VCI 1.0 Appendix D.1). */
export const KEY_ATTESTATION_TYP = "key-attestation+jwt";
/** The pre-final drafts' spelling, which wallets built on them (e.g. oid4vc-ts 0.4) still send. */
const DRAFT_KEY_ATTESTATION_TYP = "keyattestation+jwt";
/** How many keys one attestation may attest: more than any batch takes. */
const MAX_ATTESTED_KEYS = 100;

/** What the issuer accepts (`key_attestations_required`, §12.2.4): any one listed value per list given. */
export interface KeyAttestationRequirement {
  keyStorage?: string[];
  userAuthentication?: string[];
}

export interface VerifyKeyAttestationOptions {
  /** The key of a key attester the issuer trusts, from the attestation's header (e.g. its `x5c`), or null. */
  attesterKey: (header: JwsHeader) => Promise<Es256PublicKey | null>;
  requirement: KeyAttestationRequirement;
  now: Instant;
  /** Appendix D.1: `exp` MUST be present when the attestation comes in a `jwt` proof. */
  requireExp: boolean;
  skewSeconds?: number;
}

export interface VerifiedKeyAttestation {
  /** The attested public keys (kty, crv, x, y) and their RFC 7638 thumbprints, in order. */
  keys: { jwk: JWK; thumbprint: string }[];
  /** The c_nonce it carries, for the caller to spend. */
  nonce?: string;
  /** When the attestation and the keys it attests expire (epoch seconds), if it says. */
  exp?: number;
  /** Where the attestation's status is kept (Token Status List), for the caller to check. */
  status?: StatusListReference;
}

/**
 * A key attestation that is well-formed and genuine as far as can be told, but not one this issuer
 * accepts: no trusted attester signed it, or it asserts levels the issuer does not accept. Where
 * attestations are optional, such an attestation is treated as absent.
 */
export class KeyAttestationNotAccepted extends OAuthError {
  constructor(description: string) {
    super("invalid_proof", description, { status: 400 });
  }
}

const ZKeyAttestationPayload = z.looseObject({
  iat: z.number().finite(),
  exp: z.number().finite().optional(),
  attested_keys: z.array(z.unknown()).min(1).max(MAX_ATTESTED_KEYS),
  key_storage: z.array(z.string()).min(1).optional(),
  user_authentication: z.array(z.string()).min(1).optional(),
  nonce: z.string().min(1).optional(),
  status: z.unknown().optional(),
});

const invalidProof = (description: string) => credentialError("invalid_proof", description);

function meets(accepted: string[] | undefined, asserted: string[] | undefined): boolean {
  return accepted === undefined || (asserted ?? []).some((value) => accepted.includes(value));
}

/**
 * Checks a key attestation (OpenID4VCI 1.0 Appendix D.1): an ES256 `key-attestation+jwt` signed by a
 * trusted key attester, issued in the past, unexpired (and with `exp` where `requireExp`), attesting
 * public P-256 keys, with a `key_storage` and `user_authentication` the issuer accepts. Spending its
 * `nonce` is the caller's job. Throws `OAuthError` `invalid_proof`.
 */
export async function verifyKeyAttestation(
  jwt: string,
  options: VerifyKeyAttestationOptions,
): Promise<VerifiedKeyAttestation> {
  let decoded: DecodedJwt;
  try {
    decoded = decodeJwtUnverified(jwt);
  } catch {
    throw invalidProof("the key attestation is not a well-formed JWT");
  }
  const { typ } = decoded.header;
  if (!typIs(typ, KEY_ATTESTATION_TYP) && !typIs(typ, DRAFT_KEY_ATTESTATION_TYP)) {
    throw invalidProof(`the key attestation typ must be ${KEY_ATTESTATION_TYP}`);
  }
  if (decoded.header.alg !== "ES256") throw invalidProof("the key attestation alg must be ES256");
  const attesterKey = await options.attesterKey(decoded.header);
  if (!attesterKey) {
    throw new KeyAttestationNotAccepted(
      "the key attestation is not signed by a key attester this issuer trusts",
    );
  }
  if (!(await verifyEs256Signature(jwt, attesterKey)))
    throw invalidProof("the key attestation signature is invalid");
  const parsed = ZKeyAttestationPayload.safeParse(decoded.payload);
  if (!parsed.success) {
    throw invalidProof("the key attestation must contain iat and a non-empty attested_keys array");
  }
  const claims = parsed.data;
  const now = toEpochSeconds(options.now);
  const skew = options.skewSeconds ?? 60;
  if (claims.iat > now + skew) throw invalidProof("the key attestation iat is in the future");
  if (claims.exp === undefined && options.requireExp) {
    throw invalidProof("a key attestation in a jwt proof must contain exp");
  }
  if (claims.exp !== undefined && claims.exp <= now - skew)
    throw invalidProof("the key attestation has expired");
  const status = statusListReferenceOf(claims.status);
  if (status === "malformed") throw invalidProof("the key attestation status claim is malformed");
  const keys = claims.attested_keys.map((value) => {
    const key = holderP256Jwk(value);
    if (typeof key === "string") throw invalidProof("each attested key must be a public EC P-256 JWK");
    const jwk = toPublicJwk(key);
    try {
      es256PublicKeyObject(jwk); // a point on the curve, or no credential bound to it could be presented
    } catch {
      throw invalidProof("an attested key is not a valid P-256 public key");
    }
    return { jwk, thumbprint: jwkThumbprintKid(jwk) };
  });
  if (!meets(options.requirement.keyStorage, claims.key_storage)) {
    throw new KeyAttestationNotAccepted(
      `the key storage must be one of ${options.requirement.keyStorage!.join(", ")}`,
    );
  }
  if (!meets(options.requirement.userAuthentication, claims.user_authentication)) {
    throw new KeyAttestationNotAccepted(
      `the user authentication must be one of ${options.requirement.userAuthentication!.join(", ")}`,
    );
  }
  return {
    keys,
    ...(claims.nonce ? { nonce: claims.nonce } : {}),
    ...(claims.exp !== undefined ? { exp: claims.exp } : {}),
    ...(status ? { status } : {}),
  };
}
