import { answerDcApiRequest, type Es256KeyPair } from "@cred/oid4vc";
import { decodeProtectedHeader, flattenedVerify, generalVerify, importJWK, importX509 } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifierFixture } from "./fixtures/verifier";
import { call, errorCode, type TestServer } from "./harness";

/**
 * OpenID4VP 1.0 Appendix A.3.2 over the Digital Credentials API: Verifications_Create with
 * `dcApi.clientIdPrefixes` signs one request under several client identifiers
 * (`openid4vp-v1-multisigned`, JWS JSON Serialization), checked here with jose alone, and the page's
 * answer decides the session with the presentations' audience `origin:<origin>` (A.4).
 */

const ORIGIN = "https://shop.example.com";
const VERIFIER_INFO = [
  { format: "registration_cert", data: "eyJhbGciOiJFUzI1NiJ9.e30.sig" },
  { format: "example_attestation", data: { scheme: "test" } },
];
let t: TestServer;
let holder: Es256KeyPair;
const { setUp, issue, policyBody, createPolicy, read, reasonCodes, events } = verifierFixture();

beforeAll(async () => {
  ({ t, holder } = await setUp());
  await createPolicy(policyBody("multi-signed", { dcApi: "signed", verifierInfo: VERIFIER_INFO }));
  await createPolicy(policyBody("multi-plain", { responseMode: "direct_post", dcApi: "signed" }));
  await createPolicy(
    policyBody("multi-redirect", { responseMode: "direct_post", clientIdPrefix: "redirect_uri" }),
  );
});
afterAll(() => t?.close());

interface GeneralJws {
  payload: string;
  signatures: { protected: string; signature: string }[];
}
interface DcSession {
  id: string;
  dcApiRequest: { protocol: string; data: { request: GeneralJws } };
}

function startDc(policy: string, dcApi: Record<string, unknown>) {
  return call(t, "POST", "/v1.0/verifications", { key: t.adminKey, body: { policy, dcApi } });
}

async function started(policy: string, dcApi: Record<string, unknown>): Promise<DcSession> {
  const r = await startDc(policy, dcApi);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as DcSession;
}

function submit(id: string, body: unknown) {
  return call(t, "POST", `/v1.0/verification-sessions/${id}/dc-api-responses`, { key: t.adminKey, body });
}

const detailCode = (r: { body: { error?: { details?: { code: string }[] } } }) =>
  r.body.error?.details?.[0]?.code;
const asPem = (der: string) => `-----BEGIN CERTIFICATE-----\n${der}\n-----END CERTIFICATE-----`;

describe("Verifications_Create with dcApi.clientIdPrefixes (openid4vp-v1-multisigned)", () => {
  it("one payload without client_id or verifier_info, one signature per client identifier, each verified by jose", async () => {
    const session = await started("multi-signed", {
      origins: [ORIGIN, "https://other.example"],
      clientIdPrefixes: ["x509_hash", "decentralized_identifier"],
    });
    expect(session.dcApiRequest.protocol).toBe("openid4vp-v1-multisigned");
    const jws = session.dcApiRequest.data.request;
    expect(Object.keys(session.dcApiRequest.data)).toEqual(["request"]);
    expect(jws.signatures).toHaveLength(2);

    const payload = JSON.parse(Buffer.from(jws.payload, "base64url").toString("utf8"));
    expect(payload).toMatchObject({
      response_type: "vp_token",
      response_mode: "dc_api.jwt",
      expected_origins: [ORIGIN, "https://other.example"],
    });
    expect(payload).not.toHaveProperty("client_id");
    expect(payload).not.toHaveProperty("verifier_info");
    expect(payload).not.toHaveProperty("response_uri");
    expect(payload).not.toHaveProperty("state");
    expect(payload.client_metadata.jwks.keys[0]).toMatchObject({ alg: "ECDH-ES", use: "enc" });

    const [x509, did] = jws.signatures.map((s) => decodeProtectedHeader({ protected: s.protected } as never));
    expect(x509).toMatchObject({ alg: "ES256", typ: "oauth-authz-req+jwt" });
    expect(String(x509!.client_id)).toMatch(/^x509_hash:/);
    expect(x509!.verifier_info).toEqual(VERIFIER_INFO);
    expect(String(did!.client_id)).toMatch(/^decentralized_identifier:did:jwk:/);
    expect(did!.kid).toBe(`${String(did!.client_id).slice("decentralized_identifier:".length)}#0`);
    expect(did).not.toHaveProperty("x5c");
    // The registration certificate names the relying party by its X.509 access certificate: not under the DID.
    expect(did!.verifier_info).toEqual([VERIFIER_INFO[1]]);

    // Each signature verifies with the key its own header names: the x5c leaf, and the did:jwk's key.
    const leafKey = await importX509(asPem((x509!.x5c as string[])[0]!), "ES256");
    const didJwk = JSON.parse(
      Buffer.from(String(did!.kid).split("#")[0]!.slice("did:jwk:".length), "base64url").toString("utf8"),
    );
    const didKey = await importJWK(didJwk, "ES256");
    for (const [index, key] of [leafKey, didKey].entries()) {
      const one = { payload: jws.payload, ...jws.signatures[index]! };
      const verified = await flattenedVerify(one, key);
      expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual(payload);
    }
    expect((await generalVerify(jws, leafKey)).protectedHeader?.client_id).toBe(x509!.client_id);
    // A signature moved onto another payload does not verify.
    const other = await started("multi-signed", {
      origins: [ORIGIN],
      clientIdPrefixes: ["x509_hash", "decentralized_identifier"],
    });
    await expect(
      generalVerify(
        { payload: other.dcApiRequest.data.request.payload, signatures: jws.signatures },
        leafKey,
      ),
    ).rejects.toThrow();
  });

  it("400 for one prefix, a repeated one, or unsigned; 409 for x509_san_dns on an IP host; 400 under a redirect_uri policy", async () => {
    const one = await startDc("multi-signed", { origins: [ORIGIN], clientIdPrefixes: ["x509_hash"] });
    expect(one.status).toBe(400);
    const twice = await startDc("multi-signed", {
      origins: [ORIGIN],
      clientIdPrefixes: ["x509_hash", "x509_hash"],
    });
    expect(twice.status).toBe(400);
    const unsigned = await startDc("multi-plain", {
      origins: [ORIGIN],
      signed: false,
      clientIdPrefixes: ["x509_hash", "decentralized_identifier"],
    });
    expect(unsigned.status).toBe(400);
    expect(detailCode(unsigned)).toBe("MultiSignedNeedsSigned");
    // The test server's public host is 127.0.0.1: no dNSName can be it.
    const san = await startDc("multi-signed", {
      origins: [ORIGIN],
      clientIdPrefixes: ["x509_hash", "x509_san_dns"],
    });
    expect(san.status).toBe(409);
    expect(errorCode(san)).toBe("VerifierCertificateMismatch");
    const redirect = await startDc("multi-redirect", {
      origins: [ORIGIN],
      clientIdPrefixes: ["x509_hash", "decentralized_identifier"],
    });
    expect(redirect.status).toBe(400);
    expect(detailCode(redirect)).toBe("SignedRequestNeedsCertificate");
  });
});

describe("VerificationSessions_SubmitDcApiResponse for a multi-signed request", () => {
  for (const [mode, policy] of [
    ["dc_api.jwt", "multi-signed"],
    ["dc_api", "multi-plain"],
  ] as const) {
    it(`${mode}: a wallet that trusts the x509_hash signature answers with aud origin:<origin>; verified`, async () => {
      const { credential } = await issue();
      const session = await started(policy, {
        origins: [ORIGIN],
        clientIdPrefixes: ["decentralized_identifier", "x509_hash"],
      });
      const { protocol, data } = await answerDcApiRequest({
        request: session.dcApiRequest,
        origin: ORIGIN,
        credential,
        holderPrivateKey: holder.privateJwk,
      });
      const r = await submit(session.id, { protocol, data });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data.status).toBe("verified");
      expect(r.body.data.result.credentials[0].claims).toMatchObject({
        given_name: "Erika",
        age_over_18: true,
      });
      expect(await events(session.id, "verification.session.verified")).toHaveLength(1);
      expect((await submit(session.id, { protocol, data })).status).toBe(409);
    });
  }

  it("a presentation whose audience is one of the signed client_ids instead of the origin is rejected", async () => {
    const { credential } = await issue();
    const session = await started("multi-signed", {
      origins: [ORIGIN],
      clientIdPrefixes: ["x509_hash", "decentralized_identifier"],
    });
    const clientId = decodeProtectedHeader({
      protected: session.dcApiRequest.data.request.signatures[0]!.protected,
    } as never).client_id;
    const answered = await answerDcApiRequest({
      request: session.dcApiRequest,
      origin: ORIGIN,
      credential,
      holderPrivateKey: holder.privateJwk,
      keyBindingOverrides: { aud: clientId },
    });
    const r = await submit(session.id, { protocol: answered.protocol, data: answered.data });
    expect(r.body.data.status).toBe("rejected");
    expect(reasonCodes(r.body.data)).toContain("kb_audience_mismatch");
  });

  it("the test wallet refuses the request from an origin outside expected_origins", async () => {
    const { credential } = await issue();
    const session = await started("multi-signed", {
      origins: [ORIGIN],
      clientIdPrefixes: ["x509_hash", "decentralized_identifier"],
    });
    await expect(
      answerDcApiRequest({
        request: session.dcApiRequest,
        origin: "https://evil.example",
        credential,
        holderPrivateKey: holder.privateJwk,
      }),
    ).rejects.toThrow(/expected_origins/);
    expect((await read(session.id)).status).toBe("pending");
  });
});
