// Interoperability: an independent OpenID4VP wallet library (oid4vc-ts, @openid4vc/openid4vp) resolves
// our signed request (x509_hash, x5c) and answers it unchanged, in direct_post.jwt and direct_post.
import { createHash, X509Certificate } from "node:crypto";
import { presentSdJwtVc } from "@cred/oid4vc";
import { setGlobalConfig } from "@openid4vc/oauth2";
import { Openid4vpClient } from "@openid4vc/openid4vp";
import { CompactEncrypt, type CryptoKey, compactVerify, importJWK, importX509 } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, VALID_CLAIMS } from "./fixtures";
import { call, startTestServer, type TestServer } from "./harness";
import { redeemOffer } from "./wallet-client";

let t: TestServer;
let issuer: ActiveIssuer;
let credential: string;
let holderKey: CryptoKey;

const b64urlToPem = (der: string) =>
  `-----BEGIN CERTIFICATE-----\n${Buffer.from(der, "base64")
    .toString("base64")
    .match(/.{1,64}/g)!
    .join("\n")}\n-----END CERTIFICATE-----`;

const wallet = new Openid4vpClient({
  callbacks: {
    fetch,
    hash: (data: Uint8Array, alg: string) => createHash(alg.replace("-", "")).update(data).digest(),
    verifyJwt: async (signer: any, jwt: { compact: string }) => {
      if (signer.method !== "x5c") return { verified: false };
      const leaf = await importX509(b64urlToPem(signer.x5c[0]!), "ES256");
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
    encryptJwe: async (encryptor: any, data: string) => {
      const key = await importJWK(encryptor.publicJwk as never, "ECDH-ES");
      const jwe = await new CompactEncrypt(new TextEncoder().encode(data))
        .setProtectedHeader({ alg: "ECDH-ES", enc: encryptor.enc, kid: encryptor.publicJwk.kid })
        .encrypt(key);
      return { jwe, encryptionJwk: encryptor.publicJwk };
    },
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

beforeAll(async () => {
  setGlobalConfig({ allowInsecureUrls: true });
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
  const tx = await call(t, "POST", "/v1.0/issuance-transactions", {
    key: t.adminKey,
    body: { credentialConfiguration: issuer.configuration, issuerId: issuer.issuerId, claims: VALID_CLAIMS },
  });
  const flow = await redeemOffer(tx.body.data.credentialOffer);
  credential = flow.credentialRes.body.credentials[0].credential;
  holderKey = flow.keys[0]!.privateKey;
});
afterAll(() => t?.close());

async function policy(responseMode: "direct_post" | "direct_post.jwt") {
  const identifier = `interop-${responseMode.replace(".", "-")}`;
  const r = await call(t, "POST", "/management/verification-policies", {
    key: t.adminKey,
    body: {
      identifier,
      displayName: "Interop",
      credentials: [
        {
          id: "employee",
          credentialTypes: [issuer.credentialType],
          trustedIssuers: [{ issuerId: issuer.issuerId }],
          requiredClaims: [["given_name"], ["family_name"]],
          optionalClaims: [],
        },
      ],
      responseMode,
    },
  });
  expect(r.status).toBe(201);
  return identifier;
}

describe.each(["direct_post.jwt", "direct_post"] as const)("oid4vc-ts wallet, %s", (responseMode) => {
  it("resolves the signed request and its answer verifies the session", async () => {
    const created = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      body: { policy: await policy(responseMode) },
    });
    expect(created.status).toBe(201);
    const session = created.body.data;

    const parsed = wallet.parseOpenid4vpAuthorizationRequest({
      authorizationRequest: session.authorizationRequestUri,
    });
    const resolved = await wallet.resolveOpenId4vpAuthorizationRequest({
      authorizationRequestPayload: parsed.params as never,
    });
    const request = resolved.authorizationRequestPayload as Record<string, any>;
    expect(resolved.client.prefix).toBe("x509_hash");
    expect(request.response_mode).toBe(responseMode);
    const query = resolved.dcql?.query as { credentials: { id: string; meta: { vct_values: string[] } }[] };
    expect(query.credentials[0]!.meta.vct_values).toEqual([issuer.credentialType]);

    const presentation = await presentSdJwtVc(credential, {
      disclose: [["given_name"], ["family_name"]],
      kb: {
        privateKey: holderKey,
        aud: request.client_id,
        nonce: request.nonce,
        iat: Math.floor(Date.now() / 1000),
      },
    });
    const response = await wallet.createOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: request as never,
      authorizationResponsePayload: { vp_token: { [query.credentials[0]!.id]: [presentation] } } as never,
      ...(responseMode === "direct_post.jwt"
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
    if (responseMode === "direct_post.jwt") expect(response.jarm?.responseJwt).toMatch(/^ey[^.]*\.\.|^ey/);
    const submitted = await wallet.submitOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: request as never,
      authorizationResponsePayload: response.authorizationResponsePayload,
      ...(response.jarm ? { jarm: { responseJwt: response.jarm.responseJwt } } : {}),
    } as never);
    expect(submitted.response.status).toBe(200);

    const read = await call(t, "GET", `/v1.0/verification-sessions/${session.id}`, { key: t.adminKey });
    expect(read.body.data.status).toBe("verified");
    const claims = read.body.data.result.credentials[0].claims;
    expect(claims).toEqual({ given_name: "Erika", family_name: "Mustermann" });
  });
});
