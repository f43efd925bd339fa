// This machine's raw ES256 rates on one core, measured in the same run as the load.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, webcrypto } from "node:crypto";
import { performance } from "node:perf_hooks";
import { CompactSign, compactVerify, importJWK } from "jose";

export interface CryptoRates {
  /** node:crypto, synchronous: the CPU cost of one operation on one core. These make the bound. */
  signPerSec: number;
  verifyPerSec: number;
  /** WebCrypto one at a time (jose's path, which the peer takes; our server signs and verifies with node:crypto). */
  webcryptoSignPerSec: number;
  joseVerifyPerSec: number;
  /** Import a holder JWK, then verify (what checking a proof with a `jwk` header costs). */
  joseImportAndVerifyPerSec: number;
}

async function rate(ms: number, fn: () => unknown | Promise<unknown>): Promise<number> {
  for (let i = 0; i < 50; i++) await fn();
  let n = 0;
  const t0 = performance.now();
  const end = t0 + ms;
  while (performance.now() < end) {
    for (let i = 0; i < 20; i++) await fn();
    n += 20;
  }
  return (n / (performance.now() - t0)) * 1000;
}

export async function measureCryptoRates(ms: number): Promise<CryptoRates> {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const data = Buffer.from(`${"eyJhbGciOiJFUzI1NiJ9".repeat(10)}.${"x".repeat(600)}`);
  const signature = sign("sha256", data, { key: privateKey, dsaEncoding: "ieee-p1363" });
  const jwk = publicKey.export({ format: "jwk" });
  const cryptoPrivate = await webcrypto.subtle.importKey(
    "jwk",
    createPrivateKey(privateKey.export({ format: "pem", type: "pkcs8" })).export({ format: "jwk" }),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
  const josePublic = await importJWK({ ...jwk, alg: "ES256" }, "ES256");
  const jws = await new CompactSign(data).setProtectedHeader({ alg: "ES256" }).sign(cryptoPrivate as never);
  createPublicKey(privateKey);
  return {
    signPerSec: await rate(ms, () => sign("sha256", data, { key: privateKey, dsaEncoding: "ieee-p1363" })),
    verifyPerSec: await rate(ms, () =>
      verify("sha256", data, { key: publicKey, dsaEncoding: "ieee-p1363" }, signature),
    ),
    webcryptoSignPerSec: await rate(ms, () =>
      webcrypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, cryptoPrivate, data),
    ),
    joseVerifyPerSec: await rate(ms, () => compactVerify(jws, josePublic, { algorithms: ["ES256"] })),
    joseImportAndVerifyPerSec: await rate(ms, async () =>
      compactVerify(jws, await importJWK({ ...jwk, alg: "ES256" }, "ES256"), { algorithms: ["ES256"] }),
    ),
  };
}

/** Server-side ES256 operations per completed operation of each workload (what we count). */
export const SERVER_CRYPTO: Record<string, { signs: number; verifies: number; note: string }> = {
  create: {
    signs: 0,
    verifies: 0,
    note: "no ES256 (offer sealed with AES-GCM, secrets hashed with SHA-256)",
  },
  issuance: {
    signs: 1,
    verifies: 1,
    note: "1 proof JWT verification (holder JWK import + verify) + 1 SD-JWT VC issuer signature",
  },
  "issuance-code": {
    signs: 1,
    verifies: 1,
    note: "as issuance: the code flow's PAR, redirect and PKCE check add no ES256 (codes and request_uris are random, stored hashed)",
  },
  verification: {
    signs: 1,
    verifies: 2,
    note: "1 request object signature + SD-JWT VC issuer signature and KB-JWT verification (not counted: the per-session P-256 key generation and the ECDH-ES decryption of direct_post.jwt, and the status list token verification, which is cached)",
  },
  webhooks: {
    signs: 1,
    verifies: 1,
    note: "as issuance; the webhook deliveries are signed with HMAC-SHA256 (Standard Webhooks), not counted",
  },
  revoke: { signs: 1, verifies: 0, note: "status list token re-signed once per revocation (version bump)" },
  reads: { signs: 0, verifies: 0, note: "no ES256" },
  "peer:issuance": {
    signs: 2,
    verifies: 2,
    note: "access token JWT sign + verify, proof verify, SD-JWT VC sign (oid4vc-ts + @sd-jwt)",
  },
  "peer:verification": {
    signs: 1,
    verifies: 2,
    note: "as ours: request object signature + SD-JWT VC issuer signature and KB-JWT verification (not counted: per-session P-256 key generation, ECDH-ES decryption; no status list)",
  },
  // Counted by wrapping the Credo peer's KMS (sign/verify calls per flow), Credo 0.6.3.
  "credo:issuance": {
    signs: 5,
    verifies: 3,
    note: "Credo signs the access token, a c_nonce JWT in the token response, at the nonce endpoint and in the credential response, and the SD-JWT VC; verifies the access token, the c_nonce and the proof (access-token key set to P-256; Credo's default is Ed25519)",
  },
  "credo:verification": {
    signs: 1,
    verifies: 3,
    note: "request object signature + SD-JWT VC issuer signature, KB-JWT and the issuer's (trusted, self-signed) X.509 certificate (not counted: per-session P-256 key generation, ECDH-ES decryption; no status list)",
  },
};

/** Operations per second one core could do if the workload's ES256 operations were all it cost. */
export function cryptoBound(rates: CryptoRates, workload: string): number | null {
  const c = SERVER_CRYPTO[workload];
  if (!c || c.signs + c.verifies === 0) return null;
  return 1 / (c.signs / rates.signPerSec + c.verifies / rates.verifyPerSec);
}
