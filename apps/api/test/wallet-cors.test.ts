import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activeIssuer, createTransaction } from "./fixtures";
import { call, startTestServer, type TestServer } from "./harness";
import { wellKnown } from "./wallet-client";

/**
 * CORS on the wallet endpoints (apps/api/src/wallet/cors.ts): a wallet running in a web page at another
 * origin (the console's sandbox wallet) can fetch them and read the DPoP-Nonce header; the management
 * and product planes and the authorization endpoint stay without CORS.
 */
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const origin = "http://console.example";
const preflight = (path: string, method: string, headers = "authorization, dpop, content-type") =>
  call(t, "OPTIONS", path, {
    headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers },
  });

describe("wallet endpoints allow cross-origin fetches", () => {
  it("answers preflights of the token, credential, nonce and verifier endpoints with 204", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const path = new URL(active.credentialIssuer).pathname;
    for (const [target, method] of [
      [`${path}/token`, "POST"],
      [`${path}/credential`, "POST"],
      [`${path}/nonce`, "POST"],
      [`${path}/par`, "POST"],
      ["/verifier/responses/abc", "POST"],
      ["/verifier/requests/abc", "POST"],
    ] as const) {
      const r = await preflight(target, method);
      expect(r.status, target).toBe(204);
      expect(r.headers.get("access-control-allow-origin"), target).toBe("*");
      expect(r.headers.get("access-control-allow-methods"), target).toContain(method);
      const allowed = (r.headers.get("access-control-allow-headers") ?? "").toLowerCase();
      for (const header of ["authorization", "dpop", "content-type"])
        expect(allowed, target).toContain(header);
      expect(r.headers.get("access-control-allow-credentials"), target).toBeNull();
    }
  });

  it("lets the page read the metadata, the offer and an OAuth error with its DPoP-Nonce exposed", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const metadata = await call(
      t,
      "GET",
      new URL(wellKnown("openid-credential-issuer", active.credentialIssuer)).pathname,
      {
        headers: { origin },
      },
    );
    expect(metadata.status).toBe(200);
    expect(metadata.headers.get("access-control-allow-origin")).toBe("*");
    const offer = await createTransaction(t, t.adminKey, active, { offerBy: "reference" });
    const offerUri = new URL(
      offer.credentialOffer.replace(/^openid-credential-offer:\/\//, "https://x/"),
    ).searchParams.get("credential_offer_uri");
    const fetched = await call(t, "GET", new URL(offerUri ?? "").pathname, { headers: { origin } });
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get("access-control-allow-origin")).toBe("*");
    const refused = await call(t, "POST", `${new URL(active.credentialIssuer).pathname}/token`, {
      headers: { origin, "content-type": "application/x-www-form-urlencoded" },
      rawBody: "grant_type=nothing",
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    expect(refused.headers.get("access-control-expose-headers")).toContain("DPoP-Nonce");
    expect(refused.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
  });

  it("adds no CORS to the management and product planes or to the authorization endpoint", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const management = await call(t, "GET", "/management/organisations", {
      key: t.adminKey,
      headers: { origin },
    });
    expect(management.headers.get("access-control-allow-origin")).toBeNull();
    const product = await preflight("/v1.0/issuance-transactions", "POST");
    expect(product.headers.get("access-control-allow-origin")).toBeNull();
    const authorize = await call(
      t,
      "GET",
      `${new URL(active.credentialIssuer).pathname}/authorize?client_id=x`,
      {
        headers: { origin },
      },
    );
    expect(authorize.headers.get("access-control-allow-origin")).toBeNull();
  });
});
