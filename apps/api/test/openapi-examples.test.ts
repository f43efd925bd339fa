import vm from "node:vm";
import { PLATFORM_SCOPE, STAFF_SCOPE } from "@cred/core";
import { createTestCertificateAuthority } from "@cred/oid4vc/test-ca";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { servedTrustedList } from "./fixtures/trusted-list-server";
import { API_VERSION, call, startTestServer, type TestServer } from "./harness";
import {
  exampleRunner,
  type Json,
  loadOpenApi,
  type OpenApiDocument,
  type Operation,
  ownSigningCertificate,
} from "./openapi-walk";

/**
 * The examples of openapi.json are what the interactive reference (/docs) puts into "Try it out": for
 * every operation the document lists (so a new operation is covered without touching this file), its
 * example request body and example parameters are sent, as they are, to a fresh tenant, and none may be
 * refused as invalid (400). Values the server makes (an issuer's id, a transaction's) stand in the
 * examples as example ids; as a person trying the reference would, the test puts the real ones in their
 * place once the operation that makes them has answered.
 */

// The test machine may have no DNS. The example webhook URL's host, example.com, resolves to a public
// address on the internet (IANA keeps it for documentation); here it does too. Other names are
// resolved as usual, so an example with a host that does not resolve is still refused.
vi.mock("node:dns/promises", async (importOriginal) =>
  (await import("./fixtures/dns")).dnsResolvingExampleCom(await importOriginal()),
);

let t: TestServer;
let api: OpenApiDocument;
let doc: Json;
let operations: Operation[];

beforeAll(async () => {
  t = await startTestServer();
  api = await loadOpenApi(t);
  ({ doc, operations } = api);
});
afterAll(() => t?.close());

describe("examples of every operation (from openapi.json)", () => {
  it("every request body has an example of the whole body, and every path parameter an example", () => {
    const missing: string[] = [];
    for (const op of operations) {
      const body = api.bodyExample(op.operation);
      if (body.present && body.value === undefined) missing.push(`${op.id}: request body`);
      for (const parameter of api.parametersOf(op.operation)) {
        if (parameter.in === "path" && api.parameterExample(parameter) === undefined)
          missing.push(`${op.id}: path parameter ${parameter.name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("sent as they are to a fresh tenant, none is refused as invalid (400), and all but those needing a wallet succeed", async () => {
    const { key, tenantId } = await t.otherTenant();
    const ca = await createTestCertificateAuthority("CN=Acme Issuing CA");
    // Platform operations (docs/api/tenants.md) are tried with a platform key, as a platform operator would.
    const platformKey = await t.key({ scopes: [PLATFORM_SCOPE] });
    // Team operations (docs/api/staff-members.md) with the tenant's production key holding staff.manage,
    // the only kind of key that can.
    const teamKey = await t.key({ tenantId, environment: "production", scopes: [STAFF_SCOPE] });
    const keyFor = (op: Operation) => {
      const scopes = (op.operation["x-required-scopes"] as string[] | undefined) ?? [];
      if (scopes.includes(PLATFORM_SCOPE)) return platformKey;
      return scopes.includes(STAFF_SCOPE) ? teamKey : undefined;
    };
    // Members no example can hold are made for the caller's own resource (see ownSigningCertificate).
    // TrustSources_Create's list is one served here (the example's at example.com cannot be fetched).
    const list = await servedTrustedList();
    const outcomes = await exampleRunner(
      t,
      api,
      key,
      { ...ownSigningCertificate(t, key, ca), ...list.madeForTheCaller },
      keyFor,
    )
      .run(operations)
      .finally(list.close);

    // The signing certificate example as it stands is a well-formed chain, refused only because it
    // certifies another key than this issuer's.
    const setCertificate = operations.find((op) => op.id === "Issuers_SetSigningCertificate")!;
    const issuerPath = outcomes.get(setCertificate.id)!.target;
    const asItStands = await call(t, "PUT", issuerPath, {
      key,
      body: api.bodyExample(setCertificate.operation).value,
    });
    expect(asItStands.status).toBe(400);
    expect(asItStands.body.error.code).toBe("InvalidCertificate");
    const problems = (asItStands.body.error.details as { message: string }[]).map((d) => d.message);
    expect(problems).toContain("the leaf certificate is not for the issuer's current signing key");
    expect(problems.filter((p) => /unparsable|no PEM|expired|not yet valid/.test(p))).toEqual([]);

    const refused = [...outcomes.entries()]
      .filter(([, o]) => o.status === 400 || o.status >= 500)
      .map(([id, o]) => ({ id, ...o }));
    expect(refused).toEqual([]);
    expect(outcomes.size).toBe(operations.length);
    // The examples make a working start: every create succeeds, and what they made can be read, changed
    // and used, except where a wallet (or an event delivery) has to take part first.
    const failed = [...outcomes.entries()]
      .filter(([, o]) => o.status >= 300)
      .map(([id, o]) => `${id} ${o.status}`);
    expect(failed.sort()).toEqual(
      [
        // Needs an `interaction` the authorization endpoint hands out to a wallet's browser.
        "Authorizations_Complete 404",
        // Need a credential a wallet redeemed from an offer.
        "Credentials_Get 404",
        "Credentials_Reinstate 404",
        "Credentials_Revoke 404",
        "Credentials_Suspend 404",
        // Needs a transaction created with `delivery.deferred`, which the example does not ask for.
        "IssuanceTransactions_SupplyClaims 409",
        // Needs a pending session and a wallet's presentation for it; the example session was cancelled.
        "VerificationSessions_Submit 409",
        // Needs a session created for the Digital Credentials API and the browser's answer to it.
        "VerificationSessions_SubmitDcApiResponse 409",
        // Its first try precedes the upload (which needs the access certificate imported first), and
        // the example of VerifierRegistrationCertificates_Delete removes the upload before it is tried again.
        "VerifierRegistrationCertificates_Get 404",
        // Needs a delivery of an event to a subscription.
        "WebhookDeliveries_Redeliver 404",
      ].sort(),
    );
  });
});

describe("Authorize in /docs", () => {
  /** Runs the page's initializer as the browser would and returns the configuration it gives Swagger UI. */
  async function swaggerUiConfiguration(): Promise<Json> {
    const script = await (await fetch(`${t.baseUrl}/docs/static/swagger-initializer.js`)).text();
    let configuration: Json | undefined;
    const SwaggerUIBundle = Object.assign(
      (config: Json) => {
        configuration = config;
        return { initOAuth() {} };
      },
      { presets: { apis: {} }, plugins: { DownloadUrl: {} } },
    );
    const window: Json = { location: { href: `${t.baseUrl}/docs/` } };
    const document = { createElement: () => ({}), querySelector: () => null, body: {} };
    const MutationObserver = class {
      observe() {}
      disconnect() {}
    };
    vm.runInNewContext(script, {
      window,
      document,
      MutationObserver,
      SwaggerUIBundle,
      SwaggerUIStandalonePreset: {},
    });
    window.onload();
    if (!configuration) throw new Error("the initializer did not start Swagger UI");
    return configuration;
  }

  it("sends requests to the API that served the page: the document's server is relative", () => {
    expect(doc.servers).toEqual([{ url: "/" }]);
  });

  it("declares the API key as the Authorization header", () => {
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "Authorization",
    });
  });

  it("a key pasted bare, or with `ApiKey ` or `Bearer ` in front, authenticates the request the page sends", async () => {
    const { requestInterceptor } = await swaggerUiConfiguration();
    expect(typeof requestInterceptor).toBe("function");
    for (const pasted of [t.adminKey, ` ${t.adminKey} `, `ApiKey ${t.adminKey}`, `Bearer ${t.adminKey}`]) {
      // What Swagger UI builds for the apiKey scheme: the pasted value as the header, as it is.
      const request = requestInterceptor({
        url: `${t.baseUrl}/management/organisations?api-version=${API_VERSION}`,
        method: "GET",
        headers: { Authorization: pasted },
      });
      expect(request.headers.Authorization).toBe(`ApiKey ${t.adminKey}`);
      const r = await fetch(request.url, { method: request.method, headers: request.headers });
      expect([pasted, r.status]).toEqual([pasted, 200]);
    }
  });

  it("leaves requests without a key, and other headers, as they are", async () => {
    const { requestInterceptor } = await swaggerUiConfiguration();
    const request = requestInterceptor({ url: "/openapi.json", method: "GET", headers: { Accept: "*/*" } });
    expect(request.headers).toEqual({ Accept: "*/*" });
    const empty = requestInterceptor({ url: "/x", method: "GET", headers: { Authorization: "" } });
    expect(empty.headers).toEqual({ Authorization: "" });
  });
});
