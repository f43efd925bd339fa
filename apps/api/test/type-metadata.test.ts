// SD-JWT VC Type Metadata (SD-JWT VC §7) served at the default `vct` URL of a credential configuration,
// so that wallets and verifiers that resolve types by URL get labels, mandatory and sd per claim.
import { decodeJwtUnverified } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, EMPLOYEE_CLAIMS, issueCredential } from "./fixtures";
import { call, startTestServer, type TestServer } from "./harness";
import { fetchJson } from "./wallet-client";

let t: TestServer;
let issuer: ActiveIssuer;

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey, {
    claims: [
      {
        ...EMPLOYEE_CLAIMS[0],
        display: [
          { locale: "en", name: "Given name" },
          { locale: "de", name: "Vorname" },
        ],
      },
      ...EMPLOYEE_CLAIMS.slice(1),
    ],
  });
});
afterAll(() => t?.close());

describe("SD-JWT VC Type Metadata", () => {
  it("is served at the vct of issued credentials, with each claim's labels, mandatory and sd", async () => {
    const { credential } = await issueCredential(t, t.adminKey, issuer);
    const vct = (decodeJwtUnverified(credential.split("~")[0]!).payload as { vct: string }).vct;
    expect(vct).toBe(issuer.credentialType);
    expect(vct).toBe(`${issuer.credentialIssuer}/credentials/${issuer.configuration}`);
    const r = await fetchJson(vct);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.headers.get("cache-control")).toBe("max-age=300");
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.body).toMatchObject({ vct, name: "Employee badge" });
    expect(r.body.claims).toEqual([
      {
        path: ["given_name"],
        display: [
          { locale: "en", label: "Given name" },
          { locale: "de", label: "Vorname" },
        ],
        mandatory: true,
        sd: "always",
      },
      { path: ["family_name"], mandatory: true, sd: "always" },
      { path: ["birthdate"], mandatory: false, sd: "always" },
      { path: ["employee_number"], mandatory: false, sd: "never" },
      { path: ["address"], mandatory: false, sd: "always" },
      { path: ["address", "country"], mandatory: false, sd: "always" },
    ]);
  });

  it("is not served for an unknown configuration, one with its own vct, or one of another issuer", async () => {
    expect((await fetchJson(`${issuer.credentialIssuer}/credentials/nope`)).status).toBe(404);
    const custom = await activeIssuer(t, t.adminKey, { credentialType: "https://types.example/badge" });
    const atDefault = await fetchJson(`${custom.credentialIssuer}/credentials/${custom.configuration}`);
    expect([atDefault.status, atDefault.body.error.code]).toEqual([404, "NotFound"]);
    const other = await activeIssuer(t, t.adminKey);
    expect((await fetchJson(`${other.credentialIssuer}/credentials/${issuer.configuration}`)).status).toBe(
      404,
    );
  });

  it("is not served by a draft issuer", async () => {
    const org = await call(t, "POST", "/management/organisations", {
      key: t.adminKey,
      body: { reference: `org-tm-${Date.now()}`, displayName: "Type metadata org" },
    });
    const draft = await call(t, "POST", "/management/issuers", {
      key: t.adminKey,
      body: { organisationReference: org.body.data.reference, displayName: "Draft issuer" },
    });
    const configuration = await call(t, "POST", "/management/credential-configurations", {
      key: t.adminKey,
      body: {
        identifier: `draft-${Date.now()}`,
        displayName: "Draft badge",
        issuerId: draft.body.data.id,
        schemaId: "x",
        claims: EMPLOYEE_CLAIMS,
      },
    });
    expect(configuration.status).toBe(201);
    expect((await fetchJson(configuration.body.data.credentialType)).status).toBe(404);
  });
});
