// Verification across SD-JWT VC type inheritance (SD-JWT VC §7.6): a credential whose type extends a
// requested one, as its Type Metadata says, is of the requested type too.
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, issueCredential, policyTrusting, presentTo } from "./fixtures";
import { startTestServer, type TestServer } from "./harness";

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

/** A credential of type `vct` from its own issuer, presented to a policy asking for the base type. */
async function presentAsBaseType(vct: string, policy: string) {
  const sub = await activeIssuer(t, t.adminKey, { credentialType: vct });
  await policyTrusting(t, t.adminKey, policy, base, [{ issuerId: sub.issuerId }]);
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
});
