import {
  answerDcApiRequest,
  decodeJwtUnverified,
  type Es256KeyPair,
  generateResponseEncryptionKey,
} from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifierFixture } from "./fixtures/verifier";
import { call, errorCode, type TestServer } from "./harness";

/**
 * OpenID4VP over the Digital Credentials API (Appendix A): Verifications_Create with `dcApi`, the page's
 * answer handed back through VerificationSessions_SubmitDcApiResponse, and each refusal.
 */

const ORIGIN = "https://shop.example.com";
let t: TestServer;
let holder: Es256KeyPair;
const { setUp, issue, policyBody, createPolicy, read, reasonCodes, events } = verifierFixture();

beforeAll(async () => {
  ({ t, holder } = await setUp());
  await createPolicy(policyBody("dc-any", { dcApi: "signed_or_unsigned" }));
  await createPolicy(policyBody("dc-plain", { responseMode: "direct_post", dcApi: "signed_or_unsigned" }));
  await createPolicy(policyBody("dc-signed", { dcApi: "signed" }));
  await createPolicy(policyBody("dc-off", { dcApi: "off" }));
});
afterAll(() => t?.close());

interface DcSession {
  id: string;
  status: string;
  dcApiRequest: { protocol: string; data: Record<string, unknown> };
}

async function startDc(policy: string, dcApi: Record<string, unknown>, key = t.adminKey) {
  return call(t, "POST", "/v1.0/verifications", { key, body: { policy, dcApi } });
}

async function started(policy: string, dcApi: Record<string, unknown>): Promise<DcSession> {
  const r = await startDc(policy, dcApi);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as DcSession;
}

function submit(id: string, body: unknown, key: string | null = t.adminKey) {
  return call(t, "POST", `/v1.0/verification-sessions/${id}/dc-api-responses`, {
    ...(key ? { key } : {}),
    body,
  });
}

async function answer(session: DcSession, credential: string, options: Record<string, unknown> = {}) {
  const { protocol, data } = await answerDcApiRequest({
    request: session.dcApiRequest,
    origin: ORIGIN,
    credential,
    holderPrivateKey: holder.privateJwk,
    ...options,
  });
  return { protocol, data };
}

const detailCode = (r: { body: { error?: { details?: { code: string }[] } } }) =>
  r.body.error?.details?.[0]?.code;

describe("Verifications_Create with dcApi", () => {
  it("signed (default): openid4vp-v1-signed, the request object with expected_origins, dc_api.jwt and the verifier's key", async () => {
    const session = await started("dc-any", { origins: [ORIGIN] });
    expect(session.dcApiRequest.protocol).toBe("openid4vp-v1-signed");
    const jws = session.dcApiRequest.data.request as string;
    const { header, payload } = decodeJwtUnverified(jws);
    expect(header.typ).toBe("oauth-authz-req+jwt");
    expect(Array.isArray(header.x5c)).toBe(true);
    expect(payload.client_id).toMatch(/^x509_hash:/);
    expect(payload.expected_origins).toEqual([ORIGIN]);
    expect(payload.response_mode).toBe("dc_api.jwt");
    expect(payload.response_type).toBe("vp_token");
    expect(payload).not.toHaveProperty("response_uri");
    expect(payload).not.toHaveProperty("state");
    const jwks = (payload.client_metadata as { jwks: { keys: { alg: string; use: string }[] } }).jwks;
    expect(jwks.keys[0]).toMatchObject({ alg: "ECDH-ES", use: "enc" });
    // The request_uri flow is not served for it.
    const read = await fetch(
      `${t.baseUrl}/verifier/requests/${new URL((await getSession(session.id)).requestUri).pathname.split("/").at(-1)}`,
    );
    expect(read.status).toBe(404);
  });

  it("unsigned: openid4vp-v1-unsigned, no client_id (A.2), dc_api for a direct_post policy", async () => {
    const session = await started("dc-plain", { origins: [ORIGIN], signed: false });
    expect(session.dcApiRequest.protocol).toBe("openid4vp-v1-unsigned");
    const data = session.dcApiRequest.data;
    expect(data).not.toHaveProperty("client_id");
    expect(data).not.toHaveProperty("expected_origins");
    expect(data.response_mode).toBe("dc_api");
    expect(typeof data.nonce).toBe("string");
    expect((data.dcql_query as { credentials: unknown[] }).credentials).toHaveLength(1);
  });

  it("400 when the policy demands signed requests or does not allow the DC API; 400 for a non-origin", async () => {
    const unsigned = await startDc("dc-signed", { origins: [ORIGIN], signed: false });
    expect(unsigned.status).toBe(400);
    expect(detailCode(unsigned)).toBe("DcApiSignedRequestRequired");
    const off = await startDc("dc-off", { origins: [ORIGIN] });
    expect(off.status).toBe(400);
    expect(detailCode(off)).toBe("DcApiNotAllowed");
    const path = await startDc("dc-any", { origins: ["https://shop.example.com/checkout"] });
    expect(path.status).toBe(400);
    expect(errorCode(path)).toBe("ValidationFailed");
  });

  it("403 without verification.execute", async () => {
    const readOnly = await t.key({ scopes: ["verification.read"] });
    expect((await startDc("dc-any", { origins: [ORIGIN] }, readOnly)).status).toBe(403);
  });
});

async function getSession(id: string) {
  const r = await call(t, "GET", `/v1.0/verification-sessions/${id}`, { key: t.adminKey });
  return r.body.data as { requestUri: string; dcApiRequest?: unknown; status: string };
}

describe("VerificationSessions_SubmitDcApiResponse", () => {
  for (const [label, policy, signed] of [
    ["dc_api.jwt signed", "dc-any", true],
    ["dc_api.jwt unsigned", "dc-any", false],
    ["dc_api signed", "dc-plain", true],
    ["dc_api unsigned", "dc-plain", false],
  ] as const) {
    it(`${label}: verified, claim-minimised, events as for direct_post`, async () => {
      const { credential } = await issue();
      const session = await started(policy, { origins: ["https://other.example", ORIGIN], signed });
      const r = await submit(session.id, await answer(session, credential));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data.status).toBe("verified");
      expect(r.body.data.result.credentials[0].claims).toEqual({
        given_name: "Erika",
        family_name: "Mustermann",
        age_over_18: true,
      });
      expect(r.body.data).not.toHaveProperty("dcApiRequest");
      expect(await events(session.id, "verification.session.verified")).toHaveLength(1);
      expect((await read(session.id)).status).toBe("verified");
    });
  }

  it("wrong origin: a presentation for another origin is rejected (unsigned: origin:<origin> audience)", async () => {
    const { credential } = await issue();
    const session = await started("dc-any", { origins: [ORIGIN], signed: false });
    const r = await submit(session.id, await answer(session, credential, { origin: "https://evil.example" }));
    expect(r.status).toBe(200);
    expect(r.body.data.status).toBe("rejected");
    expect(reasonCodes(r.body.data)).toContain("kb_audience_mismatch");
    expect(await events(session.id, "verification.session.rejected")).toHaveLength(1);
  });

  it("signed: the audience is origin:<origin> (A.4, also for signed requests), or the client_id as wallets on earlier drafts send it; another origin is rejected", async () => {
    const { credential } = await issue();
    const session = await started("dc-any", { origins: [ORIGIN] });
    const byOrigin = await submit(session.id, await answer(session, credential));
    expect(byOrigin.body.data.status, JSON.stringify(byOrigin.body)).toBe("verified");

    const clientId = String(
      decodeJwtUnverified(session.dcApiRequest.data.request as string).payload.client_id,
    );
    const legacy = await started("dc-any", { origins: [ORIGIN] });
    const byClientId = await submit(
      legacy.id,
      await answer(legacy, (await issue()).credential, { keyBindingOverrides: { aud: clientId } }),
    );
    expect(byClientId.body.data.status, JSON.stringify(byClientId.body)).toBe("verified");

    const other = await started("dc-any", { origins: [ORIGIN] });
    const r = await submit(
      other.id,
      await answer(other, (await issue()).credential, {
        keyBindingOverrides: { aud: "origin:https://evil.example" },
      }),
    );
    expect(r.body.data.status).toBe("rejected");
    expect(reasonCodes(r.body.data)).toContain("kb_audience_mismatch");
  });

  it("replay: the same response again → 409; a response made for another session (its nonce) is rejected", async () => {
    const { credential } = await issue();
    const session = await started("dc-any", { origins: [ORIGIN] });
    const response = await answer(session, credential);
    expect((await submit(session.id, response)).body.data.status).toBe("verified");
    const again = await submit(session.id, response);
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe("InvalidState");

    const first = await started("dc-plain", { origins: [ORIGIN], signed: false });
    const second = await started("dc-plain", { origins: [ORIGIN], signed: false });
    const other = await submit(second.id, await answer(first, credential));
    expect(other.body.data.status).toBe("rejected");
    expect(reasonCodes(other.body.data)).toContain("kb_nonce_mismatch");
  });

  it("400 for a JWE to the wrong key, an unencrypted dc_api.jwt answer, or another protocol; the session stays pending", async () => {
    const { credential } = await issue();
    const session = await started("dc-any", { origins: [ORIGIN] });
    const wrongKey = await submit(
      session.id,
      await answer(session, credential, { encryptTo: generateResponseEncryptionKey().publicJwk }),
    );
    expect(wrongKey.status).toBe(400);
    expect(detailCode(wrongKey)).toBe("ResponseNotDecryptable");
    const plain = await submit(session.id, {
      protocol: "openid4vp-v1-signed",
      data: { vp_token: { pid: ["x~"] } },
    });
    expect(plain.status).toBe(400);
    expect(detailCode(plain)).toBe("InvalidResponse");
    const protocol = await submit(session.id, {
      protocol: "openid4vp-v1-unsigned",
      data: (await answer(session, credential)).data,
    });
    expect(protocol.status).toBe(400);
    expect(detailCode(protocol)).toBe("ProtocolMismatch");
    expect((await read(session.id)).status).toBe("pending");
  });

  it("a wallet error (the holder declined) rejects the session with its reason", async () => {
    const session = await started("dc-any", { origins: [ORIGIN] });
    const r = await submit(session.id, {
      protocol: "openid4vp-v1-signed",
      data: { error: "access_denied", error_description: "declined" },
    });
    expect(r.body.data.status).toBe("rejected");
    expect(reasonCodes(r.body.data)).toEqual(["access_denied"]);
  });

  it("409 for a session not created for the DC API; 401, 403, 404 across tenants", async () => {
    const link = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      body: { policy: "dc-any" },
    });
    const body = { protocol: "openid4vp-v1-signed", data: { error: "access_denied" } };
    const notDc = await submit(link.body.data.id, body);
    expect(notDc.status).toBe(409);
    expect(detailCode(notDc)).toBe("NotDcApiSession");

    const session = await started("dc-any", { origins: [ORIGIN] });
    expect((await submit(session.id, body, null)).status).toBe(401);
    expect((await submit(session.id, body, await t.key({ scopes: ["verification.read"] }))).status).toBe(403);
    expect((await submit(session.id, body, (await t.otherTenant()).key)).status).toBe(404);
    expect((await submit("vs_unknown", body)).status).toBe(404);
    expect((await read(session.id)).status).toBe("pending");
  });
});
