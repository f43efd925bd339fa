import { PLATFORM_SCOPE } from "@cred/core";
import { parseCredentialOfferLink } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activeIssuer, createTransaction, policyTrusting } from "./fixtures";
import { call, startTestServer, type TestServer } from "./harness";
import { fetchJson, redeemOffer, token, walletEndpoints, wellKnown } from "./wallet-client";

/**
 * The wallet side of a tenant's suspension (docs/api/tenants.md): its issuers refuse every step towards
 * a new credential with 403 `access_denied`, while their metadata and keys stay served (credentials
 * issued before still verify); reactivation lets the same offer be redeemed.
 */

let t: TestServer;
let platformKey: string;

beforeAll(async () => {
  t = await startTestServer();
  platformKey = await t.key({ scopes: [PLATFORM_SCOPE] });
});
afterAll(() => t?.close());

describe("a suspended tenant's issuers", () => {
  it("refuse offers, tokens, nonces and credentials with 403 access_denied; documents stay served; reactivation restores", async () => {
    const created = await call(t, "POST", "/management/tenants", {
      key: platformKey,
      body: { name: "Issuing" },
    });
    const tenantId = created.body.data.id as string;
    const key = await t.key({ tenantId });
    const issuer = await activeIssuer(t, key);
    const transaction = await createTransaction(t, key, issuer);
    const parsed = parseCredentialOfferLink(transaction.credentialOffer);
    if (!("offerUri" in parsed)) throw new Error("expected an offer by reference");
    const endpoints = await walletEndpoints(issuer.credentialIssuer);

    const suspend = await call(t, "POST", `/management/tenants/${tenantId}/suspend`, {
      key: platformKey,
      body: {},
    });
    expect(suspend.status).toBe(200);

    const refusals = [
      await fetchJson(parsed.offerUri),
      await token(endpoints.token, {
        grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
        "pre-authorized_code": "anything",
      }),
      await fetchJson(endpoints.nonce, { method: "POST" }),
      await fetchJson(endpoints.credential, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer whatever" },
        body: JSON.stringify({ credential_configuration_id: issuer.configuration }),
      }),
    ];
    for (const r of refusals) {
      expect(r.status).toBe(403);
      expect(r.body.error).toBe("access_denied");
      expect(r.body.error_description).toMatch(/suspended/);
    }
    // What relying parties read to verify credentials issued before stays served.
    for (const kind of ["openid-credential-issuer", "oauth-authorization-server", "jwt-vc-issuer"])
      expect((await fetchJson(wellKnown(kind, issuer.credentialIssuer))).status).toBe(200);

    const reactivate = await call(t, "POST", `/management/tenants/${tenantId}/reactivate`, {
      key: platformKey,
      body: {},
    });
    expect(reactivate.status).toBe(200);
    const redeemed = await redeemOffer(transaction.credentialOffer, { txCode: transaction.txCode });
    expect(redeemed.credentialRes.status).toBe(200);
  });

  it("a suspended tenant's verifications refuse the wallet's request object and response with 403 access_denied", async () => {
    const created = await call(t, "POST", "/management/tenants", {
      key: platformKey,
      body: { name: "Verifying" },
    });
    const tenantId = created.body.data.id as string;
    const key = await t.key({ tenantId });
    const issuer = await activeIssuer(t, key);
    await policyTrusting(t, key, "badge-check", issuer);
    const session = await call(t, "POST", "/v1.0/verifications", { key, body: { policy: "badge-check" } });
    expect(session.status).toBe(201);
    const requestUri = session.body.data.requestUri as string;
    const state = new URL(requestUri).pathname.split("/").pop()!;

    await call(t, "POST", `/management/tenants/${tenantId}/suspend`, { key: platformKey, body: {} });
    const requestObject = await fetchJson(requestUri);
    expect(requestObject.status).toBe(403);
    expect(requestObject.body.error).toBe("access_denied");
    const response = await fetchJson(`${t.baseUrl}/verifier/responses/${state}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ state, vp_token: "{}" }).toString(),
    });
    expect(response.status).toBe(403);
    expect(response.body.error).toBe("access_denied");

    await call(t, "POST", `/management/tenants/${tenantId}/reactivate`, { key: platformKey, body: {} });
    expect((await fetch(requestUri)).status).toBe(200);
  });
});
