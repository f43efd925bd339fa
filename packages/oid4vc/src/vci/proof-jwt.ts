import type { CryptoKey, JWK } from "jose";
import { z } from "zod";
import { base64urlDecodeJson } from "../jose/base64url";
import { type HolderKeyProblem, holderP256Jwk, jwkThumbprintKid, toPublicJwk } from "../jose/jwk";
import {
  audienceIncludes,
  type DecodedJwt,
  decodeJwtUnverified,
  type Es256PublicKey,
  type JwsHeader,
  signEs256Jwt,
  typIs,
  verifyEs256Signature,
} from "../jose/jws";
import { es256PublicKeyObject } from "../jose/keys";
import { type Instant, toEpochSeconds, ZNumericDate } from "../jose/time";
import { credentialError } from "./errors";
import { KeyAttestationNotAccepted, type VerifiedKeyAttestation } from "./key-attestation";

/** Header `typ` of a key proof JWT (OpenID4VCI 1.0 Appendix F.1). */
export const PROOF_JWT_TYP = "openid4vci-proof+jwt";

export const ZProofJwtPayload = z.looseObject({
  // RFC 7519 §4.1.3: a string, or an array of strings; either must hold the issuer identifier.
  aud: z.union([z.string().min(1), z.array(z.string()).min(1)]),
  iat: ZNumericDate,
  nonce: z.string().min(1).optional(),
  iss: z.string().optional(),
});
export type TProofJwtPayload = z.infer<typeof ZProofJwtPayload>;

export interface VerifyProofJwtOptions {
  /** The Credential Issuer Identifier: `aud` must be it, or an array that contains it (RFC 7519 §4.1.3). */
  audience: string;
  now: Instant;
  /** How old `iat` may be. Default 300. */
  iatWindowSeconds?: number;
  /** How far in the future `iat` may be. Default 60. */
  futureSkewSeconds?: number;
  /**
   * Atomically checks and consumes a `c_nonce` issued by the nonce endpoint; false when unknown,
   * expired or already used (→ `invalid_nonce`). Only called once every other check has passed.
   */
  consumeNonce: (nonce: string) => Promise<boolean>;
  /** When given, an `iss` in the proof must equal it (the client_id of an authenticated client). */
  clientId?: string;
  /**
   * Key attestations (Appendix D) in the `key_attestation` header: how to check one, and whether every
   * proof must carry one. Without this option the header is not read.
   */
  keyAttestation?: KeyAttestationCheck;
}

export interface KeyAttestationCheck {
  required: boolean;
  /** Checks an attestation (`verifyKeyAttestation` with the issuer's trust and requirement). */
  verify: (jwt: string, options: { requireExp: boolean }) => Promise<VerifiedKeyAttestation>;
}

export interface VerifiedProof {
  /** The holder's public key (kty, crv, x, y only), to put in `cnf.jwk`. */
  holderJwk: JWK;
  /** RFC 7638 thumbprint of `holderJwk`. */
  holderKeyThumbprint: string;
  nonce: string;
  header: JwsHeader;
  payload: TProofJwtPayload;
  /**
   * The keys its `key_attestation` attests (the proof key among them), that attestation's c_nonce and
   * when it and its keys expire.
   */
  attested?: { keys: { jwk: JWK; thumbprint: string }[]; nonce: string; exp?: number };
}

const invalidProof = (description: string) => credentialError("invalid_proof", description);

const KEY_PROBLEMS: Record<HolderKeyProblem, string> = {
  not_an_object: "the proof key is not a JWK object",
  private_key_material: "the proof JWK contains private key material",
  not_p256: "the proof key must be an EC P-256 public JWK",
};

function holderJwkFromHeader(header: JwsHeader): JWK {
  const sources = (["jwk", "kid", "x5c"] as const).filter((k) => header[k] !== undefined);
  if (sources.length !== 1)
    throw invalidProof("the proof header must contain exactly one of jwk, kid or x5c");
  let jwk: unknown;
  if (header.jwk !== undefined) {
    jwk = header.jwk;
  } else if (header.kid !== undefined) {
    const kid = String(header.kid);
    if (!kid.startsWith("did:jwk:")) {
      throw invalidProof(
        "kid is only supported as a did:jwk DID URL; send the key in the jwk header instead",
      );
    }
    const encoded = kid.slice("did:jwk:".length).split("#")[0]!;
    try {
      jwk = base64urlDecodeJson(encoded);
    } catch {
      throw invalidProof("the did:jwk in kid is not a base64url-encoded JWK");
    }
  } else {
    throw invalidProof("x5c-bound proofs are not supported; send the key in the jwk header instead");
  }
  const key = holderP256Jwk(jwk);
  if (typeof key === "string") throw invalidProof(KEY_PROBLEMS[key]);
  return toPublicJwk(key);
}

/** Every check of `verifyProofJwt` except nonce consumption. */
async function checkProofJwt(
  jwt: string,
  options: Omit<VerifyProofJwtOptions, "consumeNonce">,
): Promise<VerifiedProof> {
  let decoded: DecodedJwt;
  try {
    decoded = decodeJwtUnverified(jwt);
  } catch {
    throw invalidProof("the proof is not a well-formed JWT");
  }
  const { header } = decoded;
  if (!typIs(header.typ, PROOF_JWT_TYP)) throw invalidProof(`the proof typ must be ${PROOF_JWT_TYP}`);
  if (header.alg !== "ES256") throw invalidProof("the proof alg must be ES256");
  const attested = options.keyAttestation
    ? await acceptedAttestation(header, options.keyAttestation)
    : undefined;
  const holderJwk =
    attested && namesAttestedKeyByKid(header)
      ? await attestedSigner(jwt, attested.keys)
      : await signerFromHeader(jwt, header);

  const parsed = ZProofJwtPayload.safeParse(decoded.payload);
  if (!parsed.success)
    throw invalidProof("the proof must contain aud (a string or an array of strings) and iat (number)");
  const payload = parsed.data;
  if (!audienceIncludes(payload.aud, options.audience))
    throw invalidProof("the proof aud is not this credential issuer");
  if (options.clientId !== undefined && payload.iss !== undefined && payload.iss !== options.clientId) {
    throw invalidProof("the proof iss is not the client_id");
  }
  const now = toEpochSeconds(options.now);
  if (payload.iat > now + (options.futureSkewSeconds ?? 60))
    throw invalidProof("the proof iat is in the future");
  if (payload.iat < now - (options.iatWindowSeconds ?? 300)) throw invalidProof("the proof is too old");
  if (payload.nonce === undefined)
    throw invalidProof("the proof must contain the c_nonce from the nonce endpoint");
  const holderKeyThumbprint = jwkThumbprintKid(holderJwk);
  if (attested && !attested.keys.some((key) => key.thumbprint === holderKeyThumbprint)) {
    throw invalidProof("the proof key is not one of the keys its key attestation attests");
  }
  return {
    holderJwk,
    holderKeyThumbprint,
    nonce: payload.nonce,
    header,
    payload,
    ...(attested ? { attested } : {}),
  };
}

/** The proof key from the header (`jwk` or `did:jwk`), with the proof's signature checked. */
async function signerFromHeader(jwt: string, header: JwsHeader): Promise<JWK> {
  const holderJwk = holderJwkFromHeader(header);
  let key: Es256PublicKey;
  try {
    key = es256PublicKeyObject(holderJwk);
  } catch {
    throw invalidProof("the proof key is not a valid P-256 public key");
  }
  if (!(await verifyEs256Signature(jwt, key))) throw invalidProof("the proof signature is invalid");
  return holderJwk;
}

/** Appendix F.1's form: a proof with a key attestation may name its key by a `kid` of its own. */
function namesAttestedKeyByKid(header: JwsHeader): boolean {
  return (
    header.jwk === undefined &&
    header.x5c === undefined &&
    typeof header.kid === "string" &&
    !header.kid.startsWith("did:jwk:")
  );
}

/** The attested key that signed the proof (its `kid` is the wallet's own label, so each is tried). */
async function attestedSigner(jwt: string, keys: ReadonlyArray<{ jwk: JWK }>): Promise<JWK> {
  for (const { jwk } of keys) {
    if (await verifyEs256Signature(jwt, es256PublicKeyObject(jwk))) return jwk;
  }
  throw invalidProof("the proof is not signed by any key its key attestation attests");
}

/**
 * The proof's `key_attestation` (Appendix F.1), checked, with the c_nonce it must carry (this issuer
 * has a nonce endpoint). Undefined when absent, or, where attestations are optional, when it is not one
 * this issuer accepts (an unknown attester, levels it does not take): the proof then stands alone.
 * Whether a required attestation is missing is decided for the whole batch (`verifyProofs`).
 */
async function acceptedAttestation(header: JwsHeader, check: KeyAttestationCheck) {
  const attestation = header.key_attestation;
  if (attestation === undefined) return undefined;
  if (typeof attestation !== "string") throw invalidProof("key_attestation must be a JWT");
  let verified: VerifiedKeyAttestation;
  try {
    verified = await check.verify(attestation, { requireExp: true });
  } catch (error) {
    if (error instanceof KeyAttestationNotAccepted && !check.required) return undefined;
    throw error;
  }
  if (verified.nonce === undefined) throw invalidProof("the key attestation must contain the c_nonce");
  return {
    keys: verified.keys,
    nonce: verified.nonce,
    ...(verified.exp !== undefined ? { exp: verified.exp } : {}),
  };
}

/**
 * Verifies one `jwt` key proof (OpenID4VCI 1.0 Appendix F.1, §8.3.1.2): a batch of one, so a key
 * attestation's rules and nonce apply as they do in `verifyProofs`. Throws `OAuthError`
 * `invalid_proof` (format, typ, alg, key, signature, aud, iat, missing nonce) or `invalid_nonce`.
 */
export async function verifyProofJwt(jwt: string, options: VerifyProofJwtOptions): Promise<VerifiedProof> {
  return (await verifyProofs([jwt], { ...options, batchSize: 1 }))[0]!;
}

/**
 * Verifies a batch of key proofs: at most `batchSize` proofs (else `invalid_credential_request`),
 * each valid, each for a distinct key (else `invalid_proof`). Where key attestations are required,
 * each proof's key must be attested, by its own attestation or by another proof's in the batch (HAIP:
 * one attestation SHOULD cover all keys of a batch). Each distinct nonce is consumed once, after all
 * proofs have passed, so a batch sharing one `c_nonce` works with single-use nonces.
 */
export async function verifyProofs(
  jwts: ReadonlyArray<string>,
  options: VerifyProofJwtOptions & { batchSize: number },
): Promise<VerifiedProof[]> {
  if (jwts.length === 0) throw credentialError("invalid_proof", "at least one proof is required");
  if (jwts.length > options.batchSize) {
    throw credentialError("invalid_credential_request", `at most ${options.batchSize} proofs are accepted`);
  }
  const proofs = await Promise.all(jwts.map((jwt) => checkProofJwt(jwt, options)));
  const keys = new Set(proofs.map((p) => p.holderKeyThumbprint));
  if (keys.size !== proofs.length) throw invalidProof("each proof in a batch must use a distinct key");
  if (options.keyAttestation?.required) {
    const attested = new Set(proofs.flatMap((p) => p.attested?.keys.map((k) => k.thumbprint) ?? []));
    if (proofs.some((p) => !attested.has(p.holderKeyThumbprint))) {
      throw invalidProof(
        "this credential issuer requires a key attestation (key_attestation header) covering each proof's key",
      );
    }
  }
  await consumeAll(
    proofs.flatMap((p) => (p.attested ? [p.nonce, p.attested.nonce] : [p.nonce])),
    options.consumeNonce,
  );
  return proofs;
}

/** Each distinct c_nonce once, after every check has passed. */
async function consumeAll(nonces: string[], consumeNonce: (nonce: string) => Promise<boolean>) {
  for (const nonce of new Set(nonces)) {
    if (!(await consumeNonce(nonce))) {
      throw credentialError("invalid_nonce", "the c_nonce is unknown, expired or already used");
    }
  }
}

/** The keys to issue for, and when the attestations behind them expire (epoch seconds), if they say. */
export interface HolderKeys {
  keys: JWK[];
  notAfter?: number;
}

/** Keys each once, in order, at most `limit`; the earliest `exp` of the attestations they came from. */
function firstKeys(
  groups: ReadonlyArray<{ keys: ReadonlyArray<{ jwk: JWK; thumbprint: string }>; exp?: number }>,
  limit: number,
): HolderKeys {
  const keys = new Map<string, JWK>();
  for (const key of groups.flatMap((g) => g.keys)) {
    if (keys.size < limit && !keys.has(key.thumbprint)) keys.set(key.thumbprint, key.jwk);
  }
  const expiries = groups.flatMap((g) => (g.exp === undefined ? [] : [g.exp]));
  return { keys: [...keys.values()], ...(expiries.length ? { notAfter: Math.min(...expiries) } : {}) };
}

/**
 * The keys to issue for (§8.2 with Appendix F.1): each proof's key, then the other keys the proofs'
 * key attestations attest (the issuer SHOULD issue one credential per attested key), each once, at
 * most `batchSize` (proven keys first). `notAfter`: a credential should not outlive the attestation
 * of its key (Appendix D.1: `exp` is when the attested keys expire too).
 */
export function holderKeysOf(proofs: ReadonlyArray<VerifiedProof>, batchSize: number): HolderKeys {
  const proven = proofs.map((p) => ({ jwk: p.holderJwk, thumbprint: p.holderKeyThumbprint }));
  const attestations = proofs.flatMap((p) => (p.attested ? [p.attested] : []));
  return firstKeys([{ keys: proven }, ...attestations], batchSize);
}

/**
 * Verifies an `attestation` proof (Appendix F.3): exactly one key attestation (else
 * `invalid_credential_request`), with a c_nonce, spent after every check has passed. Returns its keys,
 * each once, at most `batchSize`.
 */
export async function verifyAttestationProofs(
  jwts: ReadonlyArray<string>,
  options: {
    check: KeyAttestationCheck;
    consumeNonce: (nonce: string) => Promise<boolean>;
    batchSize: number;
  },
): Promise<HolderKeys> {
  if (jwts.length !== 1) {
    throw credentialError("invalid_credential_request", "proofs.attestation must contain exactly one JWT");
  }
  const attestation = await options.check.verify(jwts[0]!, { requireExp: false });
  if (attestation.nonce === undefined) throw invalidProof("an attestation proof must contain the c_nonce");
  await consumeAll([attestation.nonce], options.consumeNonce);
  return firstKeys([attestation], options.batchSize);
}

/** Wallet side, for tests and benchmarks: a key proof JWT with the public key in the `jwk` header. */
export function createProofJwt(input: {
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** The proof's `aud`: the credential issuer identifier (or an array holding it). */
  audience: string | string[];
  nonce?: string;
  /** Epoch seconds. */
  iat: number;
  iss?: string;
}): Promise<string> {
  const { kty, crv, x, y } = input.publicJwk;
  const payload: Record<string, unknown> = { aud: input.audience, iat: input.iat };
  if (input.nonce !== undefined) payload.nonce = input.nonce;
  if (input.iss !== undefined) payload.iss = input.iss;
  return signEs256Jwt(
    { typ: PROOF_JWT_TYP, alg: "ES256", jwk: { kty, crv, x, y } },
    payload,
    input.privateKey,
  );
}
