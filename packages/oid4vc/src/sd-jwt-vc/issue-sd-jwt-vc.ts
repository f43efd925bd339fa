import type { JWK } from "jose";
import { hasPrivateKeyMaterial, toPublicJwk } from "../jose/jwk";
import { type Es256SigningKey, type JwsHeader, signEs256Jwt } from "../jose/jws";
import type { ClaimPath } from "./claim-path";
import { SD_ALG } from "./disclosure";
import { defineOwn, packClaims } from "./pack-claims";

/** Header `typ` of an SD-JWT VC (SD-JWT VC §3.2.1). */
export const SD_JWT_VC_TYP = "dc+sd-jwt";
/** Pre-`-06` value, accepted only behind `acceptLegacyTyp` when verifying. */
export const LEGACY_SD_JWT_VC_TYP = "vc+sd-jwt";

export interface IssueSdJwtVcInput {
  privateKey: Es256SigningKey;
  /** Header `kid`; optional when `x5c` identifies the key. */
  kid?: string;
  /** Header `x5c` (base64 DER, leaf first), for x509-based issuer key resolution. */
  x5c?: string[];
  /** Optional only with `x5c`: the leaf certificate's subject then names the issuer (SD-JWT VC §2.2.2.3). */
  iss?: string;
  vct: string;
  /** Epoch seconds. */
  iat: number;
  exp: number;
  nbf?: number;
  /** Always disclosed in plain text. */
  sub?: string;
  /** Holder public key, placed in `cnf.jwk`. Private members are refused. */
  cnfJwk?: JWK;
  /** Token Status List entry, placed in `status.status_list`. */
  status?: { idx: number; uri: string };
  /** `vct#integrity` of the type metadata, if any. */
  vctIntegrity?: string;
  /** The credential subject's claims. Must not contain registered claims that have their own input. */
  claims: Record<string, unknown>;
  /** Paths of claims to make selectively disclosable (see `packClaims`). */
  disclosable: ReadonlyArray<ClaimPath>;
  /** Number of top-level decoy digests. */
  decoys?: number;
}

const INPUT_CLAIMS = ["iss", "sub", "iat", "exp", "nbf", "vct", "vct#integrity", "cnf", "status"];

/**
 * Issues an SD-JWT VC in compact form, `<issuer-jwt>~<disclosure>~...~`, with header
 * `{alg: "ES256", typ: "dc+sd-jwt", kid}`. Registered claims are never disclosable; every disclosure
 * gets a fresh 128-bit salt; `_sd` arrays are sorted so their order reveals nothing.
 */
export async function issueSdJwtVc(input: IssueSdJwtVcInput): Promise<string> {
  for (const name of INPUT_CLAIMS) {
    if (Object.hasOwn(input.claims, name))
      throw new TypeError(`claim ${name} must be passed as its own input`);
  }
  if (!Number.isInteger(input.iat) || !Number.isInteger(input.exp) || input.exp <= input.iat) {
    throw new TypeError("iat and exp must be integers with exp > iat");
  }
  if (input.kid === undefined && input.x5c === undefined) throw new TypeError("kid or x5c is required");
  if (input.iss === undefined && input.x5c === undefined) throw new TypeError("iss is required without x5c");
  const { claims, disclosures } = packClaims(input.claims, input.disclosable, { decoys: input.decoys });

  const payload: Record<string, unknown> = input.iss === undefined ? {} : { iss: input.iss };
  if (input.sub !== undefined) payload.sub = input.sub;
  payload.iat = input.iat;
  if (input.nbf !== undefined) payload.nbf = input.nbf;
  payload.exp = input.exp;
  payload.vct = input.vct;
  if (input.vctIntegrity !== undefined) payload["vct#integrity"] = input.vctIntegrity;
  if (input.cnfJwk !== undefined) {
    if (hasPrivateKeyMaterial(input.cnfJwk as Record<string, unknown>)) {
      throw new TypeError("cnfJwk must be a public key");
    }
    payload.cnf = { jwk: toPublicJwk(input.cnfJwk) };
  }
  if (input.status !== undefined) {
    const { idx, uri } = input.status;
    if (!Number.isSafeInteger(idx) || idx < 0)
      throw new TypeError("status idx must be a non-negative integer");
    payload.status = { status_list: { idx, uri } };
  }
  for (const [name, value] of Object.entries(claims)) defineOwn(payload, name, value);
  payload._sd_alg = SD_ALG;

  const header: JwsHeader = { alg: "ES256", typ: SD_JWT_VC_TYP };
  if (input.kid !== undefined) header.kid = input.kid;
  if (input.x5c !== undefined) header.x5c = input.x5c;
  const jwt = await signEs256Jwt(header, payload, input.privateKey);

  let out = `${jwt}~`;
  for (const d of disclosures) out += `${d.encoded}~`;
  return out;
}
