import { beforeAll, describe, expect, it } from "vitest";
import {
  buildDcApiRequest,
  createDcApiRequest,
  DC_API_PROTOCOL_SIGNED,
  DC_API_PROTOCOL_UNSIGNED,
  originClientId,
  parseDcApiResponse,
  webOrigin,
} from "./dc-api";
import { answerDcApiRequest } from "./dc-api-test-wallet";
import { policyToDcqlQuery } from "./dcql";
import { generateNonce, InvalidAuthorizationRequestError } from "./request-object";
import {
  decryptDirectPostJwt,
  encryptDirectPostJwtResponse,
  generateResponseEncryptionKey,
} from "./response-encryption";
import { generateVerifierCertificate, type VerifierCertificate } from "./verifier-certificate";
import { verifyRequestObject } from "./verify-request-object";

/** OpenID4VP 1.0 Appendix A: requests and responses over the Digital Credentials API. */

const dcqlQuery = policyToDcqlQuery({
  credentials: [
    {
      id: "my_credential",
      credentialTypes: ["https://credentials.example.com/identity_credential"],
      requiredClaims: [["last_name"], ["first_name"]],
      optionalClaims: [],
      holderBindingRequired: true,
    },
  ],
  credentialSets: null,
});
const ORIGIN = "https://verifier.example.org";

let cert: VerifierCertificate;
beforeAll(async () => {
  cert = await generateVerifierCertificate({ dnsName: "verifier.example.org" });
});

describe("buildDcApiRequest (A.2, A.3)", () => {
  it("unsigned: the A.2 parameters only, no client_id, response_uri, state or request_uri", () => {
    const nonce = generateNonce();
    const payload = buildDcApiRequest({ responseMode: "dc_api", nonce, dcqlQuery });
    expect(payload).toEqual({
      response_type: "vp_token",
      response_mode: "dc_api",
      nonce,
      dcql_query: dcqlQuery,
      client_metadata: {
        vp_formats_supported: {
          "dc+sd-jwt": { "sd-jwt_alg_values": ["ES256"], "kb-jwt_alg_values": ["ES256"] },
        },
      },
    });
  });

  it("dc_api.jwt: the per-request ECDH-ES key in client_metadata.jwks and the enc values (as direct_post.jwt)", () => {
    const key = generateResponseEncryptionKey();
    const payload = buildDcApiRequest({
      responseMode: "dc_api.jwt",
      nonce: generateNonce(),
      dcqlQuery,
      encryptionJwk: key.publicJwk,
    });
    expect(payload.client_metadata.jwks?.keys).toEqual([key.publicJwk]);
    expect(payload.client_metadata.encrypted_response_enc_values_supported).toEqual(["A128GCM", "A256GCM"]);
    expect(() =>
      buildDcApiRequest({ responseMode: "dc_api.jwt", nonce: generateNonce(), dcqlQuery }),
    ).toThrow(InvalidAuthorizationRequestError);
    expect(() =>
      buildDcApiRequest({
        responseMode: "dc_api.jwt",
        nonce: generateNonce(),
        dcqlQuery,
        encryptionJwk: key.privateJwk,
      }),
    ).toThrow(/public key/);
  });

  it("refuses other response modes and short nonces", () => {
    expect(() =>
      buildDcApiRequest({ responseMode: "direct_post" as never, nonce: generateNonce(), dcqlQuery }),
    ).toThrow(/response mode/);
    expect(() => buildDcApiRequest({ responseMode: "dc_api", nonce: "n-0S6_WzA2Mj", dcqlQuery })).toThrow(
      /nonce/,
    );
  });

  it("signed (A.3.2): openid4vp-v1-signed with { request }, a JAR carrying client_id and expected_origins", async () => {
    const request = await createDcApiRequest(
      {
        responseMode: "dc_api",
        nonce: generateNonce(),
        dcqlQuery,
        signed: { clientId: cert.clientIds.x509Hash, expectedOrigins: [ORIGIN], iat: 1, exp: 4_000_000_000 },
      },
      { privateKey: cert.privateKeyJwk, x5c: cert.x5c },
    );
    expect(request.protocol).toBe(DC_API_PROTOCOL_SIGNED);
    const jws = (request.data as { request: string }).request;
    const { payload } = await verifyRequestObject(jws, {
      clientId: cert.clientIds.x509Hash,
      now: new Date(2_000_000_000_000),
    });
    expect(payload.expected_origins).toEqual([ORIGIN]);
    expect(payload.client_id).toBe(cert.clientIds.x509Hash);
    expect(payload.response_mode).toBe("dc_api");
    expect(payload).not.toHaveProperty("response_uri");
  });

  it("signed needs expected_origins and a prefixed client_id other than origin:", () => {
    const base = { responseMode: "dc_api" as const, nonce: generateNonce(), dcqlQuery };
    expect(() =>
      buildDcApiRequest({
        ...base,
        signed: { clientId: cert.clientIds.x509Hash, expectedOrigins: [], iat: 1, exp: 2 },
      }),
    ).toThrow(/expected_origins/);
    expect(() =>
      buildDcApiRequest({
        ...base,
        signed: { clientId: originClientId(ORIGIN), expectedOrigins: [ORIGIN], iat: 1, exp: 2 },
      }),
    ).toThrow(/origin:/);
  });

  it("unsigned createDcApiRequest: openid4vp-v1-unsigned with the parameters as data", async () => {
    const request = await createDcApiRequest({ responseMode: "dc_api", nonce: generateNonce(), dcqlQuery });
    expect(request.protocol).toBe(DC_API_PROTOCOL_UNSIGNED);
    expect(request.data).toHaveProperty("dcql_query");
  });
});

describe("webOrigin and origin: client identifiers", () => {
  it("accepts origins, refuses paths, queries, user info and other schemes", () => {
    expect(webOrigin("https://Shop.Example.com")).toBe("https://shop.example.com");
    expect(webOrigin("http://localhost:3000")).toBe("http://localhost:3000");
    expect(webOrigin("https://shop.example.com:443")).toBe("https://shop.example.com");
    for (const bad of [
      "https://a.example/path",
      "https://a.example/",
      "https://a.example?x=1",
      "ftp://a.example",
      "x",
    ])
      expect(() => webOrigin(bad), bad).toThrow(InvalidAuthorizationRequestError);
    expect(originClientId(ORIGIN)).toBe("origin:https://verifier.example.org");
  });
});

describe("parseDcApiResponse (A.4)", () => {
  // The A.4 example response: a vp_token keyed by the DCQL credential query id.
  const example = { vp_token: { my_credential: ["eyJhbGci...QMA"] } };
  const noDecrypt = async () => {
    throw new Error("not expected");
  };

  it("dc_api: the vp_token object as the page received it (object or JSON string)", async () => {
    for (const data of [example, JSON.stringify(example)]) {
      const parsed = await parseDcApiResponse(data, { responseMode: "dc_api", decrypt: noDecrypt });
      expect(parsed).toMatchObject({ kind: "vp_token", vpToken: example.vp_token, encrypted: false });
    }
  });

  it("dc_api.jwt: { response } decrypted with the request's key; a plain vp_token refused", async () => {
    const key = generateResponseEncryptionKey();
    const response = await encryptDirectPostJwtResponse(example, key.publicJwk);
    const parsed = await parseDcApiResponse(
      { response },
      { responseMode: "dc_api.jwt", decrypt: (jwe) => decryptDirectPostJwt(jwe, key.privateJwk) },
    );
    expect(parsed).toMatchObject({ kind: "vp_token", vpToken: example.vp_token, encrypted: true });
    await expect(
      parseDcApiResponse(example, { responseMode: "dc_api.jwt", decrypt: noDecrypt }),
    ).rejects.toThrow(/must be encrypted/);
    await expect(
      parseDcApiResponse({ response }, { responseMode: "dc_api", decrypt: noDecrypt }),
    ).rejects.toThrow(/not requested/);
    const other = generateResponseEncryptionKey();
    await expect(
      parseDcApiResponse(
        { response },
        { responseMode: "dc_api.jwt", decrypt: (jwe) => decryptDirectPostJwt(jwe, other.privateJwk) },
      ),
    ).rejects.toThrow(/kid|decrypt/);
  });

  it("a wallet error in either mode; malformed data refused", async () => {
    const parsed = await parseDcApiResponse(
      { error: "access_denied" },
      { responseMode: "dc_api.jwt", decrypt: noDecrypt },
    );
    expect(parsed).toMatchObject({ kind: "error", error: "access_denied" });
    for (const bad of [null, [], "not json", {}, { vp_token: { my_credential: [] } }]) {
      await expect(parseDcApiResponse(bad, { responseMode: "dc_api", decrypt: noDecrypt })).rejects.toThrow();
    }
  });
});

describe("answerDcApiRequest (test wallet)", () => {
  it("refuses a signed request from an origin outside expected_origins", async () => {
    const request = await createDcApiRequest(
      {
        responseMode: "dc_api",
        nonce: generateNonce(),
        dcqlQuery,
        signed: {
          clientId: cert.clientIds.x509Hash,
          expectedOrigins: [ORIGIN],
          iat: Math.floor(Date.now() / 1000),
          exp: Math.floor(Date.now() / 1000) + 60,
        },
      },
      { privateKey: cert.privateKeyJwk, x5c: cert.x5c },
    );
    await expect(
      answerDcApiRequest({
        request,
        origin: "https://evil.example",
        credential: [],
        holderPrivateKey: cert.privateKeyJwk,
      }),
    ).rejects.toThrow(/expected_origins/);
  });
});
