// The `redirect_uri` client identifier prefix (OpenID4VP 1.0 §5.9.3): an unsigned request passed by value
// in the authorization request link, `direct_post` to the response URI that is the client_id. A
// third-party wallet (oid4vc-ts) resolves it and its answer verifies the session.
import type { CryptoKey } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, employeePolicyBody } from "./fixtures";
import { call, type TestServer } from "./harness";
import {
  heldCredentialScene,
  oid4vpTsWallet,
  presentWithOid4vpTs,
  resolveWithOid4vpTs,
} from "./oid4vp-ts-wallet";

let t: TestServer;
let issuer: ActiveIssuer;
let credential: string;
let holderKey: CryptoKey;
const wallet = oid4vpTsWallet();

const policyBody = (identifier: string, rules: Record<string, unknown>) =>
  employeePolicyBody(issuer, identifier, rules);

beforeAll(async () => {
  const scene = await heldCredentialScene();
  ({ t, issuer, credential, holderKey } = scene);
  await scene.createPolicy("redirect-uri", {
    responseMode: "direct_post",
    clientIdPrefix: "redirect_uri",
    dcApi: "signed_or_unsigned",
  });
});
afterAll(() => t?.close());

const start = (body: Record<string, unknown>) =>
  call(t, "POST", "/v1.0/verifications", { key: t.adminKey, body: { policy: "redirect-uri", ...body } });

describe("clientIdPrefix redirect_uri", () => {
  it("oid4vc-ts resolves the unsigned request by value and its answer verifies the session", async () => {
    const created = await start({});
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const session = created.body.data;
    const link = new URL(session.authorizationRequestUri);
    expect(link.searchParams.has("request_uri")).toBe(false);
    expect(link.searchParams.has("request")).toBe(false);
    const responseUri = link.searchParams.get("response_uri")!;
    expect(link.searchParams.get("client_id")).toBe(`redirect_uri:${responseUri}`);

    const resolved = await resolveWithOid4vpTs(wallet, session.authorizationRequestUri);
    expect(resolved.client.prefix).toBe("redirect_uri");
    expect(resolved.request.response_mode).toBe("direct_post");
    expect(resolved.query!.credentials[0]!.id).toBe("employee");

    const submitted = await presentWithOid4vpTs(wallet, resolved, { credential, holderKey });
    expect(submitted.response.status).toBe(200);

    const read = await call(t, "GET", `/v1.0/verification-sessions/${session.id}`, { key: t.adminKey });
    expect(read.body.data.status).toBe("verified");
    expect(read.body.data.result.credentials[0].claims).toEqual({
      given_name: "Erika",
      family_name: "Mustermann",
    });
  });

  it("the request_uri endpoint answers 404 invalid_request: the request is by value", async () => {
    const session = (await start({})).body.data;
    const fetched = await fetch(session.requestUri);
    expect(fetched.status).toBe(404);
    expect(((await fetched.json()) as { error: string }).error).toBe("invalid_request");
  });

  it("400 for a policy asking redirect_uri with an encrypted response mode", async () => {
    const refused = await call(t, "POST", "/management/verification-policies", {
      key: t.adminKey,
      body: policyBody("redirect-uri-jwt", {
        responseMode: "direct_post.jwt",
        clientIdPrefix: "redirect_uri",
      }),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("ValidationFailed");
    expect(JSON.stringify(refused.body.error.details)).toContain("clientIdPrefix");
  });

  it("400 for a signed Digital Credentials API request; an unsigned one uses the origin", async () => {
    const signed = await start({ dcApi: { origins: ["https://shop.example.com"], signed: true } });
    expect(signed.status).toBe(400);
    expect(signed.body.error.details[0].code).toBe("SignedRequestNeedsCertificate");
    const unsigned = await start({ dcApi: { origins: ["https://shop.example.com"], signed: false } });
    expect(unsigned.status, JSON.stringify(unsigned.body)).toBe(201);
    expect(unsigned.body.data.dcApiRequest.protocol).toBe("openid4vp-v1-unsigned");
  });
});
