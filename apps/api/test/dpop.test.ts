// DPoP (RFC 9449) at our issuer: a token request with a proof gets a token bound to the proof's key,
// which the credential and notification endpoints then take only with a fresh proof by that key.
import { createDpopProof, generateEs256KeyPair } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, createTransaction } from "./fixtures";
import { call, errorCode as errorCodeOf, startTestServer, type TestServer } from "./harness";
import {
  fetchJson,
  holderKey,
  nonce,
  proof,
  resolveOffer,
  walletEndpoints,
  wellKnown,
} from "./wallet-client";

let t: TestServer;
let issuer: ActiveIssuer;
let endpoints: Awaited<ReturnType<typeof walletEndpoints>>;

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
  endpoints = await walletEndpoints(issuer.credentialIssuer);
});
afterAll(() => t?.close());

type Key = Awaited<ReturnType<typeof generateEs256KeyPair>>;

async function offered(delivery?: Record<string, unknown>) {
  const created = await createTransaction(t, t.adminKey, issuer, delivery);
  const offer = await resolveOffer(created.credentialOffer);
  const grant = offer.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"];
  return { code: grant["pre-authorized_code"] as string, txCode: created.txCode };
}

const preAuthorizedCode = async () => (await offered()).code;

const dpopFor = (
  key: Key,
  url: string,
  extra: { accessToken?: string; jti?: string; method?: string } = {},
) => createDpopProof({ ...key, method: extra.method ?? "POST", url, ...extra });

async function tokenRequest(code: string, dpop?: string, txCode?: string) {
  return fetchJson(endpoints.token, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(dpop ? { dpop } : {}) },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
      "pre-authorized_code": code,
      ...(txCode ? { tx_code: txCode } : {}),
    }).toString(),
  });
}

async function credentialRequest(authorization: string, dpop?: string) {
  const holder = await holderKey();
  const jwt = await proof(holder, issuer.credentialIssuer, await nonce(endpoints.nonce));
  return fetchJson(endpoints.credential, {
    method: "POST",
    headers: { "content-type": "application/json", authorization, ...(dpop ? { dpop } : {}) },
    body: JSON.stringify({ credential_configuration_id: issuer.configuration, proofs: { jwt: [jwt] } }),
  });
}

/** A DPoP-bound access token for `key`. */
async function boundToken(key: Key) {
  const r = await tokenRequest(await preAuthorizedCode(), await dpopFor(key, endpoints.token));
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.token_type).toBe("DPoP");
  return r.body.access_token as string;
}

function expectDpopError(r: Awaited<ReturnType<typeof fetchJson>>, error: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(401);
  expect(r.body.error).toBe(error);
  expect(r.headers.get("www-authenticate")).toMatch(new RegExp(`^DPoP error="${error}".*algs="ES256"`));
}

describe("DPoP (RFC 9449)", () => {
  it("announces ES256 in the authorization server metadata", async () => {
    const as = await fetchJson(wellKnown("oauth-authorization-server", issuer.credentialIssuer));
    expect(as.body.dpop_signing_alg_values_supported).toEqual(["ES256"]);
  });

  it("binds the token to the proof key; the credential and notification endpoints take it with proofs", async () => {
    const key = await generateEs256KeyPair();
    const accessToken = await boundToken(key);
    const issued = await credentialRequest(
      `DPoP ${accessToken}`,
      await dpopFor(key, endpoints.credential, { accessToken }),
    );
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(issued.body.credentials).toHaveLength(1);
    const notified = await fetch(endpoints.notification, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `DPoP ${accessToken}`,
        dpop: await dpopFor(key, endpoints.notification, { accessToken }),
      },
      body: JSON.stringify({ notification_id: issued.body.notification_id, event: "credential_accepted" }),
    });
    expect(notified.status).toBe(204);
  });

  it("refuses a bound token without a proof, as Bearer, with another key's proof, without ath, or replayed", async () => {
    const key = await generateEs256KeyPair();
    const accessToken = await boundToken(key);
    expectDpopError(await credentialRequest(`Bearer ${accessToken}`), "invalid_token");
    expectDpopError(await credentialRequest(`DPoP ${accessToken}`), "invalid_dpop_proof");
    const stranger = await generateEs256KeyPair();
    expectDpopError(
      await credentialRequest(
        `DPoP ${accessToken}`,
        await dpopFor(stranger, endpoints.credential, { accessToken }),
      ),
      "invalid_dpop_proof",
    );
    expectDpopError(
      await credentialRequest(`DPoP ${accessToken}`, await dpopFor(key, endpoints.credential)),
      "invalid_dpop_proof",
    );
    expectDpopError(
      await credentialRequest(`DPoP ${accessToken}`, await dpopFor(key, endpoints.token, { accessToken })),
      "invalid_dpop_proof",
    );
    const once = await dpopFor(key, endpoints.credential, { accessToken });
    expect((await credentialRequest(`DPoP ${accessToken}`, once)).status).toBe(200);
    const replayed = await credentialRequest(`DPoP ${accessToken}`, once);
    expectDpopError(replayed, "invalid_dpop_proof");
    expect(replayed.body.error_description).toMatch(/already used/);
  });

  it("binds a token redeemed with a tx_code too", async () => {
    const key = await generateEs256KeyPair();
    const { code, txCode } = await offered({ txCode: { inputMode: "numeric", length: 6 } });
    const r = await tokenRequest(code, await dpopFor(key, endpoints.token), txCode);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.token_type).toBe("DPoP");
    const accessToken = r.body.access_token as string;
    expectDpopError(await credentialRequest(`Bearer ${accessToken}`), "invalid_token");
    const issued = await credentialRequest(
      `DPoP ${accessToken}`,
      await dpopFor(key, endpoints.credential, { accessToken }),
    );
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  });

  it("keeps bearer tokens as they were, and refuses one sent with the DPoP scheme", async () => {
    const r = await tokenRequest(await preAuthorizedCode());
    expect(r.body.token_type).toBe("Bearer");
    const key = await generateEs256KeyPair();
    const proofFor = await dpopFor(key, endpoints.credential, { accessToken: r.body.access_token });
    expectDpopError(await credentialRequest(`DPoP ${r.body.access_token}`, proofFor), "invalid_token");
    expect((await credentialRequest(`Bearer ${r.body.access_token}`)).status).toBe(200);
  });

  it("requireDpop: the issuer refuses token requests without a proof, and takes them with one", async () => {
    const path = `/management/issuers/${issuer.issuerId}`;
    // A bearer token minted before the switch is refused after it, at the credential endpoint too.
    const minted = await tokenRequest(await preAuthorizedCode());
    expect(minted.body.token_type).toBe("Bearer");
    const on = await call(t, "PATCH", path, { key: t.adminKey, body: { requireDpop: true } });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.data.requireDpop).toBe(true);
    try {
      const stale = await credentialRequest(`Bearer ${minted.body.access_token}`);
      expectDpopError(stale, "invalid_token");
      expect(stale.body.error_description).toMatch(/DPoP-bound access tokens only/);
      const code = await preAuthorizedCode();
      const refused = await tokenRequest(code);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({
        error: "invalid_dpop_proof",
        error_description: expect.stringMatching(/requires DPoP/),
      });
      const key = await generateEs256KeyPair();
      const bound = await tokenRequest(code, await dpopFor(key, endpoints.token));
      expect(bound.status).toBe(200);
      expect(bound.body.token_type).toBe("DPoP");
      expect(
        errorCodeOf(await call(t, "PATCH", path, { key: t.adminKey, body: { requireDpop: "yes" } })),
      ).toBe("ValidationFailed");
    } finally {
      const off = await call(t, "PATCH", path, { key: t.adminKey, body: { requireDpop: false } });
      expect(off.body.data.requireDpop).toBe(false);
    }
    expect((await tokenRequest(await preAuthorizedCode())).body.token_type).toBe("Bearer");
  });

  it("answers a bad proof at the token endpoint with 400 invalid_dpop_proof and leaves the code unspent", async () => {
    const key = await generateEs256KeyPair();
    const code = await preAuthorizedCode();
    const wrongUrl = await tokenRequest(code, await dpopFor(key, endpoints.credential));
    expect(wrongUrl.status).toBe(400);
    expect(wrongUrl.body.error).toBe("invalid_dpop_proof");
    expect(wrongUrl.headers.get("cache-control")).toBe("no-store");
    const used = await dpopFor(key, endpoints.token);
    expect((await tokenRequest(code, used)).status).toBe(200);
    // The same proof again, even for another code, is a replay.
    const replay = await tokenRequest(await preAuthorizedCode(), used);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_dpop_proof");
    // Two DPoP headers (which the HTTP layer joins into one value) are refused too (RFC 9449 §4.3).
    const twice = await fetch(endpoints.token, {
      method: "POST",
      headers: [
        ["content-type", "application/x-www-form-urlencoded"],
        ["dpop", await dpopFor(key, endpoints.token)],
        ["dpop", await dpopFor(key, endpoints.token)],
      ],
      body: new URLSearchParams({
        grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
        "pre-authorized_code": await preAuthorizedCode(),
      }).toString(),
    });
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { error: string }).error).toBe("invalid_dpop_proof");
  });
});

describe("server-provided DPoP nonces (requireDpopNonce, RFC 9449 §8, §9)", () => {
  let strict: ActiveIssuer;
  let at: { token: string; credential: string; nonce: string; notification: string };

  beforeAll(async () => {
    strict = await activeIssuer(t, t.adminKey);
    const on = await call(t, "PATCH", `/management/issuers/${strict.issuerId}`, {
      key: t.adminKey,
      body: { requireDpopNonce: true },
    });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.data).toMatchObject({ requireDpopNonce: true, requireDpop: false });
    const metadata = (await fetchJson(wellKnown("openid-credential-issuer", strict.credentialIssuer))).body;
    at = {
      token: `${strict.credentialIssuer}/token`,
      credential: metadata.credential_endpoint,
      nonce: metadata.nonce_endpoint,
      notification: metadata.notification_endpoint,
    };
  });

  const strictCode = async () => {
    const created = await createTransaction(t, t.adminKey, strict);
    const offer = await resolveOffer(created.credentialOffer);
    return offer.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"][
      "pre-authorized_code"
    ] as string;
  };
  /** A current DPoP nonce of the strict issuer (its nonce endpoint hands one out, OpenID4VCI §7.2). */
  const strictNonce = async () =>
    (await fetchJson(at.nonce, { method: "POST" })).headers.get("dpop-nonce") as string;
  const tokenAt = (code: string, dpop?: string) =>
    fetchJson(at.token, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(dpop ? { dpop } : {}) },
      body: new URLSearchParams({
        grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
        "pre-authorized_code": code,
      }).toString(),
    });
  const credentialAt = async (authorization: string, dpop?: string) => {
    const holder = await holderKey();
    const cNonce = await fetchJson(at.nonce, { method: "POST" });
    const jwt = await proof(holder, strict.credentialIssuer, cNonce.body.c_nonce);
    return fetchJson(at.credential, {
      method: "POST",
      headers: { "content-type": "application/json", authorization, ...(dpop ? { dpop } : {}) },
      body: JSON.stringify({ credential_configuration_id: strict.configuration, proofs: { jwt: [jwt] } }),
    });
  };

  it("answers a token request's proof without a nonce with use_dpop_nonce, and takes the retry with it", async () => {
    const key = await generateEs256KeyPair();
    const code = await strictCode();
    const first = await tokenAt(code, await dpopFor(key, at.token));
    expect(first.status, JSON.stringify(first.body)).toBe(400);
    expect(first.body.error).toBe("use_dpop_nonce");
    expect(first.headers.get("cache-control")).toBe("no-store");
    const nonce = first.headers.get("dpop-nonce");
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{30}$/);
    // The code was not spent by the refused request.
    const retried = await tokenAt(
      code,
      await createDpopProof({ ...key, method: "POST", url: at.token, nonce: nonce as string }),
    );
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.token_type).toBe("DPoP");
    expect(retried.headers.get("dpop-nonce")).toMatch(/^[A-Za-z0-9_-]{30}$/);
  });

  it("asks the credential and notification endpoints' proofs for a nonce too, with the resource error shape", async () => {
    const key = await generateEs256KeyPair();
    const cNonce = await fetchJson(at.nonce, { method: "POST" });
    // The nonce endpoint hands out a DPoP nonce as well (OpenID4VCI §7.2).
    const dpopNonce = cNonce.headers.get("dpop-nonce") as string;
    expect(dpopNonce).toMatch(/^[A-Za-z0-9_-]{30}$/);
    const token = await tokenAt(
      await strictCode(),
      await createDpopProof({ ...key, method: "POST", url: at.token, nonce: dpopNonce }),
    );
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const accessToken = token.body.access_token as string;

    const refused = await credentialAt(
      `DPoP ${accessToken}`,
      await dpopFor(key, at.credential, { accessToken }),
    );
    expectDpopError(refused, "use_dpop_nonce");
    const fresh = refused.headers.get("dpop-nonce") as string;
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{30}$/);

    const issued = await credentialAt(
      `DPoP ${accessToken}`,
      await createDpopProof({ ...key, method: "POST", url: at.credential, accessToken, nonce: fresh }),
    );
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const next = issued.headers.get("dpop-nonce") as string;
    expect(next).toMatch(/^[A-Za-z0-9_-]{30}$/);

    const notify = (dpop: string) =>
      fetch(at.notification, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `DPoP ${accessToken}`, dpop },
        body: JSON.stringify({ notification_id: issued.body.notification_id, event: "credential_accepted" }),
      });
    const withoutNonce = await notify(await dpopFor(key, at.notification, { accessToken }));
    expect(withoutNonce.status).toBe(401);
    expect(withoutNonce.headers.get("www-authenticate")).toMatch(/^DPoP error="use_dpop_nonce"/);
    const notified = await notify(
      await createDpopProof({ ...key, method: "POST", url: at.notification, accessToken, nonce: next }),
    );
    expect(notified.status).toBe(204);
    expect(notified.headers.get("dpop-nonce")).toMatch(/^[A-Za-z0-9_-]{30}$/);
  });

  it("spends nothing on a refusal: the same proof and code go through once nonces are no longer asked for", async () => {
    const key = await generateEs256KeyPair();
    const code = await strictCode();
    const sameProof = await dpopFor(key, at.token);
    expect((await tokenAt(code, sameProof)).body.error).toBe("use_dpop_nonce");
    const path = `/management/issuers/${strict.issuerId}`;
    await call(t, "PATCH", path, { key: t.adminKey, body: { requireDpopNonce: false } });
    try {
      const accepted = await tokenAt(code, sameProof);
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(accepted.headers.get("dpop-nonce")).toBeNull();
    } finally {
      await call(t, "PATCH", path, { key: t.adminKey, body: { requireDpopNonce: true } });
    }
  });

  it("refuses a nonce of another issuer, of this tenant or another, or a made-up one, and leaves bearer tokens alone", async () => {
    const key = await generateEs256KeyPair();
    const code = await strictCode();
    // The first issuer requires no nonces, so it hands none out; a nonce of another strict issuer, in
    // this tenant or another, is no good here.
    expect((await fetchJson(endpoints.nonce, { method: "POST" })).headers.get("dpop-nonce")).toBeNull();
    const nonceOfStrictIssuer = async (tenantKey: string) => {
      const other = await activeIssuer(t, tenantKey);
      await call(t, "PATCH", `/management/issuers/${other.issuerId}`, {
        key: tenantKey,
        body: { requireDpopNonce: true },
      });
      const metadata = (await fetchJson(wellKnown("openid-credential-issuer", other.credentialIssuer))).body;
      const nonce = (await fetchJson(metadata.nonce_endpoint, { method: "POST" })).headers.get("dpop-nonce");
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{30}$/);
      return nonce as string;
    };
    const foreign = [
      await nonceOfStrictIssuer(t.adminKey),
      await nonceOfStrictIssuer((await t.otherTenant()).key),
    ];
    for (const nonce of [...foreign, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "not a nonce"]) {
      const r = await tokenAt(code, await createDpopProof({ ...key, method: "POST", url: at.token, nonce }));
      expect([r.status, r.body.error], nonce).toEqual([400, "use_dpop_nonce"]);
      expect(r.body.error_description).toMatch(/not current/);
    }
    // At the credential endpoint too (the resource server's shape, RFC 9449 §9).
    const bound = await tokenAt(
      await strictCode(),
      await createDpopProof({ ...key, method: "POST", url: at.token, nonce: await strictNonce() }),
    );
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    const accessToken = bound.body.access_token as string;
    for (const nonce of foreign) {
      const r = await credentialAt(
        `DPoP ${accessToken}`,
        await createDpopProof({ ...key, method: "POST", url: at.credential, accessToken, nonce }),
      );
      expectDpopError(r, "use_dpop_nonce");
    }
    const bearer = await tokenAt(code);
    expect(bearer.status, JSON.stringify(bearer.body)).toBe(200);
    expect(bearer.body.token_type).toBe("Bearer");
    expect((await credentialAt(`Bearer ${bearer.body.access_token}`)).status).toBe(200);
  });

  it("is set at creation, shown on the issuer, and validated", async () => {
    const org = await call(t, "POST", "/management/organisations", {
      key: t.adminKey,
      body: { reference: `nonce-org-${Date.now().toString(36)}`, displayName: "Nonce org" },
    });
    const created = await call(t, "POST", "/management/issuers", {
      key: t.adminKey,
      body: {
        organisationReference: org.body.data.reference,
        displayName: "Nonce issuer",
        requireDpop: true,
        requireDpopNonce: true,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({ requireDpop: true, requireDpopNonce: true });
    const path = `/management/issuers/${created.body.data.id}`;
    expect((await call(t, "GET", path, { key: t.adminKey })).body.data.requireDpopNonce).toBe(true);
    const bad = await call(t, "PATCH", path, { key: t.adminKey, body: { requireDpopNonce: 1 } });
    expect(errorCodeOf(bad)).toBe("ValidationFailed");
    const off = await call(t, "PATCH", path, { key: t.adminKey, body: { requireDpopNonce: false } });
    expect(off.body.data.requireDpopNonce).toBe(false);
  });
});
