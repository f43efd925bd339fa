/**
 * TEST HELPER, not production code: a minimal SD-JWT VC issuer and presentation verifier used by the
 * test wallet, unit tests, HTTP tests and benchmarks until (and alongside) the real implementation in
 * `../sd-jwt-vc`. Only top-level selectively disclosable claims; ES256 only.
 */
import { createHash } from "node:crypto";
import { CompactSign, compactVerify, decodeProtectedHeader } from "jose";
import { decodeB64urlJson, randomB64url, sha256B64url } from "../jose/encoding";
import { type Jwk, type KeyInput, publicJwk, toPrivateKey, toPublicKey } from "../jose/key-input";
import type { CredentialVerification, VerifyCredentialFn } from "./verify-presentation";

const encoder = new TextEncoder();

export interface IssueTestSdJwtVcInput {
  issuerPrivateKey: KeyInput;
  iss: string;
  vct: string;
  /** Top-level claims that are selectively disclosable. */
  disclosable: Record<string, unknown>;
  /** Claims always visible. */
  plain?: Record<string, unknown>;
  /** Holder public key → `cnf.jwk`; omit for a credential without holder binding. */
  holderPublicJwk?: Jwk;
  x5c?: string[];
  iat?: number;
  exp?: number;
}

/** Issues `<jws>~<disclosure>~…~` with `typ: dc+sd-jwt`. */
export async function issueTestSdJwtVc(input: IssueTestSdJwtVcInput): Promise<string> {
  const disclosures = Object.entries(input.disclosable).map(([name, value]) =>
    Buffer.from(JSON.stringify([randomB64url(16), name, value])).toString("base64url"),
  );
  const iat = input.iat ?? Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = {
    iss: input.iss,
    vct: input.vct,
    iat,
    exp: input.exp ?? iat + 3600,
    ...input.plain,
    _sd: disclosures.map((d) => sha256B64url(d)).sort(),
    _sd_alg: "sha-256",
  };
  if (input.holderPublicJwk) payload.cnf = { jwk: publicJwk(input.holderPublicJwk) };
  const jws = await new CompactSign(encoder.encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: "ES256", typ: "dc+sd-jwt", ...(input.x5c ? { x5c: input.x5c } : {}) })
    .sign(toPrivateKey(input.issuerPrivateKey));
  return `${[jws, ...disclosures].join("~")}~`;
}

/**
 * Minimal verifier of an SD-JWT VC presentation for tests: issuer signature, `exp`, top-level disclosures
 * against `_sd`, KB-JWT (`typ`, signature by `cnf.jwk`, `aud`, `nonce`, `iat` window, `sd_hash`).
 */
export function createTestCredentialVerifier(options: {
  issuerPublicJwk: Jwk;
  clientId: string;
  nonce: string;
  now?: () => number;
}): VerifyCredentialFn<Record<string, "passed" | "skipped">> {
  const issuerKey = toPublicKey(options.issuerPublicJwk);
  return async (
    presentation,
    credentialQuery,
  ): Promise<CredentialVerification<Record<string, "passed" | "skipped">>> => {
    const fail = (code: string, message: string) => ({ ok: false as const, reasons: [{ code, message }] });
    const now = options.now?.() ?? Math.floor(Date.now() / 1000);
    const parts = presentation.split("~");
    const issuerJwt = parts[0] ?? "";
    const kbJwt = parts[parts.length - 1] ?? "";
    const disclosures = parts.slice(1, -1);
    if (decodeProtectedHeader(issuerJwt).typ !== "dc+sd-jwt")
      return fail("invalid_credential", "typ is not dc+sd-jwt");
    let payload: Record<string, unknown>;
    try {
      const verified = await compactVerify(issuerJwt, issuerKey, { algorithms: ["ES256"] });
      payload = JSON.parse(new TextDecoder().decode(verified.payload));
    } catch {
      return fail("invalid_signature", "issuer signature is invalid");
    }
    if (typeof payload.exp === "number" && payload.exp < now)
      return fail("credential_expired", "credential expired");
    const digests = new Set(Array.isArray(payload._sd) ? (payload._sd as string[]) : []);
    const claims: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(payload)) if (k !== "_sd" && k !== "_sd_alg") claims[k] = v;
    for (const disclosure of disclosures) {
      if (!digests.delete(sha256B64url(disclosure)))
        return fail("invalid_disclosure", "unreferenced disclosure");
      const decoded = decodeB64urlJson(disclosure);
      if (!Array.isArray(decoded) || decoded.length !== 3 || typeof decoded[1] !== "string") {
        return fail("invalid_disclosure", "malformed disclosure");
      }
      claims[decoded[1]] = decoded[2];
    }
    const checks: Record<string, "passed" | "skipped"> = { signature: "passed", expiry: "passed" };
    let holderBinding: "verified" | "absent" = "absent";
    if (kbJwt) {
      const cnf = payload.cnf as { jwk?: Jwk } | undefined;
      if (!cnf?.jwk) return fail("holder_binding_invalid", "KB-JWT without cnf.jwk");
      if (decodeProtectedHeader(kbJwt).typ !== "kb+jwt")
        return fail("holder_binding_invalid", "typ is not kb+jwt");
      let kb: Record<string, unknown>;
      try {
        const verified = await compactVerify(kbJwt, toPublicKey(cnf.jwk), { algorithms: ["ES256"] });
        kb = JSON.parse(new TextDecoder().decode(verified.payload));
      } catch {
        return fail("holder_binding_invalid", "KB-JWT signature is invalid");
      }
      if (kb.aud !== options.clientId)
        return fail("holder_binding_invalid", "KB-JWT aud is not the client_id");
      if (kb.nonce !== options.nonce) return fail("holder_binding_invalid", "KB-JWT nonce mismatch");
      if (typeof kb.iat !== "number" || Math.abs(kb.iat - now) > 300)
        return fail("holder_binding_invalid", "stale iat");
      const sdHash = createHash("sha256")
        .update(presentation.slice(0, presentation.length - kbJwt.length))
        .digest("base64url");
      if (kb.sd_hash !== sdHash) return fail("holder_binding_invalid", "sd_hash mismatch");
      holderBinding = "verified";
      checks.holderBinding = "passed";
    } else {
      if (credentialQuery.require_cryptographic_holder_binding !== false) {
        return fail("holder_binding_missing", "KB-JWT required");
      }
      checks.holderBinding = "skipped";
    }
    return {
      ok: true,
      claims,
      vct: String(payload.vct),
      issuer: String(payload.iss),
      checks,
      holderBinding,
    };
  };
}
