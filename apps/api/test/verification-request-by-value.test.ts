// Verifications_Create `requestByValue`: the signed request object travels in the link (`request=`,
// RFC 9101 §5.1) instead of a request_uri, for short-lived same-device links. A third-party wallet
// (oid4vc-ts) verifies it and its answer verifies the session.
import { type CryptoKey, decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type TestServer } from "./harness";
import {
  heldCredentialScene,
  oid4vpTsWallet,
  presentWithOid4vpTs,
  resolveWithOid4vpTs,
} from "./oid4vp-ts-wallet";

let t: TestServer;
let credential: string;
let holderKey: CryptoKey;
const wallet = oid4vpTsWallet();

beforeAll(async () => {
  const scene = await heldCredentialScene();
  ({ t, credential, holderKey } = scene);
  await scene.createPolicy("by-value", { dcApi: "signed_or_unsigned" });
  await scene.createPolicy("by-value-did", { clientIdPrefix: "decentralized_identifier" });
  await scene.createPolicy("by-value-redirect", {
    clientIdPrefix: "redirect_uri",
    responseMode: "direct_post",
  });
});
afterAll(() => t?.close());

const start = (policy: string, body: Record<string, unknown> = {}) =>
  call(t, "POST", "/v1.0/verifications", { key: t.adminKey, body: { policy, ...body } });

describe("Verifications_Create requestByValue", () => {
  it("oid4vc-ts verifies the request object in the link (direct_post.jwt) and its answer verifies the session", async () => {
    const created = await start("by-value", { requestByValue: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const session = created.body.data;
    const link = new URL(session.authorizationRequestUri);
    expect(link.searchParams.has("request_uri")).toBe(false);
    const jws = link.searchParams.get("request")!;
    expect(decodeProtectedHeader(jws).x5c).toBeDefined();
    expect(decodeJwt(jws)).not.toHaveProperty("wallet_nonce");

    const resolved = await resolveWithOid4vpTs(wallet, session.authorizationRequestUri);
    expect(resolved.client.prefix).toBe("x509_hash");
    const submitted = await presentWithOid4vpTs(wallet, resolved, { credential, holderKey });
    expect(submitted.response.status).toBe(200);
    const read = await call(t, "GET", `/v1.0/verification-sessions/${session.id}`, { key: t.adminKey });
    expect(read.body.data.status).toBe("verified");
    // Decided: the link falls back to the request_uri form (whose endpoint answers 404 now).
    expect(new URL(read.body.data.authorizationRequestUri).searchParams.has("request")).toBe(false);
  });

  it("the link read back while pending is the same; without the option the link has a request_uri", async () => {
    const created = (await start("by-value", { requestByValue: true })).body.data;
    const read = await call(t, "GET", `/v1.0/verification-sessions/${created.id}`, { key: t.adminKey });
    expect(read.body.data.authorizationRequestUri).toBe(created.authorizationRequestUri);
    const plain = (await start("by-value")).body.data;
    const link = new URL(plain.authorizationRequestUri);
    expect(link.searchParams.has("request")).toBe(false);
    expect(link.searchParams.get("request_uri")).toBe(plain.requestUri);
  });

  it("a decentralized_identifier policy's request by value is signed by its DID", async () => {
    const created = await start("by-value-did", { requestByValue: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const resolved = await resolveWithOid4vpTs(wallet, created.body.data.authorizationRequestUri);
    expect(resolved.client.prefix).toBe("decentralized_identifier");
  });

  it("400 with dcApi, for a redirect_uri policy, and for a value that is not a boolean", async () => {
    const dc = await start("by-value", {
      requestByValue: true,
      dcApi: { origins: ["https://shop.example.com"], signed: true },
    });
    expect(dc.status).toBe(400);
    expect(dc.body.error.details[0].code).toBe("RequestByValueNotApplicable");
    const redirect = await start("by-value-redirect", { requestByValue: true });
    expect(redirect.status).toBe(400);
    expect(redirect.body.error.details[0].code).toBe("RequestByValueNotApplicable");
    const malformed = await start("by-value", { requestByValue: "yes" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("ValidationFailed");
  });
});
