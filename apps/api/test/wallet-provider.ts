// A wallet provider for tests: a CA that issuers pin, and an attester certificate under it that signs
// wallet attestations (OpenID4VCI Appendix E), with their proofs of possession.
import { randomBytes } from "node:crypto";
import { type generateEs256KeyPair, signEs256Jwt } from "@cred/oid4vc";
import { createTestCertificateAuthority } from "@cred/oid4vc/test-ca";
import { x509 } from "@cred/oid4vc/x509";
import type { CryptoKey } from "jose";

const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
export const WALLET_CLIENT_ID = "https://wallet.example.org";
type Key = Awaited<ReturnType<typeof generateEs256KeyPair>>;

/**
 * A wallet provider: a CA (what issuers pin) and an attester certificate under it that signs wallet
 * attestations and key attestations.
 */
export async function walletProvider(name: string) {
  const ca = await createTestCertificateAuthority(`CN=${name} CA`);
  const keys = await globalThis.crypto.subtle.generateKey(ES256, true, ["sign", "verify"]);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: `CN=${name}`,
    keys,
    signingAlgorithm: ES256,
    extensions: [
      new x509.SubjectAlternativeNameExtension([{ type: "url", value: "https://provider.example" }]),
    ],
  });
  const { leafPem } = await ca.certify(csr.toString("pem"));
  const leafDer = new x509.X509Certificate(leafPem).toString("base64");
  const rootDer = new x509.X509Certificate(ca.rootPem).toString("base64");
  return {
    rootPem: ca.rootPem,
    /** The attester's signing key and certificate, for libraries that sign attestations themselves. */
    attester: { privateKey: keys.privateKey, x5c: [leafDer] },
    /** The attester certificate alone, and with the root after it. */
    chains: { leaf: [leafDer], withRoot: [leafDer, rootDer], rootOnly: [rootDer] },
    /** A key attestation (OpenID4VCI Appendix D.1) of `keys`, signed by the attester under its x5c. */
    attestKeys(
      attested: Key[],
      options: {
        nonce?: string;
        exp?: number | null;
        keyStorage?: string[];
        userAuthentication?: string[];
      } = {},
    ) {
      const now = Math.floor(Date.now() / 1000);
      return signEs256Jwt(
        { alg: "ES256", typ: "key-attestation+jwt", x5c: [leafDer] },
        {
          iss: "https://provider.example",
          iat: now,
          ...(options.exp === null ? {} : { exp: options.exp ?? now + 3600 }),
          attested_keys: attested.map(({ publicJwk: { kty, crv, x, y } }) => ({ kty, crv, x, y })),
          key_storage: options.keyStorage ?? ["iso_18045_moderate"],
          user_authentication: options.userAuthentication ?? ["iso_18045_moderate"],
          ...(options.nonce ? { nonce: options.nonce } : {}),
        },
        keys.privateKey,
      );
    },
    attest(
      instance: Key,
      options: {
        sub?: string;
        exp?: number;
        x5c?: string[];
        typ?: string;
        /** Sign with this key instead of the attester's (a forgery under the attester's x5c). */
        signWith?: CryptoKey;
        /** Put the instance's private key into cnf.jwk. */
        leakPrivateKey?: boolean;
      } = {},
    ) {
      const now = Math.floor(Date.now() / 1000);
      const { kty, crv, x, y } = instance.publicJwk;
      const jwk = options.leakPrivateKey ? instance.privateJwk : { kty, crv, x, y };
      return signEs256Jwt(
        { alg: "ES256", typ: options.typ ?? "oauth-client-attestation+jwt", x5c: options.x5c ?? [leafDer] },
        {
          iss: "https://provider.example",
          sub: options.sub ?? WALLET_CLIENT_ID,
          iat: now,
          exp: options.exp ?? now + 3600,
          wallet_name: "Test Wallet",
          cnf: { jwk },
        },
        options.signWith ?? keys.privateKey,
      );
    },
  };
}

export function attestationPop(
  instance: Key,
  audience: string,
  extra: { jti?: string; iat?: number; typ?: string } = {},
) {
  return signEs256Jwt(
    { alg: "ES256", typ: extra.typ ?? "oauth-client-attestation-pop+jwt" },
    {
      aud: audience,
      jti: extra.jti ?? randomBytes(16).toString("base64url"),
      iat: extra.iat ?? Math.floor(Date.now() / 1000),
    },
    instance.privateKey,
  );
}
