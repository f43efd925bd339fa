import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, PRE_AUTHORIZED_CODE_GRANT } from "./fixtures";
import { call, startTestServer, type TestServer } from "./harness";
import { fetchJson, token, wellKnown } from "./wallet-client";

/** OpenID4VCI flow: the issuer's metadata, and its OAuth endpoints' answers for an unknown or draft issuer. */

let t: TestServer;
let issuer: ActiveIssuer;
const PRE_AUTH = PRE_AUTHORIZED_CODE_GRANT;

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
});
afterAll(() => t?.close());

describe("OpenID4VCI flow", () => {
  it("publishes the issuer's display with the member names of §12.2.4 (logo alt_text)", async () => {
    const display = [
      { locale: "en", name: "Acme", logo: { uri: "https://acme.example/en.png", altText: "Acme logo" } },
      { locale: "nl", name: "Acme NL", logo: { uri: "https://acme.example/nl.png" } },
    ];
    const patched = await call(t, "PATCH", `/management/issuers/${issuer.issuerId}`, {
      key: t.adminKey,
      body: { display },
    });
    expect(patched.status).toBe(200);
    const md = await fetchJson(wellKnown("openid-credential-issuer", issuer.credentialIssuer));
    expect(md.body.display).toEqual([
      { locale: "en", name: "Acme", logo: { uri: "https://acme.example/en.png", alt_text: "Acme logo" } },
      { locale: "nl", name: "Acme NL", logo: { uri: "https://acme.example/nl.png" } },
    ]);
  });

  it("answers an OAuth endpoint of an unknown or draft issuer in the OAuth shape a wallet parses", async () => {
    const base = `${t.baseUrl}/issuers/iss_unknown`;
    const tokenRes = await token(`${base}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": "x",
    });
    expect(tokenRes.status).toBe(400);
    expect(tokenRes.body).toMatchObject({ error: "invalid_grant" });
    expect(tokenRes.headers.get("cache-control")).toBe("no-store");
    const nonceRes = await fetchJson(`${base}/nonce`, { method: "POST" });
    expect(nonceRes.status).toBe(404);
    expect(nonceRes.body).toMatchObject({ error: "invalid_request" });
    for (const endpoint of ["credential", "notification"]) {
      const r = await fetchJson(`${base}/${endpoint}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer abc" },
        body: "{}",
      });
      expect(r.status, endpoint).toBe(401);
      expect(r.body, endpoint).toMatchObject({ error: "invalid_token" });
      expect(r.headers.get("www-authenticate"), endpoint).toMatch(/^Bearer error="invalid_token"/);
    }
    // The documents a browser or relying party reads stay 404 in the REST shape.
    const md = await fetchJson(wellKnown("openid-credential-issuer", base));
    expect(md.status).toBe(404);
    expect(md.body.error.code).toBe("NotFound");
  });

  it("answers JSON to a wallet that asks for signed metadata while the issuer has no certificate (§12.2.3)", async () => {
    // A JWT naming its key by kid alone is one no wallet can validate (and §12.2.3 has it reject
    // that): signed metadata needs x5c (tested in issuer-certificates.test.ts), so JSON it is.
    const url = wellKnown("openid-credential-issuer", issuer.credentialIssuer);
    const plain = await fetchJson(url);
    expect(plain.headers.get("content-type")).toMatch(/^application\/json/);
    expect(plain.headers.get("vary")).toMatch(/accept/i);
    for (const accept of ["application/jwt", "application/json;q=0.2, application/jwt"]) {
      const res = await fetchJson(url, { headers: { accept } });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get("content-type"), accept).toMatch(/^application\/json/);
      expect(res.headers.get("vary"), accept).toMatch(/accept/i);
      expect(res.body, accept).toEqual(plain.body);
    }
  });

  it("serves issuer and authorization server metadata by path insertion", async () => {
    const md = await fetchJson(wellKnown("openid-credential-issuer", issuer.credentialIssuer));
    expect(md.status).toBe(200);
    expect(md.body.credential_issuer).toBe(issuer.credentialIssuer);
    expect(md.body.credential_endpoint).toBe(`${issuer.credentialIssuer}/credential`);
    expect(md.body.nonce_endpoint).toBe(`${issuer.credentialIssuer}/nonce`);
    expect(md.body.batch_credential_issuance.batch_size).toBeGreaterThanOrEqual(2);
    const cfg = md.body.credential_configurations_supported[issuer.configuration];
    expect(cfg).toMatchObject({
      format: "dc+sd-jwt",
      vct: issuer.credentialType,
      scope: issuer.configuration,
      cryptographic_binding_methods_supported: ["jwk"],
      credential_signing_alg_values_supported: ["ES256"],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ["ES256"] } },
    });
    expect(cfg.credential_metadata.claims.map((c: { path: string[] }) => c.path)).toContainEqual([
      "address",
      "country",
    ]);
    const as = await fetchJson(wellKnown("oauth-authorization-server", issuer.credentialIssuer));
    expect(as.body).toMatchObject({
      issuer: issuer.credentialIssuer,
      token_endpoint: `${issuer.credentialIssuer}/token`,
      "pre-authorized_grant_anonymous_access_supported": true,
    });
    expect(as.body.grant_types_supported).toContain(PRE_AUTH);
  });
});
