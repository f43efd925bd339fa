// The verifier applies the claim rules (`sd`, `mandatory`) of a credential's type together with those of
// every type it `extends` (SD-JWT VC "Extending Claim Metadata"), each document fetched through the
// outbound guard and checked against the integrity value naming it; a cycle, a chain too long or a type
// relaxing the one it extends rejects the presentation.
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { runVerificationEngine } from "@cred/core/testing";
import { generateEs256KeyPair, issueSdJwtVc } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineSessionFor } from "./fixtures";
import { type VerifierState, verifierFixture } from "./fixtures/verifier";

const { setUp } = verifierFixture();
let world: VerifierState;
let server: http.Server;
let base: string;
const routes = new Map<string, string>();
let keys: Awaited<ReturnType<typeof generateEs256KeyPair>>;

beforeAll(async () => {
  world = await setUp();
  server = http.createServer((req, res) => {
    const body = routes.get(req.url ?? "");
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  keys = await generateEs256KeyPair();
  routes.set("/jwks", JSON.stringify({ keys: [keys.publicJwk] }));
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await world?.t.close();
});

const sri = (body: string) => `sha256-${createHash("sha256").update(body).digest("base64")}`;
const typeUrl = (name: string) => `${base}/types/${name}`;

/** Serves the Type Metadata of `name`; returns its vct and the integrity of exactly what is served. */
function serve(name: string, document: Record<string, unknown>) {
  const vct = typeUrl(name);
  const body = JSON.stringify({ vct, ...document });
  routes.set(`/types/${name}`, body);
  return { vct, integrity: sri(body) };
}

const credentialOf = (
  vct: string,
  claims: Record<string, unknown>,
  disclosable: string[][],
  vctIntegrity: string,
) => {
  const now = Math.floor(Date.now() / 1000);
  return issueSdJwtVc({
    privateKey: keys.privateKey,
    kid: keys.publicJwk.kid!,
    iss: "https://external.example",
    vct,
    iat: now,
    exp: now + 3600,
    claims,
    disclosable,
    vctIntegrity,
  });
};

async function verify(
  type: { vct: string; integrity: string },
  claims: Record<string, unknown>,
  disclosable: string[][],
) {
  const session = engineSessionFor(
    { tenantId: world.t.tenantId, environment: "sandbox" },
    { credentialTypes: [type.vct], trustedIssuers: [{ jwksUri: `${base}/jwks` }] },
  );
  const presentation = await credentialOf(type.vct, claims, disclosable, type.integrity);
  return runVerificationEngine(world.t.server.deps, session, { pid: [presentation] });
}
const codes = (result: { reasons?: { code: string }[] }) => result.reasons?.map((r) => r.code) ?? [];
const message = (result: { reasons?: { code: string; message: string }[] }, code: string) =>
  result.reasons?.find((r) => r.code === code)?.message ?? "";

describe("claim rules through extends", () => {
  it("a rule of the extended type holds for the extending type's credentials (sd: always inherited)", async () => {
    const parent = serve("person", { claims: [{ path: ["given_name"], sd: "always" }] });
    const child = serve("employee", {
      extends: parent.vct,
      "extends#integrity": parent.integrity,
      claims: [{ path: ["employee_number"], sd: "never" }],
    });
    const ok = await verify(child, { given_name: "Erika", employee_number: 7 }, [["given_name"]]);
    expect(ok.outcome, JSON.stringify(ok.reasons)).toBe("verified");
    expect(ok.credentials[0]!.checks.typeMetadata).toBe("passed");
    // given_name in the clear: the child says nothing about it, the parent requires it disclosable.
    const clear = await verify(child, { given_name: "Erika", employee_number: 7 }, []);
    expect(clear.outcome).toBe("rejected");
    expect(message(clear, "type_metadata_violation")).toContain(
      'claim ["given_name"] must be selectively disclosable',
    );
  });

  it("an extending type may tighten (allowed → never, optional → mandatory) and its rule applies", async () => {
    const parent = serve("base-tighten", { claims: [{ path: ["badge"] }] });
    const child = serve("child-tighten", {
      extends: parent.vct,
      claims: [{ path: ["badge"], sd: "never", mandatory: true }],
    });
    const missing = await verify(child, { given_name: "Erika" }, []);
    expect(missing.outcome).toBe("rejected");
    expect(message(missing, "type_metadata_violation")).toContain('mandatory claim ["badge"] is missing');
  });

  it("rejects an extending type that relaxes sd or mandatory of the type it extends (type_metadata_invalid)", async () => {
    const parent = serve("base-strict", {
      claims: [{ path: ["given_name"], sd: "always", mandatory: true }],
    });
    const child = serve("child-loose", {
      extends: parent.vct,
      "extends#integrity": parent.integrity,
      claims: [{ path: ["given_name"], sd: "allowed", mandatory: false }],
    });
    const result = await verify(child, { given_name: "Erika" }, [["given_name"]]);
    expect(result.outcome).toBe("rejected");
    expect(codes(result)).toContain("type_metadata_invalid");
    expect(message(result, "type_metadata_invalid")).toContain("changes sd from always to allowed");
  });

  it("rejects a cycle of extends (SD-JWT VC: consumers MUST detect it and reject the credential)", async () => {
    serve("cycle-b", { extends: typeUrl("cycle-a"), claims: [] });
    const a = serve("cycle-a", { extends: typeUrl("cycle-b"), claims: [] });
    const result = await verify(a, { given_name: "Erika" }, [["given_name"]]);
    expect(result.outcome).toBe("rejected");
    expect(codes(result)).toContain("type_metadata_invalid");
    expect(message(result, "type_metadata_invalid")).toContain("extends itself");
  });

  it("rejects a chain longer than five links", async () => {
    serve("deep-6", { claims: [] });
    for (let i = 5; i >= 1; i--) serve(`deep-${i}`, { extends: typeUrl(`deep-${i + 1}`) });
    const top = serve("deep-0", { extends: typeUrl("deep-1") });
    const result = await verify(top, { given_name: "Erika" }, [["given_name"]]);
    expect(codes(result)).toContain("type_metadata_invalid");
    // Five links are fine.
    const five = await verify(serve("deep-five", { extends: typeUrl("deep-2") }), { given_name: "E" }, [
      ["given_name"],
    ]);
    expect(five.outcome, JSON.stringify(five.reasons)).toBe("verified");
  });

  it("rejects an extended document that does not match extends#integrity", async () => {
    const parent = serve("base-changed", { claims: [{ path: ["given_name"], sd: "always" }] });
    const child = serve("child-pinned", {
      extends: parent.vct,
      "extends#integrity": sri("the document as it was when the child was published"),
    });
    const result = await verify(child, { given_name: "Erika" }, [["given_name"]]);
    expect(result.outcome).toBe("rejected");
    expect(codes(result)).toContain("type_metadata_integrity_mismatch");
    expect(message(result, "type_metadata_integrity_mismatch")).toContain("extends#integrity");
  });

  it("uses no rules when a document of the chain cannot be fetched (processed completely or not at all)", async () => {
    const child = serve("orphan", {
      extends: typeUrl("gone"),
      claims: [{ path: ["given_name"], sd: "never" }],
    });
    const result = await verify(child, { given_name: "Erika" }, [["given_name"]]);
    expect(result.outcome, JSON.stringify(result.reasons)).toBe("verified");
    expect(result.credentials[0]!.checks.typeMetadata).toBe("skipped");
  });
});
