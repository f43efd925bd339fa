// A wallet provider for tests: a CA that issuers pin, and an attester certificate under it that signs
// wallet attestations (OpenID4VCI Appendix E), with their proofs of possession.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import {
  createStatusListBytes,
  type generateEs256KeyPair,
  STATUS_LIST_MEDIA_TYPE,
  setStatus,
  signEs256Jwt,
  signStatusListToken,
} from "@cred/oid4vc";
import { createTestCertificateAuthority } from "@cred/oid4vc/test-ca";
import { x509 } from "@cred/oid4vc/x509";
import type { CryptoKey } from "jose";

const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
export const WALLET_CLIENT_ID = "https://wallet.example.org";
type Key = Awaited<ReturnType<typeof generateEs256KeyPair>>;
/** A `status` claim's list entry (Token Status List). */
type StatusRef = { idx: number; uri: string };

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
        status?: StatusRef;
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
          ...(options.status ? { status: { status_list: options.status } } : {}),
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
        status?: StatusRef;
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
          ...(options.status ? { status: { status_list: options.status } } : {}),
        },
        options.signWith ?? keys.privateKey,
      );
    },
  };
}

/**
 * The provider's status list service on loopback: one list per path, each entry set by `set`, served as
 * a Status List Token signed by `signer` (the attester's key and x5c, or another's), whose `ttl` (how
 * long a consumer may keep it) is `ttlSeconds`.
 */
export async function statusListServer(
  signer: { privateKey: CryptoKey; x5c: string[] },
  { ttlSeconds = 1 }: { ttlSeconds?: number } = {},
) {
  const lists = new Map<string, Uint8Array>();
  let fetches = 0;
  const server = createServer(async (request, response) => {
    fetches++;
    const uri = `${base}${request.url}`;
    const bytes = lists.get(uri);
    if (!bytes) return response.writeHead(404).end();
    const token = await signStatusListToken({
      privateKey: signer.privateKey,
      x5c: signer.x5c,
      sub: uri,
      iat: Math.floor(Date.now() / 1000),
      ttl: ttlSeconds,
      bits: 1,
      bytes,
    });
    response.writeHead(200, { "content-type": STATUS_LIST_MEDIA_TYPE }).end(token);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  const base = `http://127.0.0.1:${address.port}`;
  return {
    /** A new list of 128 valid entries; its URI. */
    list(name: string) {
      const uri = `${base}/lists/${name}`;
      lists.set(uri, createStatusListBytes(128, 1));
      return uri;
    },
    set(uri: string, idx: number, value: 0 | 1) {
      setStatus(lists.get(uri) as Uint8Array, 1, idx, value);
    },
    fetches: () => fetches,
    base,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function attestationPop(
  instance: Key,
  audience: string,
  extra: { jti?: string; iat?: number; typ?: string; challenge?: string } = {},
) {
  return signEs256Jwt(
    { alg: "ES256", typ: extra.typ ?? "oauth-client-attestation-pop+jwt" },
    {
      aud: audience,
      jti: extra.jti ?? randomBytes(16).toString("base64url"),
      iat: extra.iat ?? Math.floor(Date.now() / 1000),
      ...(extra.challenge !== undefined ? { challenge: extra.challenge } : {}),
    },
    instance.privateKey,
  );
}
