import type { CryptoKey, JWK } from "jose";
import { z } from "zod";
import { hasPrivateKeyMaterial } from "../jose/jwk";
import {
  type DecodedJwt,
  decodeJwtUnverified,
  type Es256PublicKey,
  isPlainObject,
  type JwsHeader,
  toEs256VerificationKey,
  typIs,
  verifyEs256Signature,
} from "../jose/jws";
import { type Instant, toEpochSeconds, ZNumericDate } from "../jose/time";
import { ZStatusClaim } from "../status-list/status-reference";
import { splitSdJwt } from "./compact";
import { type Disclosure, parseDisclosure, SD_ALG } from "./disclosure";
import { LEGACY_SD_JWT_VC_TYP, SD_JWT_VC_TYP } from "./issue-sd-jwt-vc";
import { computeSdHash, KB_JWT_TYP, ZKbJwtPayload } from "./key-binding";
import { DisclosureError, unpackClaims } from "./unpack-claims";
import type { SdJwtVcReasonCode, VerificationReason } from "./verification-reasons";

/** Issuer-signed JWT claims of an SD-JWT VC, as far as this verifier interprets them. */
export const ZSdJwtVcPayload = z.looseObject({
  vct: z.string().min(1),
  /** Further types of the credential (SD-JWT VC §2.2.2.2), only ever in the issuer-signed payload. */
  aka_vcts: z.array(z.string().min(1)).optional(),
  iss: z.string().min(1).optional(),
  iat: ZNumericDate.optional(),
  exp: ZNumericDate.optional(),
  nbf: ZNumericDate.optional(),
  cnf: z.looseObject({ jwk: z.record(z.string(), z.unknown()).optional() }).optional(),
  status: ZStatusClaim.optional(),
  _sd_alg: z.string().optional(),
});

export interface KeyBindingExpectations {
  /** When true, a presentation without a valid KB-JWT is rejected. */
  required: boolean;
  /** Expected `aud` (the verifier's client_id), exact string match. */
  audience: string;
  /** Expected `nonce` (the one sent in the request), exact string match. */
  nonce: string;
  /** How old the KB-JWT `iat` may be. Default 300. */
  iatWindowSeconds?: number;
}

export interface VerifySdJwtVcOptions {
  /**
   * Returns the issuer's public key for this token, or null when the issuer/key is unknown or not
   * trusted. It receives the *unverified* header and payload: it must decide trust itself (e.g. `iss`
   * + `kid` against a registry, or an `x5c` chain against trust anchors).
   */
  resolveIssuerKey: (header: JwsHeader, payload: Record<string, unknown>) => Promise<CryptoKey | JWK | null>;
  now: Instant;
  /** Accepted `vct` values; omit to accept any. */
  expectedVct?: ReadonlyArray<string>;
  /**
   * The types a `vct` extends (SD-JWT VC §7.6, from its Type Metadata; `integrity` is the credential's
   * `vct#integrity`). Consulted only when neither `vct` nor `aka_vcts` is expected: a credential whose
   * type extends an expected one is of that type too (§7.6: consumers MAY match on `extends`).
   */
  resolveTypeAncestors?: (vct: string, integrity?: string) => Promise<string[]>;
  /**
   * Key binding expectations. When omitted, a KB-JWT that is present is not checked at all and the
   * result says `keyBindingVerified: false`: never omit it for presentations from a wallet.
   */
  keyBinding?: KeyBindingExpectations;
  /** Also accept header `typ: vc+sd-jwt` (pre-draft-06 wallets and issuers). */
  acceptLegacyTyp?: boolean;
  /** Clock skew allowed on `exp`, `nbf` and a KB-JWT `iat` in the future. Default 60. */
  clockToleranceSeconds?: number;
}

/** The checked claims of a KB-JWT, with the transaction data hashes it carries (OpenID4VP B.3.3). */
export interface KeyBindingClaims {
  iat: number;
  aud: string;
  nonce: string;
  transactionDataHashes?: string[];
  transactionDataHashesAlg?: string;
}

export interface VerifiedSdJwtVc {
  ok: true;
  header: JwsHeader;
  /** Issuer-signed claims with disclosed claims merged in; `_sd`, `_sd_alg` and undisclosed elements removed. */
  payload: Record<string, unknown>;
  /** Paths (in `payload`) of the claims that were selectively disclosed. */
  disclosedPaths: (string | number)[][];
  cnfJwk?: JWK;
  status?: { idx: number; uri: string };
  /** True only when a KB-JWT was present and passed every check against `keyBinding`. */
  keyBindingVerified: boolean;
  /** The verified KB-JWT claims, when `keyBindingVerified`. */
  keyBindingClaims?: KeyBindingClaims;
  /** The types its `vct` extends, when they were needed to match an expected type. */
  extendedTypes?: string[];
}

export interface RejectedSdJwtVc {
  ok: false;
  reasons: VerificationReason[];
}

export type VerifySdJwtVcResult = VerifiedSdJwtVc | RejectedSdJwtVc;

const reject = (code: SdJwtVcReasonCode, message: string): RejectedSdJwtVc => ({
  ok: false,
  reasons: [{ code, message }],
});

/**
 * Verifies an SD-JWT VC or SD-JWT VC+KB presentation (RFC 9901 §7, SD-JWT VC §3): format, `typ`,
 * issuer signature (ES256 only), `_sd_alg`, disclosures, `vct`, `exp`/`nbf`, and, when present or
 * required, the KB-JWT (`typ`, signature by `cnf.jwk`, `aud`, `nonce`, `iat`, `sd_hash`).
 * Checks up to and including disclosure processing stop at the first failure; the claim and
 * key-binding checks after it are all reported.
 */
export async function verifySdJwtVc(
  token: string,
  options: VerifySdJwtVcOptions,
): Promise<VerifySdJwtVcResult> {
  const now = toEpochSeconds(options.now);
  const tolerance = options.clockToleranceSeconds ?? 60;

  let parts: ReturnType<typeof splitSdJwt>;
  let issuer: DecodedJwt;
  try {
    parts = splitSdJwt(token);
    issuer = decodeJwtUnverified(parts.issuerJwt);
  } catch (e) {
    return reject("invalid_format", `not a compact SD-JWT: ${(e as Error).message}`);
  }

  const typ = issuer.header.typ;
  if (!typIs(typ, SD_JWT_VC_TYP) && !(options.acceptLegacyTyp && typIs(typ, LEGACY_SD_JWT_VC_TYP))) {
    return reject("invalid_typ", `header typ must be ${SD_JWT_VC_TYP}, got ${String(typ)}`);
  }
  if (issuer.header.alg !== "ES256") {
    return reject("unsupported_alg", `issuer signature alg ${issuer.header.alg} is not accepted`);
  }

  let issuerKey: Es256PublicKey;
  try {
    const resolved = await options.resolveIssuerKey(issuer.header, issuer.payload);
    if (!resolved) return reject("unknown_issuer_key", "no trusted key for this issuer");
    issuerKey = await toEs256VerificationKey(resolved);
  } catch (e) {
    return reject("unknown_issuer_key", `issuer key could not be resolved: ${(e as Error).message}`);
  }
  if (!(await verifyEs256Signature(parts.issuerJwt, issuerKey))) {
    return reject("invalid_issuer_signature", "issuer signature is invalid");
  }

  const parsed = ZSdJwtVcPayload.safeParse(issuer.payload);
  if (!parsed.success) {
    return reject("invalid_format", `issuer-signed claims are malformed: ${z.prettifyError(parsed.error)}`);
  }
  const claims = parsed.data;
  if (claims._sd_alg !== undefined && claims._sd_alg !== SD_ALG) {
    return reject("unsupported_sd_alg", `_sd_alg ${claims._sd_alg} is not supported`);
  }

  let unpacked: ReturnType<typeof unpackClaims>;
  try {
    const seen = new Set<string>();
    const disclosures: Disclosure[] = [];
    for (const encoded of parts.disclosures) {
      if (seen.has(encoded)) throw new DisclosureError("the same disclosure is included more than once");
      seen.add(encoded);
      disclosures.push(parseDisclosure(encoded));
    }
    unpacked = unpackClaims(issuer.payload, disclosures);
  } catch (e) {
    return reject("invalid_disclosure", (e as Error).message);
  }

  const reasons: VerificationReason[] = [];
  // A credential is of its `vct` and of each of its `aka_vcts` (§2.2.2.2).
  const types = [claims.vct, ...(claims.aka_vcts ?? [])];
  const expected = options.expectedVct;
  const typeMismatch = expected !== undefined && !types.some((type) => expected.includes(type));
  if (claims.exp !== undefined && now - tolerance >= claims.exp) {
    reasons.push({ code: "expired", message: "credential has expired" });
  }
  if (claims.nbf !== undefined && now + tolerance < claims.nbf) {
    reasons.push({ code: "not_yet_valid", message: "credential is not yet valid" });
  }

  const cnfJwk = claims.cnf?.jwk as JWK | undefined;
  let keyBindingClaims: VerifiedSdJwtVc["keyBindingClaims"];
  if (options.keyBinding) {
    const kb = await checkKeyBinding(parts.kbJwt, parts.sdJwt, cnfJwk, options.keyBinding, now, tolerance);
    reasons.push(...kb.reasons);
    keyBindingClaims = kb.claims;
  }
  // The types its vct extends are read (over the network) only for a credential that is otherwise fine.
  let extendedTypes: string[] | undefined;
  if (expected && typeMismatch) {
    const integrity = issuer.payload["vct#integrity"];
    const resolvable = integrity === undefined || typeof integrity === "string";
    const ancestors =
      options.resolveTypeAncestors && reasons.length === 0 && resolvable
        ? await options.resolveTypeAncestors(claims.vct, integrity as string | undefined)
        : [];
    if (ancestors.some((type) => expected.includes(type))) extendedTypes = ancestors;
    else
      reasons.push({ code: "vct_mismatch", message: `vct ${claims.vct} is not one of the expected types` });
  }
  if (reasons.length > 0) return { ok: false, reasons };

  const result: VerifiedSdJwtVc = {
    ok: true,
    header: issuer.header,
    payload: unpacked.claims,
    disclosedPaths: unpacked.disclosed.map((d) => d.path),
    keyBindingVerified: keyBindingClaims !== undefined,
  };
  if (cnfJwk) result.cnfJwk = cnfJwk;
  if (claims.status?.status_list) {
    result.status = { idx: claims.status.status_list.idx, uri: claims.status.status_list.uri };
  }
  if (keyBindingClaims) result.keyBindingClaims = keyBindingClaims;
  if (extendedTypes) result.extendedTypes = extendedTypes;
  return result;
}

async function checkKeyBinding(
  kbJwt: string | undefined,
  sdJwt: string,
  cnfJwk: JWK | undefined,
  expect: KeyBindingExpectations,
  now: number,
  tolerance: number,
): Promise<{ reasons: VerificationReason[]; claims?: KeyBindingClaims }> {
  const fail = (code: SdJwtVcReasonCode, message: string) => ({ reasons: [{ code, message }] });
  if (kbJwt === undefined) {
    return expect.required ? fail("key_binding_missing", "a key binding JWT is required") : { reasons: [] };
  }
  if (!cnfJwk || !isPlainObject(cnfJwk) || hasPrivateKeyMaterial(cnfJwk as Record<string, unknown>)) {
    return fail("invalid_cnf", "credential has no usable cnf.jwk to verify key binding");
  }
  let decoded: DecodedJwt;
  try {
    decoded = decodeJwtUnverified(kbJwt);
  } catch (e) {
    return fail("invalid_kb_format", `key binding JWT is malformed: ${(e as Error).message}`);
  }
  if (!typIs(decoded.header.typ, KB_JWT_TYP)) {
    return fail("invalid_kb_typ", `key binding JWT typ must be ${KB_JWT_TYP}`);
  }
  let holderKey: Es256PublicKey;
  try {
    holderKey = await toEs256VerificationKey(cnfJwk);
  } catch (e) {
    return fail("invalid_cnf", `cnf.jwk is not a usable ES256 key: ${(e as Error).message}`);
  }
  if (decoded.header.alg !== "ES256" || !(await verifyEs256Signature(kbJwt, holderKey))) {
    return fail("invalid_kb_signature", "key binding JWT signature is invalid");
  }
  const parsed = ZKbJwtPayload.safeParse(decoded.payload);
  if (!parsed.success) {
    return fail(
      "invalid_kb_format",
      `key binding JWT claims are malformed: ${z.prettifyError(parsed.error)}`,
    );
  }
  const kb = parsed.data;
  const reasons: VerificationReason[] = [];
  if (kb.aud !== expect.audience)
    reasons.push({ code: "kb_audience_mismatch", message: "KB-JWT aud mismatch" });
  if (kb.nonce !== expect.nonce)
    reasons.push({ code: "kb_nonce_mismatch", message: "KB-JWT nonce mismatch" });
  const window = expect.iatWindowSeconds ?? 300;
  if (kb.iat > now + tolerance || kb.iat < now - window) {
    reasons.push({ code: "kb_iat_out_of_window", message: "KB-JWT iat is outside the accepted window" });
  }
  if (kb.sd_hash !== computeSdHash(sdJwt)) {
    reasons.push({ code: "kb_sd_hash_mismatch", message: "KB-JWT sd_hash does not match the presentation" });
  }
  if (reasons.length > 0) return { reasons };
  const claims: KeyBindingClaims = { iat: kb.iat, aud: kb.aud, nonce: kb.nonce };
  if (kb.transaction_data_hashes) claims.transactionDataHashes = kb.transaction_data_hashes;
  if (kb.transaction_data_hashes_alg) claims.transactionDataHashesAlg = kb.transaction_data_hashes_alg;
  return { reasons, claims };
}
