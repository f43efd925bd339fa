// An independent OpenID4VP wallet for interop tests: oid4vc-ts's Openid4vpClient with node:crypto and
// jose callbacks (x5c request-object verification, ECDH-ES response encryption, SAN lookup for
// x509_san_dns, did:jwk and did:web for decentralized_identifier).
import { createHash, X509Certificate } from "node:crypto";
import { didWebDocumentUrl, presentSdJwtVc } from "@cred/oid4vc";
import { setGlobalConfig } from "@openid4vc/oauth2";
import { Openid4vpClient } from "@openid4vc/openid4vp";
import { CompactEncrypt, type CryptoKey, compactVerify, importJWK, importX509 } from "jose";
import { expect } from "vitest";
import { type ActiveIssuer, activeIssuer, employeePolicyBody, issueCredential } from "./fixtures";
import { call, startTestServer, type TestServer } from "./harness";

const b64ToPem = (der: string) =>
  `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)!.join("\n")}\n-----END CERTIFICATE-----`;

/**
 * A did:web resolver as a wallet has one: the DID document read from the DID's URL (did:web §3.2; http
 * here only because the test server is plain-http loopback), the verification method the JWS `kid` names,
 * listed for assertions; its key, or null.
 */
async function didWebKey(didUrl: string): Promise<Record<string, string> | null> {
  const [did] = didUrl.split("#");
  const response = await fetch(didWebDocumentUrl(did!, "http"));
  if (!response.ok) return null;
  const document = (await response.json()) as {
    id: string;
    verificationMethod: { id: string; controller: string; publicKeyJwk: Record<string, string> }[];
    assertionMethod: string[];
  };
  const method = document.verificationMethod.find((m) => m.id === didUrl);
  if (document.id !== did || !method || method.controller !== did) return null;
  return document.assertionMethod.includes(method.id) ? method.publicKeyJwk : null;
}

/** oid4vc-ts as a wallet; `onDidResolved` hears of every DID it resolved (did:jwk and did:web). */
export function oid4vpTsWallet(options: { onDidResolved?: (did: string) => void } = {}) {
  return new Openid4vpClient({
    callbacks: {
      fetch,
      hash: (data: Uint8Array, alg: string) => createHash(alg.replace("-", "")).update(data).digest(),
      verifyJwt: async (
        signer: { method: string; x5c: string[]; didUrl?: string },
        jwt: { compact: string },
      ) => {
        if (signer.method === "did" && signer.didUrl?.startsWith("did:web:")) {
          options.onDidResolved?.(signer.didUrl.split("#")[0]!);
          const jwk = await didWebKey(signer.didUrl);
          if (!jwk) return { verified: false };
          try {
            await compactVerify(jwt.compact, await importJWK(jwk, "ES256"));
            return { verified: true, signerJwk: jwk };
          } catch {
            return { verified: false };
          }
        }
        // did:jwk (decentralized_identifier): the DID itself holds the key; its one method is #0.
        if (signer.method === "did") {
          const [did, fragment] = (signer.didUrl ?? "").split("#");
          if (!did?.startsWith("did:jwk:") || fragment !== "0") return { verified: false };
          const jwk = JSON.parse(Buffer.from(did.slice("did:jwk:".length), "base64url").toString("utf8"));
          try {
            await compactVerify(jwt.compact, await importJWK(jwk, "ES256"));
            return { verified: true, signerJwk: jwk };
          } catch {
            return { verified: false };
          }
        }
        if (signer.method !== "x5c") return { verified: false };
        const leaf = await importX509(b64ToPem(signer.x5c[0]!), "ES256");
        try {
          await compactVerify(jwt.compact, leaf);
          const jwk = new X509Certificate(Buffer.from(signer.x5c[0]!, "base64")).publicKey.export({
            format: "jwk",
          });
          return { verified: true, signerJwk: jwk as never };
        } catch {
          return { verified: false };
        }
      },
      encryptJwe: async (encryptor: { publicJwk: { kid?: string }; enc: string }, data: string) => {
        const key = await importJWK(encryptor.publicJwk as never, "ECDH-ES");
        const jwe = await new CompactEncrypt(new TextEncoder().encode(data))
          .setProtectedHeader({ alg: "ECDH-ES", enc: encryptor.enc, kid: encryptor.publicJwk.kid })
          .encrypt(key);
        return { jwe, encryptionJwk: encryptor.publicJwk };
      },
      // Needed for x509_san_dns: the library checks the client_id against the leaf's dNSName SANs.
      getX509CertificateMetadata: (certificate: string) => {
        const cert = new X509Certificate(Buffer.from(certificate, "base64"));
        const names = (cert.subjectAltName ?? "").split(", ");
        return {
          sanDnsNames: names.filter((n) => n.startsWith("DNS:")).map((n) => n.slice(4)),
          sanUriNames: names.filter((n) => n.startsWith("URI:")).map((n) => n.slice(4)),
        };
      },
    } as never,
  });
}

/**
 * The wallet's answer to a resolved request, as oid4vc-ts builds and posts it: `vp_token` encrypted to the
 * verifier's key for `direct_post.jwt`, in the clear for `direct_post`. Returns the submission.
 */
export async function answerWithOid4vpTs(
  wallet: ReturnType<typeof oid4vpTsWallet>,
  request: { nonce: string; response_mode?: string },
  vpToken: Record<string, string[]>,
) {
  const response = await wallet.createOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: request as never,
    authorizationResponsePayload: { vp_token: vpToken } as never,
    ...(request.response_mode === "direct_post.jwt"
      ? {
          jarm: {
            encryption: { nonce: request.nonce },
            serverMetadata: {
              authorization_encryption_alg_values_supported: ["ECDH-ES"],
              authorization_encryption_enc_values_supported: ["A128GCM", "A256GCM"],
            } as never,
          },
        }
      : {}),
  });
  return wallet.submitOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: request as never,
    authorizationResponsePayload: response.authorizationResponsePayload,
    ...(response.jarm ? { jarm: { responseJwt: response.jarm.responseJwt } } : {}),
  } as never);
}

/** What oid4vc-ts made of an authorization request link: the client it resolved, the request and its DCQL query. */
export interface ResolvedWithOid4vpTs {
  client: { prefix: string; identifier?: string; effective?: string; didUrl?: string };
  request: Record<string, any>;
  query: { credentials: { id: string; meta?: Record<string, unknown> }[] } | undefined;
}

/** oid4vc-ts parses and resolves the link (`request_uri`, `request` or plain parameters) as a wallet would. */
export async function resolveWithOid4vpTs(
  wallet: ReturnType<typeof oid4vpTsWallet>,
  authorizationRequestUri: string,
): Promise<ResolvedWithOid4vpTs> {
  const parsed = wallet.parseOpenid4vpAuthorizationRequest({ authorizationRequest: authorizationRequestUri });
  const resolved = await wallet.resolveOpenId4vpAuthorizationRequest({
    authorizationRequestPayload: parsed.params as never,
  });
  return {
    client: resolved.client as ResolvedWithOid4vpTs["client"],
    request: resolved.authorizationRequestPayload as Record<string, any>,
    query: resolved.dcql?.query as ResolvedWithOid4vpTs["query"],
  };
}

/**
 * The holder answers a resolved request through oid4vc-ts: `credential` with `disclose` disclosed and a
 * KB-JWT for the request's client_id and nonce, under the first DCQL credential query's id.
 */
export async function presentWithOid4vpTs(
  wallet: ReturnType<typeof oid4vpTsWallet>,
  resolved: Pick<ResolvedWithOid4vpTs, "request" | "query">,
  holding: { credential: string; holderKey: CryptoKey },
  disclose: string[][] = [["given_name"], ["family_name"]],
) {
  const { request, query } = resolved;
  const presentation = await presentSdJwtVc(holding.credential, {
    disclose,
    kb: {
      privateKey: holding.holderKey,
      aud: request.client_id,
      nonce: request.nonce,
      iat: Math.floor(Date.now() / 1000),
    },
  });
  return answerWithOid4vpTs(wallet, request as never, { [query!.credentials[0]!.id]: [presentation] });
}

/** A server with an active issuer and one of its credentials held by a wallet, for the oid4vc-ts wallet tests. */
export interface HeldCredentialScene {
  t: TestServer;
  issuer: ActiveIssuer;
  credential: string;
  holderKey: CryptoKey;
  /** Creates the employee policy (`employeePolicyBody`) with the settings under test; expects 201. */
  createPolicy(identifier: string, rules: Record<string, unknown>): Promise<void>;
}

export async function heldCredentialScene(): Promise<HeldCredentialScene> {
  // The test server is plain-http loopback.
  setGlobalConfig({ allowInsecureUrls: true });
  const t = await startTestServer();
  const issuer = await activeIssuer(t, t.adminKey);
  const issued = await issueCredential(t, t.adminKey, issuer);
  return {
    t,
    issuer,
    credential: issued.credential,
    holderKey: issued.holder.privateKey,
    async createPolicy(identifier, rules) {
      const created = await call(t, "POST", "/management/verification-policies", {
        key: t.adminKey,
        body: employeePolicyBody(issuer, identifier, rules),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    },
  };
}
