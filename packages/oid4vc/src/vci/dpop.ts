import { createHash } from "node:crypto";
import type { CryptoKey, JWK } from "jose";
import { z } from "zod";
import { type HolderKeyProblem, holderP256Jwk, jwkThumbprintKid } from "../jose/jwk";
import { type DecodedJwt, decodeJwtUnverified, signEs256Jwt, typIs, verifyEs256Signature } from "../jose/jws";
import { es256PublicKeyObject } from "../jose/keys";
import { OAuthError } from "../jose/oauth-error";
import { type Instant, toEpochSeconds } from "../jose/time";

/** Header `typ` of a DPoP proof (RFC 9449 §4.2). */
export const DPOP_JWT_TYP = "dpop+jwt";
/** What `dpop_signing_alg_values_supported` announces, and the only `alg` accepted. */
export const DPOP_SIGNING_ALGS = ["ES256"] as const;

const ZDpopPayload = z.looseObject({
  jti: z.string().min(1).max(256),
  htm: z.string().min(1),
  htu: z.string().min(1),
  iat: z.number().finite(),
  ath: z.string().optional(),
  nonce: z.string().max(1024).optional(),
});

export interface VerifyDpopProofOptions {
  /** The request's method (`htm`). */
  method: string;
  /** The request's URL (`htu` is compared without query and fragment). */
  url: string;
  now: Instant;
  /** When the request carries an access token: `ath` must be its SHA-256 (RFC 9449 §4.3 step 12). */
  accessToken?: string;
  /** How old `iat` may be. Default 300 s. */
  maxAgeSeconds?: number;
  /** How far in the future `iat` may be. Default 60 s. */
  futureSkewSeconds?: number;
}

export interface VerifiedDpopProof {
  /** RFC 7638 thumbprint of the proof key: what a DPoP-bound token is bound to (`jkt`). */
  jkt: string;
  jti: string;
  /** Epoch seconds. */
  iat: number;
  /** The server-provided nonce the proof carries (RFC 9449 §8), if any; whether it is one is the caller's to judge. */
  nonce?: string;
}

/**
 * A failed DPoP check. Where it is answered decides the shape: 400 `invalid_dpop_proof` at the token
 * endpoint (RFC 9449 §5), 401 with `WWW-Authenticate: DPoP` at a protected resource (§7.1).
 */
export class DpopProofError extends Error {
  override readonly name = "DpopProofError";
}

/**
 * A DPoP proof that is sound but lacks a fresh server-provided nonce where the server requires one
 * (RFC 9449 §8, §9): answered `use_dpop_nonce` with a `DPoP-Nonce` header the client retries with.
 */
export class DpopNonceError extends Error {
  override readonly name = "DpopNonceError";
}

const invalid = (message: string) => new DpopProofError(message);

/** `ath`: base64url SHA-256 of the access token's ASCII (RFC 9449 §4.2). */
export function accessTokenHash(accessToken: string): string {
  return createHash("sha256").update(accessToken, "ascii").digest("base64url");
}

/** RFC 9449 §4.3 step 9: scheme and host case-insensitive, default port dropped, no query or fragment. */
function normalisedHtu(value: string): string | null {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return null;
  }
}

const KEY_PROBLEMS: Record<HolderKeyProblem, string> = {
  not_an_object: "the DPoP proof header must carry the public key as jwk",
  private_key_material: "the DPoP proof jwk contains private key material",
  not_p256: "the DPoP proof key must be an EC P-256 public JWK",
};

function proofKey(header: Record<string, unknown>): JWK {
  const key = holderP256Jwk(header.jwk);
  if (typeof key === "string") throw invalid(KEY_PROBLEMS[key]);
  return key;
}

/**
 * Checks a DPoP proof JWT (RFC 9449 §4.3) for a request: one compact JWS, `typ: dpop+jwt`, ES256, a
 * public P-256 `jwk` in the header that verifies the signature, `jti`, `htm` and `htu` naming this
 * request, `iat` recent, and `ath` when the request carries an access token. Replay of `jti` is for the
 * caller to refuse (it needs storage). Throws `DpopProofError`.
 */
export async function verifyDpopProof(
  proof: string,
  options: VerifyDpopProofOptions,
): Promise<VerifiedDpopProof> {
  let decoded: DecodedJwt;
  try {
    decoded = decodeJwtUnverified(proof);
  } catch {
    throw invalid("the DPoP proof is not a well-formed JWT");
  }
  const { header } = decoded;
  if (!typIs(header.typ, DPOP_JWT_TYP)) throw invalid(`the DPoP proof typ must be ${DPOP_JWT_TYP}`);
  if (!(DPOP_SIGNING_ALGS as readonly string[]).includes(header.alg))
    throw invalid(`the DPoP proof alg must be one of ${DPOP_SIGNING_ALGS.join(", ")}`);
  const jwk = proofKey(header);
  let key: ReturnType<typeof es256PublicKeyObject>;
  try {
    key = es256PublicKeyObject(jwk);
  } catch {
    throw invalid("the DPoP proof key is not a valid P-256 public key");
  }
  if (!(await verifyEs256Signature(proof, key))) throw invalid("the DPoP proof signature is invalid");

  const parsed = ZDpopPayload.safeParse(decoded.payload);
  if (!parsed.success) throw invalid("the DPoP proof must contain jti, htm, htu (strings) and iat (number)");
  const payload = parsed.data;
  if (payload.htm !== options.method) throw invalid(`the DPoP proof htm must be ${options.method}`);
  const htu = normalisedHtu(payload.htu);
  if (htu === null || htu !== normalisedHtu(options.url))
    throw invalid("the DPoP proof htu is not this endpoint's URL");
  const now = toEpochSeconds(options.now);
  if (payload.iat > now + (options.futureSkewSeconds ?? 60))
    throw invalid("the DPoP proof iat is in the future");
  if (payload.iat < now - (options.maxAgeSeconds ?? 300)) throw invalid("the DPoP proof is too old");
  if (options.accessToken !== undefined) {
    if (payload.ath === undefined) throw invalid("the DPoP proof must contain ath for the access token");
    if (payload.ath !== accessTokenHash(options.accessToken))
      throw invalid("the DPoP proof ath does not match the access token");
  }
  return {
    jkt: jwkThumbprintKid(jwk),
    jti: payload.jti,
    iat: payload.iat,
    ...(payload.nonce !== undefined ? { nonce: payload.nonce } : {}),
  };
}

/**
 * The error a protected resource answers for a DPoP problem (RFC 9449 §7.1, §9, RFC 6750 §3): 401 with
 * a `DPoP` challenge naming it; `dpopNonce` is the fresh nonce of a `use_dpop_nonce`.
 */
export function dpopResourceError(
  error: "invalid_token" | "invalid_dpop_proof" | "use_dpop_nonce",
  description: string,
  dpopNonce?: string,
) {
  return new OAuthError(error, description, {
    status: 401,
    challenge: { schemes: ["DPoP"], withError: true },
    ...(dpopNonce !== undefined ? { dpopNonce } : {}),
  });
}

/** Wallet side, for tests and benchmarks: a DPoP proof for one request. */
export function createDpopProof(input: {
  privateKey: CryptoKey;
  publicJwk: JWK;
  method: string;
  url: string;
  accessToken?: string;
  iat?: number;
  jti?: string;
  /** A server-provided nonce (`DPoP-Nonce`) to carry. */
  nonce?: string;
}): Promise<string> {
  const { kty, crv, x, y } = input.publicJwk;
  return signEs256Jwt(
    { alg: "ES256", typ: DPOP_JWT_TYP, jwk: { kty, crv, x, y } },
    {
      jti: input.jti ?? crypto.randomUUID(),
      htm: input.method,
      htu: input.url,
      iat: input.iat ?? Math.floor(Date.now() / 1000),
      ...(input.accessToken !== undefined ? { ath: accessTokenHash(input.accessToken) } : {}),
      ...(input.nonce !== undefined ? { nonce: input.nonce } : {}),
    },
    input.privateKey,
  );
}
