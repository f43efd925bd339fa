// Verification across SD-JWT VC type inheritance (SD-JWT VC §7.6): a credential whose type extends a
// requested one, as its Type Metadata says, is of the requested type too.
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createTestPresentation, verifyRequestObject } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, issueCredential, presentTo } from "./fixtures";
import { call, startTestServer, type TestServer } from "./harness";

let t: TestServer;
let base: ActiveIssuer;
let types: Server;
let typesUrl: string;
const documents = new Map<string, string>();

/** Serves a Type Metadata document at `/types/<name>`; returns its URL (the type) and its SRI hash. */
function publish(name: string, document: (vct: string) => Record<string, unknown>) {
  const vct = `${typesUrl}/types/${name}`;
  const body = JSON.stringify(document(vct));
  documents.set(`/types/${name}`, body);
  return { vct, integrity: `sha256-${createHash("sha256").update(body).digest("base64")}` };
}

beforeAll(async () => {
  t = await startTestServer();
  types = createServer((request, response) => {
    const body = documents.get(request.url ?? "");
    response.writeHead(body ? 200 : 404, { "content-type": "application/json" });
    response.end(body ?? "{}");
  });
  await new Promise<void>((resolve) => types.listen(0, "127.0.0.1", resolve));
  typesUrl = `http://127.0.0.1:${(types.address() as AddressInfo).port}`;
  base = await activeIssuer(t, t.adminKey);
});
afterAll(async () => {
  await t?.close();
  types?.close();
});

/**
 * A credential of type `vct` from its own issuer, presented to a policy asking for the base type
 * (following `extends` unless `acceptExtendedTypes` is false).
 */
async function presentAsBaseType(vct: string, policy: string, acceptExtendedTypes = true) {
  const sub = await activeIssuer(t, t.adminKey, { credentialType: vct });
  const created = await call(t, "POST", "/management/verification-policies", {
    key: t.adminKey,
    body: {
      identifier: policy,
      displayName: policy,
      purpose: "Test",
      credentials: [
        {
          id: "badge",
          credentialTypes: [base.credentialType],
          trustedIssuers: [{ issuerId: sub.issuerId }],
          requiredClaims: [["given_name"]],
          acceptExtendedTypes,
        },
      ],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.data.rules.credentials[0].acceptExtendedTypes).toBe(acceptExtendedTypes);
  // The wallet presents the subtype for the base type, as one that reads Type Metadata would.
  return presentTo(t, t.adminKey, policy, await issueCredential(t, t.adminKey, sub), { matchAnyType: true });
}

describe("type inheritance", () => {
  it("verifies a credential whose type extends the requested one, directly or through a chain", async () => {
    const direct = publish("employee-sub", (vct) => ({ vct, extends: base.credentialType }));
    expect((await presentAsBaseType(direct.vct, `inherit-direct-${Date.now()}`)).status).toBe("verified");
    const middle = publish("employee-middle", (vct) => ({ vct, extends: base.credentialType }));
    const leaf = publish("employee-leaf", (vct) => ({
      vct,
      extends: middle.vct,
      "extends#integrity": middle.integrity,
    }));
    expect((await presentAsBaseType(leaf.vct, `inherit-chain-${Date.now()}`)).status).toBe("verified");
  });

  it("does not follow extends unless the policy credential asks for it", async () => {
    const direct = publish("employee-not-followed", (vct) => ({ vct, extends: base.credentialType }));
    const rejected = await presentAsBaseType(direct.vct, `inherit-off-${Date.now()}`, false);
    expect(rejected.status).toBe("rejected");
    expect(rejected.result.reasons?.map((r) => r.code)).toContain("vct_mismatch");
  });

  it("takes nothing from a broken chain: a failed link, even above the type asked for, a cycle", async () => {
    const top = publish("broken-top", (vct) => ({ vct, extends: base.credentialType }));
    const middle = publish("broken-middle", (vct) => ({
      vct,
      extends: top.vct,
      "extends#integrity": `sha256-${createHash("sha256").update("not the document").digest("base64")}`,
    }));
    const leaf = publish("broken-leaf", (vct) => ({ vct, extends: middle.vct }));
    // The policy asks for the base type; the link from middle to top fails, so nothing of the chain counts.
    expect((await presentAsBaseType(leaf.vct, `inherit-broken-${Date.now()}`)).status).toBe("rejected");
    const a = `${typesUrl}/types/cycle-a`;
    publish("cycle-b", (vct) => ({ vct, extends: a }));
    publish("cycle-a", (vct) => ({ vct, extends: `${typesUrl}/types/cycle-b` }));
    const cyclic = publish("cycle-leaf", (vct) => ({ vct, extends: a }));
    expect((await presentAsBaseType(cyclic.vct, `inherit-cycle-${Date.now()}`)).status).toBe("rejected");
  });

  it("rejects a type that extends nothing requested, a chain whose integrity fails, and a document for another type", async () => {
    const unrelated = publish("unrelated", (vct) => ({ vct, extends: "https://types.example/other" }));
    const rejected = await presentAsBaseType(unrelated.vct, `inherit-none-${Date.now()}`);
    expect(rejected.status).toBe("rejected");
    expect(rejected.result.reasons?.map((r) => r.code)).toContain("vct_mismatch");

    const middle = publish("tampered-middle", (vct) => ({ vct, extends: base.credentialType }));
    const leaf = publish("tampered-leaf", (vct) => ({
      vct,
      extends: middle.vct,
      "extends#integrity": `sha256-${createHash("sha256").update("something else").digest("base64")}`,
    }));
    expect((await presentAsBaseType(leaf.vct, `inherit-tampered-${Date.now()}`)).status).toBe("rejected");

    const impostor = publish("impostor", () => ({
      vct: "https://types.example/not-this-one",
      extends: base.credentialType,
    }));
    expect((await presentAsBaseType(impostor.vct, `inherit-impostor-${Date.now()}`)).status).toBe("rejected");
  });

  it("routes a legacy submission to the policy credential its type extends, not to the first one", async () => {
    const other = await activeIssuer(t, t.adminKey);
    const direct = publish("submitted-sub", (vct) => ({ vct, extends: base.credentialType }));
    const sub = await activeIssuer(t, t.adminKey, { credentialType: direct.vct });
    const policy = `inherit-submit-${Date.now()}`;
    const created = await call(t, "POST", "/management/verification-policies", {
      key: t.adminKey,
      body: {
        identifier: policy,
        displayName: policy,
        credentials: [
          {
            id: "other",
            credentialTypes: [other.credentialType],
            trustedIssuers: [{ issuerId: other.issuerId }],
          },
          {
            id: "badge",
            credentialTypes: [base.credentialType],
            trustedIssuers: [{ issuerId: sub.issuerId }],
            requiredClaims: [["given_name"]],
            acceptExtendedTypes: true,
          },
        ],
        credentialSets: [{ options: [["other"], ["badge"]] }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const issued = await issueCredential(t, t.adminKey, sub);
    const session = (await call(t, "POST", "/v1.0/verifications", { key: t.adminKey, body: { policy } })).body
      .data;
    const clientId = new URL(session.authorizationRequestUri).searchParams.get("client_id")!;
    const { payload } = await verifyRequestObject(await (await fetch(session.requestUri)).text(), {
      clientId,
    });
    const sdJwtVc = await createTestPresentation({
      credential: issued.credential,
      disclose: (name) => name === "given_name",
      holderPrivateKey: issued.holder.privateJwk,
      aud: clientId,
      nonce: String(payload.nonce),
      iat: Math.floor(Date.now() / 1000),
    });
    const decided = await call(t, "POST", `/v1.0/verification-sessions/${session.id}/submissions`, {
      key: t.adminKey,
      body: { credentialId: issued.credentialId, sdJwtVc, audience: clientId },
    });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    expect(decided.body.data.status).toBe("verified");
  });
});
