// Pinned Type Metadata (ADR 0026, extension `pinTypeMetadata` on CredentialConfigurations_Create): the
// document at the default `vct` is fixed at creation and every credential carries its `vct#integrity`
// (SD-JWT VC §5.3 / §6, W3C SRI: `sha256-` and the standard base64 digest of the octets served). The
// digest is recomputed here with node:crypto, not with the platform's own helper.
import { createHash } from "node:crypto";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ActiveIssuer,
  activeIssuer,
  EMPLOYEE_CLAIMS,
  issueCredential,
  policyTrusting,
  presentTo,
} from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

let t: TestServer;
let pinned: ActiveIssuer;
let plain: ActiveIssuer;

const CONFIGURATIONS = "/management/credential-configurations";
const sri = (octets: Buffer) => `sha256-${createHash("sha256").update(octets).digest("base64")}`;
const issuerJwtOf = (credential: string) => decodeJwt(credential.split("~")[0]!);
const served = async (vct: string) => {
  const response = await fetch(vct);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
};
const configuration = async (identifier: string) =>
  (await call(t, "GET", `${CONFIGURATIONS}/${identifier}`, { key: t.adminKey })).body.data;
const newVersion = (identifier: string, claims: unknown[]) =>
  call(t, "POST", `${CONFIGURATIONS}/${identifier}/versions`, {
    key: t.adminKey,
    body: { claims, reason: "test" },
  });

beforeAll(async () => {
  t = await startTestServer();
  [pinned, plain] = await Promise.all([
    activeIssuer(t, t.adminKey, { pinTypeMetadata: true }),
    activeIssuer(t, t.adminKey),
  ]);
});
afterAll(() => t?.close());

describe("a configuration created with pinTypeMetadata", () => {
  it("serves the pinned document and puts its SRI into every credential as vct#integrity", async () => {
    const integrity = (await configuration(pinned.configuration)).typeMetadataIntegrity;
    expect(integrity).toMatch(/^sha256-[A-Za-z0-9+/]{43}=$/);
    expect(sri(await served(pinned.credentialType))).toBe(integrity);

    const { credential } = await issueCredential(t, t.adminKey, pinned);
    const payload = issuerJwtOf(credential);
    expect(payload.vct).toBe(pinned.credentialType);
    expect(payload["vct#integrity"]).toBe(integrity);
  });

  it("our verifier accepts the credential, with the type's claim rules applied", async () => {
    await policyTrusting(t, t.adminKey, "pinned-type", pinned);
    const session = await presentTo(
      t,
      t.adminKey,
      "pinned-type",
      await issueCredential(t, t.adminKey, pinned),
    );
    expect(session.status, JSON.stringify(session.result)).toBe("verified");
    expect(
      (session.result as { credentials: { checks: Record<string, string> }[] }).credentials[0]!.checks
        .typeMetadata,
    ).toBe("passed");
  });

  it("a version changing only claim types and constraints is taken; the document and integrity stay", async () => {
    const before = await served(pinned.credentialType);
    const integrity = (await configuration(pinned.configuration)).typeMetadataIntegrity;
    const claims = EMPLOYEE_CLAIMS.map((claim) =>
      claim.path.join(".") === "address.country"
        ? { ...claim, constraints: { pattern: "^[A-Z]{2,3}$" } }
        : claim,
    );
    const created = await newVersion(pinned.configuration, claims);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.activeVersion).toBe(2);
    expect(created.body.data.typeMetadataIntegrity).toBe(integrity);
    expect((await served(pinned.credentialType)).equals(before)).toBe(true);
    const { credential } = await issueCredential(t, t.adminKey, pinned);
    expect(issuerJwtOf(credential)["vct#integrity"]).toBe(integrity);
  });

  it("409 TypeMetadataPinned for a version that adds a claim, relabels one, makes a mandatory one optional or changes sd; nothing is written", async () => {
    const versionsBefore = (await configuration(pinned.configuration)).versions.length;
    const refusals = [
      [...EMPLOYEE_CLAIMS, { path: ["department"], type: "string" }],
      EMPLOYEE_CLAIMS.map((c) =>
        c.path[0] === "birthdate" ? { ...c, display: [{ locale: "en", name: "Born" }] } : c,
      ),
      // given_name is mandatory in the pinned document; a version's credentials could lack it.
      EMPLOYEE_CLAIMS.map((c) => (c.path[0] === "given_name" ? { ...c, required: false } : c)),
      EMPLOYEE_CLAIMS.map((c) => (c.path[0] === "given_name" ? { ...c, selectivelyDisclosable: false } : c)),
    ];
    for (const claims of refusals) {
      const refused = await newVersion(pinned.configuration, claims);
      expect(refused.status, JSON.stringify(refused.body)).toBe(409);
      expect(refused.body.error.details[0]).toMatchObject({ code: "TypeMetadataPinned", target: "claims" });
      expect(refused.headers.get("x-ms-request-id")).toBeTruthy();
    }
    expect((await configuration(pinned.configuration)).versions.length).toBe(versionsBefore);
  });

  it("renaming the issuer leaves the pinned document as it was", async () => {
    const before = await served(pinned.credentialType);
    const renamed = await call(t, "PATCH", `/management/issuers/${pinned.issuerId}`, {
      key: t.adminKey,
      body: { displayName: "Renamed issuer" },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect((await served(pinned.credentialType)).equals(before)).toBe(true);
  });

  it("400 TypeMetadataNotServed with a credentialType of the caller's own; nothing is created", async () => {
    const refused = await call(t, "POST", CONFIGURATIONS, {
      key: t.adminKey,
      body: {
        identifier: "own-type-pinned",
        displayName: "Own type",
        issuerId: plain.issuerId,
        schemaId: "own-v1",
        credentialType: "https://types.example.com/own",
        pinTypeMetadata: true,
      },
    });
    expect(refused.status).toBe(400);
    expect(errorCode(refused)).toBe("ValidationFailed");
    expect(refused.body.error.details[0]).toMatchObject({
      code: "TypeMetadataNotServed",
      target: "pinTypeMetadata",
    });
    expect((await call(t, "GET", `${CONFIGURATIONS}/own-type-pinned`, { key: t.adminKey })).status).toBe(404);
  });

  it("400 for a pinTypeMetadata that is not a boolean", async () => {
    const refused = await call(t, "POST", CONFIGURATIONS, {
      key: t.adminKey,
      body: {
        identifier: "pin-malformed",
        displayName: "Malformed",
        issuerId: plain.issuerId,
        schemaId: "m-v1",
        pinTypeMetadata: "yes",
      },
    });
    expect(refused.status).toBe(400);
    expect(errorCode(refused)).toBe("ValidationFailed");
  });
});

describe("a configuration without pinTypeMetadata (the default)", () => {
  it("has no integrity and its credentials carry no vct#integrity", async () => {
    expect((await configuration(plain.configuration)).typeMetadataIntegrity).toBeNull();
    const { credential } = await issueCredential(t, t.adminKey, plain);
    expect(issuerJwtOf(credential)).not.toHaveProperty("vct#integrity");
  });
});
