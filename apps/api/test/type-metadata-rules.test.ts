// The verifier holds a presented SD-JWT VC to its type's claim rules (SD-JWT VC §7.8.2 `sd`,
// `mandatory`): those of a platform configuration's own Type Metadata, or of the document fetched from
// the `vct` URL (checked against `vct#integrity`).
import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { runVerificationEngine } from "@cred/core/testing";
import { generateEs256KeyPair, issueSdJwtVc } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineSessionFor } from "./fixtures";
import { type VerifierState, verifierFixture } from "./fixtures/verifier";
import { call } from "./harness";

const { setUp, createPolicy, verifyWith, reasonCodes } = verifierFixture();
let world: VerifierState;

beforeAll(async () => {
  world = await setUp();
});
afterAll(() => world?.t.close());

describe("a platform configuration's own Type Metadata", () => {
  let vct: string;
  const policy = `typed-${Date.now().toString(36)}`;

  beforeAll(async () => {
    const config = await call(world.t, "POST", "/management/credential-configurations", {
      key: world.t.adminKey,
      body: {
        identifier: `typed-${Date.now().toString(36)}`,
        displayName: "Typed",
        issuerId: world.issuerA.issuerId,
        schemaId: "typed-v1",
        claims: [
          // selectively disclosable by default: `sd: always`
          { path: ["given_name"], type: "string", required: true },
          { path: ["employee_number"], type: "integer", required: true, selectivelyDisclosable: false },
        ],
      },
    });
    expect(config.status, JSON.stringify(config.body)).toBe(201);
    vct = config.body.data.credentialType;
    await createPolicy({
      identifier: policy,
      displayName: policy,
      purpose: "Typed",
      credentials: [
        {
          id: "pid",
          credentialTypes: [vct],
          trustedIssuers: [{ issuerId: world.issuerA.issuerId }],
          requiredClaims: [["given_name"]],
          optionalClaims: [["employee_number"]],
          checkStatus: false,
        },
      ],
    });
  });

  /** A credential of the configuration's type, signed with issuer A's key but not by its issuance. */
  const crafted = (claims: Record<string, unknown>, disclosable: string[][]) => {
    const now = Math.floor(Date.now() / 1000);
    return issueSdJwtVc({
      privateKey: world.issuerA.privateKey,
      kid: world.issuerA.kid,
      iss: world.issuerA.credentialIssuer,
      vct,
      iat: now,
      exp: now + 3600,
      cnfJwk: world.holder.publicJwk,
      claims,
      disclosable,
    });
  };

  it("verifies a credential that keeps the rules, with checks.typeMetadata passed", async () => {
    const credential = await crafted({ given_name: "Erika", employee_number: 7 }, [["given_name"]]);
    const { session } = await verifyWith(policy, { credential });
    expect(session.status, JSON.stringify(session.result)).toBe("verified");
    expect(session.result.credentials[0].checks.typeMetadata).toBe("passed");
  });

  it("refuses a claim in the clear that the type makes selectively disclosable", async () => {
    const credential = await crafted({ given_name: "Erika", employee_number: 7 }, []);
    const { session } = await verifyWith(policy, { credential });
    expect(session.status).toBe("rejected");
    expect(reasonCodes(session)).toContain("type_metadata_violation");
    const reason = session.result.reasons.find((r: { code: string }) => r.code === "type_metadata_violation");
    expect(reason.message).toContain('claim ["given_name"] must be selectively disclosable');
  });

  it("refuses a disclosed claim that the type never makes selectively disclosable", async () => {
    const credential = await crafted({ given_name: "Erika", employee_number: 7 }, [
      ["given_name"],
      ["employee_number"],
    ]);
    const { session } = await verifyWith(policy, { credential });
    expect(session.status).toBe("rejected");
    const reason = session.result.reasons.find((r: { code: string }) => r.code === "type_metadata_violation");
    expect(reason.message).toContain('claim ["employee_number"] must not be selectively disclosable');
  });

  it("refuses a credential missing a mandatory claim that cannot be withheld", async () => {
    const credential = await crafted({ given_name: "Erika" }, [["given_name"]]);
    const { session } = await verifyWith(policy, { credential });
    expect(session.status).toBe("rejected");
    const reason = session.result.reasons.find((r: { code: string }) => r.code === "type_metadata_violation");
    expect(reason.message).toContain('mandatory claim ["employee_number"] is missing');
  });
});

describe("Type Metadata fetched from the vct URL (engine, loopback servers allowed in development mode)", () => {
  let server: http.Server;
  let base: string;
  const routes = new Map<string, string>();
  let keys: Awaited<ReturnType<typeof generateEs256KeyPair>>;

  beforeAll(async () => {
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
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Publishes a type whose `given_name` must be selectively disclosable; its URL and SRI hash. */
  const publish = (name: string) => {
    const vct = `${base}/types/${name}`;
    const body = JSON.stringify({ vct, claims: [{ path: ["given_name"], sd: "always" }] });
    routes.set(`/types/${name}`, body);
    return { vct, integrity: `sha256-${createHash("sha256").update(body).digest("base64")}` };
  };

  const credentialOf = (vct: string, disclosable: string[][], vctIntegrity?: string) => {
    const now = Math.floor(Date.now() / 1000);
    return issueSdJwtVc({
      privateKey: keys.privateKey,
      kid: keys.publicJwk.kid!,
      iss: "https://external.example",
      vct,
      iat: now,
      exp: now + 3600,
      claims: { given_name: "Erika" },
      disclosable,
      ...(vctIntegrity ? { vctIntegrity } : {}),
    });
  };

  const session = (vct: string, acceptExtendedTypes: boolean) =>
    engineSessionFor(
      { tenantId: world.t.tenantId, environment: "sandbox" },
      { credentialTypes: [vct], trustedIssuers: [{ jwksUri: `${base}/jwks` }], acceptExtendedTypes },
    );

  const verify = async (vct: string, presentation: string, acceptExtendedTypes = false) =>
    runVerificationEngine(world.t.server.deps, session(vct, acceptExtendedTypes), { pid: [presentation] });

  it("applies the document a credential's vct#integrity names", async () => {
    const type = publish("committed");
    const ok = await verify(type.vct, await credentialOf(type.vct, [["given_name"]], type.integrity));
    expect(ok.outcome, JSON.stringify(ok.reasons)).toBe("verified");
    expect(ok.credentials[0]!.checks.typeMetadata).toBe("passed");
    const clear = await verify(type.vct, await credentialOf(type.vct, [], type.integrity));
    expect(clear.outcome).toBe("rejected");
    expect(clear.reasons?.map((r) => r.code)).toContain("type_metadata_violation");
  });

  it("refuses a credential whose vct#integrity does not match the document at its vct", async () => {
    const type = publish("tampered");
    const other = `sha256-${createHash("sha256").update("another document").digest("base64")}`;
    const result = await verify(type.vct, await credentialOf(type.vct, [["given_name"]], other));
    expect(result.outcome).toBe("rejected");
    expect(result.reasons?.map((r) => r.code)).toContain("type_metadata_integrity_mismatch");
  });

  it("fetches an uncommitted type's document only for a policy credential that reads Type Metadata", async () => {
    const type = publish("uncommitted");
    const clear = await credentialOf(type.vct, []);
    const ignored = await verify(type.vct, clear, false);
    expect(ignored.outcome, JSON.stringify(ignored.reasons)).toBe("verified");
    expect(ignored.credentials[0]!.checks.typeMetadata).toBe("skipped");
    const read = await verify(type.vct, clear, true);
    expect(read.outcome).toBe("rejected");
    expect(read.reasons?.map((r) => r.code)).toContain("type_metadata_violation");
  });

  it("skips the rules of a type whose document cannot be fetched", async () => {
    const vct = `${base}/types/missing`;
    const result = await verify(vct, await credentialOf(vct, []), true);
    expect(result.outcome, JSON.stringify(result.reasons)).toBe("verified");
    expect(result.credentials[0]!.checks.typeMetadata).toBe("skipped");
  });
});
