import { X509Certificate } from "node:crypto";
import { compactVerify, decodeProtectedHeader } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { policyToDcqlQuery } from "./dcql";
import {
  authorizationRequestLink,
  type BuildAuthorizationRequestInput,
  buildAuthorizationRequest,
  generateNonce,
  generateState,
  InvalidAuthorizationRequestError,
  parseRequestUriPostBody,
  signRequestObject,
} from "./request-object";
import { generateResponseEncryptionKey } from "./response-encryption";
import { generateVerifierCertificate, type VerifierCertificate } from "./verifier-certificate";
import { verifyRequestObject } from "./verify-request-object";

const dcqlQuery = policyToDcqlQuery({
  credentials: [
    {
      id: "pid",
      credentialTypes: ["https://example.com/pid"],
      requiredClaims: [["given_name"]],
      optionalClaims: [],
      holderBindingRequired: true,
    },
  ],
  credentialSets: null,
});

let cert: VerifierCertificate;
beforeAll(async () => {
  cert = await generateVerifierCertificate({ dnsName: "verifier.example.org" });
});

function input(overrides: Partial<BuildAuthorizationRequestInput> = {}): BuildAuthorizationRequestInput {
  return {
    clientId: cert.clientIds.x509Hash,
    responseUri: "https://verifier.example.org/oid4vp/response/abc",
    responseMode: "direct_post",
    nonce: generateNonce(),
    state: generateState(),
    dcqlQuery,
    iat: 1_700_000_000,
    exp: 1_700_000_600,
    ...overrides,
  };
}

describe("nonce and state", () => {
  it("are ≥128-bit URL-safe random values", () => {
    const nonces = new Set(Array.from({ length: 100 }, generateNonce));
    expect(nonces.size).toBe(100);
    for (const n of nonces) {
      expect(n).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(n, "base64url").length).toBeGreaterThanOrEqual(16);
    }
    expect(generateState()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe("buildAuthorizationRequest", () => {
  it("builds a direct_post request object payload", () => {
    const i = input({ walletNonce: "qPmxiNFCR3QTm19POc8u" });
    expect(buildAuthorizationRequest(i)).toEqual({
      response_type: "vp_token",
      response_mode: "direct_post",
      client_id: cert.clientIds.x509Hash,
      response_uri: i.responseUri,
      nonce: i.nonce,
      state: i.state,
      dcql_query: dcqlQuery,
      client_metadata: {
        vp_formats_supported: {
          "dc+sd-jwt": { "sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"] },
        },
      },
      aud: "https://self-issued.me/v2",
      iat: 1_700_000_000,
      exp: 1_700_000_600,
      wallet_nonce: "qPmxiNFCR3QTm19POc8u",
    });
  });

  it("adds jwks and both enc values for direct_post.jwt (HAIP)", () => {
    const key = generateResponseEncryptionKey();
    const payload = buildAuthorizationRequest(
      input({ responseMode: "direct_post.jwt", encryptionJwk: key.publicJwk }),
    );
    expect(payload.client_metadata.jwks).toEqual({ keys: [key.publicJwk] });
    expect(payload.client_metadata.encrypted_response_enc_values_supported).toEqual(["A128GCM", "A256GCM"]);
    expect(payload).not.toHaveProperty("redirect_uri");
    expect(payload).not.toHaveProperty("wallet_nonce");
  });

  it.each([
    ["a short nonce", { nonce: "abc" }],
    ["a nonce with unsafe characters", { nonce: `${"a".repeat(30)} /` }],
    ["an unsafe state", { state: "a b" }],
    ["a client id without prefix", { clientId: "verifier" }],
    ["a relative response uri", { responseUri: "/response" }],
    ["exp before iat", { exp: 1 }],
    ["direct_post.jwt without key", { responseMode: "direct_post.jwt" as const }],
  ])("rejects %s", (_name, overrides) => {
    expect(() => buildAuthorizationRequest(input(overrides))).toThrow(InvalidAuthorizationRequestError);
  });

  it("rejects a private or incomplete encryption key", () => {
    const key = generateResponseEncryptionKey();
    const jwt = "direct_post.jwt" as const;
    expect(() =>
      buildAuthorizationRequest(input({ responseMode: jwt, encryptionJwk: key.privateJwk })),
    ).toThrow(/public/);
    expect(() =>
      buildAuthorizationRequest(
        input({ responseMode: jwt, encryptionJwk: { ...key.publicJwk, kid: undefined } }),
      ),
    ).toThrow(/kid/);
    expect(() =>
      buildAuthorizationRequest(
        input({ responseMode: jwt, encryptionJwk: { ...key.publicJwk, alg: "RSA-OAEP" } }),
      ),
    ).toThrow(/ECDH-ES/);
  });
});

describe("signRequestObject", () => {
  it("signs with ES256, typ oauth-authz-req+jwt and the x5c leaf", async () => {
    const payload = buildAuthorizationRequest(input());
    const jwt = await signRequestObject(payload, { privateKey: cert.privateKeyJwk, x5c: cert.x5c });
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: "ES256", typ: "oauth-authz-req+jwt", x5c: cert.x5c });
    const leaf = new X509Certificate(Buffer.from(cert.x5c[0]!, "base64"));
    const { payload: bytes } = await compactVerify(jwt, leaf.publicKey);
    expect(JSON.parse(Buffer.from(bytes).toString())).toEqual(payload);
  });

  it("passes the wallet-side checks for x509_hash and x509_san_dns", async () => {
    for (const clientId of [cert.clientIds.x509Hash, cert.clientIds.x509SanDns]) {
      const jwt = await signRequestObject(
        buildAuthorizationRequest(input({ clientId, iat: 0, exp: 4_000_000_000 })),
        {
          privateKey: cert.privateKeyJwk,
          x5c: cert.x5c,
        },
      );
      const verified = await verifyRequestObject(jwt, { clientId, trustedRootsPem: [cert.caCertificatePem] });
      expect(verified.payload.client_id).toBe(clientId);
    }
  });

  it("is refused by the wallet checks when tampered with", async () => {
    const other = await generateVerifierCertificate({ dnsName: "evil.example" });
    const payload = buildAuthorizationRequest(input({ iat: 0, exp: 4_000_000_000 }));
    const good = await signRequestObject(payload, { privateKey: cert.privateKeyJwk, x5c: cert.x5c });
    const clientId = cert.clientIds.x509Hash;
    // another client id outside
    await expect(verifyRequestObject(good, { clientId: other.clientIds.x509Hash })).rejects.toThrow(
      /client_id/,
    );
    // signed by another key than the x5c leaf
    const wrongKey = await signRequestObject(payload, { privateKey: other.privateKeyJwk, x5c: cert.x5c });
    await expect(verifyRequestObject(wrongKey, { clientId })).rejects.toThrow(/signature/);
    // x5c of another certificate: the hash no longer matches
    const swapped = await signRequestObject(payload, { privateKey: other.privateKeyJwk, x5c: other.x5c });
    await expect(verifyRequestObject(swapped, { clientId })).rejects.toThrow(/x509_hash/);
    // untrusted root
    await expect(
      verifyRequestObject(good, { clientId, trustedRootsPem: [other.caCertificatePem] }),
    ).rejects.toThrow(/trusted root/);
    // wallet_nonce not echoed
    await expect(verifyRequestObject(good, { clientId, walletNonce: "n" })).rejects.toThrow(/wallet_nonce/);
    // expired
    const expired = await signRequestObject(buildAuthorizationRequest(input()), {
      privateKey: cert.privateKeyJwk,
      x5c: cert.x5c,
    });
    await expect(verifyRequestObject(expired, { clientId })).rejects.toThrow(/expired/);
    // x509_san_dns with a response_uri on another host
    const sanDns = await signRequestObject(
      buildAuthorizationRequest(
        input({
          clientId: cert.clientIds.x509SanDns,
          responseUri: "https://elsewhere.example/r",
          exp: 4_000_000_000,
        }),
      ),
      { privateKey: cert.privateKeyJwk, x5c: cert.x5c },
    );
    await expect(verifyRequestObject(sanDns, { clientId: cert.clientIds.x509SanDns })).rejects.toThrow(
      /host/,
    );
    // x509_san_dns naming an IP address: not a DNS name, whatever the certificate says
    const ipClientId = "x509_san_dns:127.0.0.1";
    const sanIp = await signRequestObject(
      buildAuthorizationRequest(
        input({ clientId: ipClientId, responseUri: "https://127.0.0.1/r", exp: 4_000_000_000 }),
      ),
      { privateKey: cert.privateKeyJwk, x5c: cert.x5c },
    );
    await expect(verifyRequestObject(sanIp, { clientId: ipClientId })).rejects.toThrow(/not a DNS name/);
  });

  it("requires an x5c", async () => {
    await expect(signRequestObject({}, { privateKey: cert.privateKeyJwk, x5c: [] })).rejects.toThrow(/x5c/);
  });
});

describe("authorizationRequestLink", () => {
  it("builds the openid4vp:// link", () => {
    const link = authorizationRequestLink({
      clientId: "x509_hash:abc",
      requestUri: "https://verifier.example.org/oid4vp/request/1",
    });
    expect(link).toBe(
      "openid4vp://?client_id=x509_hash%3Aabc&request_uri=https%3A%2F%2Fverifier.example.org%2Foid4vp%2Frequest%2F1",
    );
    const url = new URL(link);
    expect(url.searchParams.get("client_id")).toBe("x509_hash:abc");
  });

  it("adds request_uri_method and supports other schemes", () => {
    expect(
      authorizationRequestLink({
        clientId: "c:x",
        requestUri: "https://v/r",
        requestUriMethod: "post",
        scheme: "haip-vp://",
      }),
    ).toBe("haip-vp://?client_id=c%3Ax&request_uri=https%3A%2F%2Fv%2Fr&request_uri_method=post");
    expect(
      authorizationRequestLink({
        clientId: "c:x",
        requestUri: "https://v/r",
        scheme: "https://wallet.example/authorize",
      }),
    ).toBe("https://wallet.example/authorize?client_id=c%3Ax&request_uri=https%3A%2F%2Fv%2Fr");
  });
});

describe("authorizationRequestLink with request_uri_method=post", () => {
  it("states the verifier's capabilities in client_metadata (§5.1), with enc values for direct_post.jwt", () => {
    const metadata = (responseMode: "direct_post" | "direct_post.jwt") =>
      JSON.parse(
        new URL(
          authorizationRequestLink({
            clientId: "c:x",
            requestUri: "https://v/r",
            requestUriMethod: "post",
            responseMode,
          }),
        ).searchParams.get("client_metadata")!,
      );
    const formats = { "dc+sd-jwt": { "sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"] } };
    expect(metadata("direct_post")).toEqual({ vp_formats_supported: formats });
    expect(metadata("direct_post.jwt")).toEqual({
      vp_formats_supported: formats,
      encrypted_response_enc_values_supported: ["A128GCM", "A256GCM"],
    });
  });
});

describe("parseRequestUriPostBody", () => {
  it("reads wallet_nonce and wallet_metadata", () => {
    expect(
      parseRequestUriPostBody(
        new URLSearchParams({ wallet_nonce: "qPmxiNFCR3QTm19POc8u", wallet_metadata: '{"a":1}' }),
      ),
    ).toEqual({ walletNonce: "qPmxiNFCR3QTm19POc8u", walletMetadata: { a: 1 } });
    expect(parseRequestUriPostBody({})).toEqual({});
    expect(parseRequestUriPostBody({ wallet_metadata: '{"issuer":"https://wallet.example"}' })).toEqual({
      walletMetadata: { issuer: "https://wallet.example" },
      walletIssuer: "https://wallet.example",
    });
    // Not only base64url: the EUDI reference wallet sends standard base64.
    expect(parseRequestUriPostBody({ wallet_nonce: "kxbJ//QQ/qheqcBnVzjZPg==" })).toEqual({
      walletNonce: "kxbJ//QQ/qheqcBnVzjZPg==",
    });
    expect(() => parseRequestUriPostBody({ wallet_nonce: "" })).toThrow();
    expect(() => parseRequestUriPostBody({ wallet_nonce: "n".repeat(2049) })).toThrow();
  });

  it("refuses a wallet_metadata that is not a JSON object (§5.10.1)", () => {
    for (const metadata of ["{", "", "not json", "[]", '"issuer"', "null", "42", "true"]) {
      expect(() => parseRequestUriPostBody({ wallet_metadata: metadata }), metadata).toThrow(
        InvalidAuthorizationRequestError,
      );
    }
    expect(parseRequestUriPostBody({ wallet_metadata: "{}" })).toEqual({ walletMetadata: {} });
  });
});
