// The `decentralized_identifier` client identifier prefix (OpenID4VP 1.0 §5.9.3) with did:jwk: the
// client_id is the DID of the verifier key, the request object is signed with `kid` = its verification
// method (no `x5c`). A third-party wallet (oid4vc-ts) resolves the DID, accepts the request and its
// answer verifies the session.
import { type CryptoKey, decodeProtectedHeader } from "jose";
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
  await scene.createPolicy("did-jwk", {
    clientIdPrefix: "decentralized_identifier",
    dcApi: "signed_or_unsigned",
  });
});
afterAll(() => t?.close());

const start = (body: Record<string, unknown> = {}) =>
  call(t, "POST", "/v1.0/verifications", { key: t.adminKey, body: { policy: "did-jwk", ...body } });

describe("clientIdPrefix decentralized_identifier (did:jwk)", () => {
  it("oid4vc-ts resolves the DID-signed request (direct_post.jwt) and its answer verifies the session", async () => {
    const created = await start();
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const session = created.body.data;
    const clientId = new URL(session.authorizationRequestUri).searchParams.get("client_id")!;
    expect(clientId).toMatch(/^decentralized_identifier:did:jwk:[A-Za-z0-9_-]+$/);

    const resolved = await resolveWithOid4vpTs(wallet, session.authorizationRequestUri);
    expect(resolved.client.prefix).toBe("decentralized_identifier");
    expect(resolved.client.didUrl).toBe(`${clientId.split(":").slice(1).join(":")}#0`);
    expect(resolved.request.client_id).toBe(clientId);

    const submitted = await presentWithOid4vpTs(wallet, resolved, { credential, holderKey });
    expect(submitted.response.status).toBe(200);
    const read = await call(t, "GET", `/v1.0/verification-sessions/${session.id}`, { key: t.adminKey });
    expect(read.body.data.status).toBe("verified");
  });

  it("the request object names the DID's verification method in kid and carries no x5c", async () => {
    const session = (await start()).body.data;
    const jws = await (await fetch(session.requestUri)).text();
    const header = decodeProtectedHeader(jws);
    const clientId = new URL(session.authorizationRequestUri).searchParams.get("client_id")!;
    expect(header.kid).toBe(`${clientId.slice("decentralized_identifier:".length)}#0`);
    expect(header.x5c).toBeUndefined();
  });

  it("a signed Digital Credentials API request is signed by the DID too", async () => {
    const created = await start({ dcApi: { origins: ["https://shop.example.com"], signed: true } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const header = decodeProtectedHeader(created.body.data.dcApiRequest.data.request);
    expect(header.kid).toMatch(/^did:jwk:[A-Za-z0-9_-]+#0$/);
    expect(header.x5c).toBeUndefined();
  });

  it("400 for a client identifier prefix the platform does not offer (did:web)", async () => {
    const refused = await call(t, "POST", "/management/verification-policies", {
      key: t.adminKey,
      body: policyBody("did-web", { clientIdPrefix: "did_web" }),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("ValidationFailed");
  });
});
