// The issuer's authorization page: the authorization endpoint sends the person to the integrator's
// sign-in and consent page, the integrator completes the authorization through the API
// (Authorizations_Complete), and the browser that started the flow returns through
// our return URL, which gives the wallet its code or access_denied.
import { randomBytes } from "node:crypto";
import { pkceChallengeOf } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, createTransaction } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { fetchJson, holderKey, nonce, proof, resolveOffer, wellKnown } from "./wallet-client";

const PAGE = "https://login.acme.example/consent?brand=acme";
const REDIRECT_URI = "https://wallet.example/cb";
const CLIENT_ID = "wallet-client";

let t: TestServer;
let issuer: ActiveIssuer;
let as: Record<string, any>;
let metadata: Record<string, any>;

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
  const set = await call(t, "PATCH", `/management/issuers/${issuer.issuerId}`, {
    key: t.adminKey,
    body: { authorizationPage: { url: PAGE } },
  });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  expect(set.body.data.authorizationPage).toEqual({ url: PAGE });
  as = (await fetchJson(wellKnown("oauth-authorization-server", issuer.credentialIssuer))).body;
  metadata = (await fetchJson(wellKnown("openid-credential-issuer", issuer.credentialIssuer))).body;
});
afterAll(() => t?.close());

const form = (body: Record<string, string>) => new URLSearchParams(body).toString();

/** A wallet's push (PKCE S256, its state) with `params` (issuer_state, or scope for its own request). */
async function push(params: Record<string, string>, at: Record<string, any> = as) {
  const verifier = randomBytes(32).toString("base64url");
  const pushed = await fetchJson(at.pushed_authorization_request_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form({
      response_type: "code",
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkceChallengeOf(verifier),
      code_challenge_method: "S256",
      state: "wallet-state",
      ...params,
    }),
  });
  return { pushed, verifier };
}

/** The person's browser opening the authorization endpoint: where it is sent, and the cookie it keeps. */
async function openAuthorization(requestUri: string) {
  const authorized = await fetch(
    `${as.authorization_endpoint}?${form({ client_id: CLIENT_ID, request_uri: requestUri })}`,
    { redirect: "manual" },
  );
  expect(authorized.status).toBe(302);
  const page = new URL(authorized.headers.get("location") as string);
  const setCookie = authorized.headers.get("set-cookie") ?? "";
  return { page, setCookie, cookie: setCookie.split(";")[0] as string };
}

/** Offer → PAR → authorize: where the person is sent, and what the wallet will need afterwards. */
async function atAuthorizationPage() {
  const created = await createTransaction(t, t.adminKey, issuer, { grant: "authorizationCode" });
  const offer = await resolveOffer(created.credentialOffer);
  const { pushed, verifier } = await push({ issuer_state: offer.grants.authorization_code.issuer_state });
  expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);
  return { transactionId: created.id, verifier, ...(await openAuthorization(pushed.body.request_uri)) };
}

/** The browser following the answer's redirectTo, with (or without) its cookie: where it is sent. */
async function returnTo(redirectTo: string, cookie?: string) {
  const res = await fetch(redirectTo, { redirect: "manual", headers: cookie ? { cookie } : {} });
  return {
    status: res.status,
    location: res.headers.get("location"),
    setCookie: res.headers.get("set-cookie"),
    text: await res.text(),
  };
}

/** Authorizations_Complete; `transactionId` is sent when given (an offer's request knows its own). */
const complete = (
  transactionId: string | undefined,
  body: Record<string, unknown>,
  options: { key?: string; headers?: Record<string, string> } = {},
) =>
  call(t, "POST", "/v1.0/authorizations/complete", {
    key: options.key ?? t.adminKey,
    body: { ...body, ...(transactionId ? { transactionId } : {}) },
    ...(options.headers ? { headers: options.headers } : {}),
  });

function exchange(code: string, verifier: string) {
  return fetchJson(as.token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: CLIENT_ID,
    }),
  });
}

/** The wallet redeeming its code: token, nonce, credential; the transaction is then completed. */
async function redeemCode(code: string, verifier: string, transactionId: string) {
  const token = await exchange(code, verifier);
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  const holder = await holderKey();
  const jwt = await proof(holder, issuer.credentialIssuer, await nonce(metadata.nonce_endpoint));
  const issued = await fetchJson(metadata.credential_endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token.body.access_token}` },
    body: JSON.stringify({ credential_configuration_id: issuer.configuration, proofs: { jwt: [jwt] } }),
  });
  expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  const tx = await call(t, "GET", `/v1.0/issuance-transactions/${transactionId}`, { key: t.adminKey });
  expect(tx.body.data.status).toBe("completed");
}

describe("authorization page", () => {
  it("sends the person to the page, and the wallet gets its code once the integrator approves", async () => {
    const { transactionId, verifier, page, cookie, setCookie } = await atAuthorizationPage();
    expect(`${page.origin}${page.pathname}`).toBe("https://login.acme.example/consent");
    expect(setCookie).toMatch(
      new RegExp(
        `^cp_authz_[A-Za-z0-9_-]{16}=[A-Za-z0-9_-]{43}; Path=/issuers/${issuer.issuerId}/authorize/return; Max-Age=600; HttpOnly; Secure; SameSite=Lax$`,
      ),
    );
    expect(page.searchParams.get("brand")).toBe("acme");
    expect(page.searchParams.get("transaction_id")).toBe(transactionId);
    // Who asks, for the consent the page shows: anyone can push a request.
    expect(page.searchParams.get("client_id")).toBe(CLIENT_ID);
    expect(page.searchParams.get("redirect_uri")).toBe(REDIRECT_URI);
    expect(page.searchParams.get("wallet_attested")).toBe("false");
    const interaction = page.searchParams.get("interaction") as string;
    expect(interaction).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const approved = await complete(transactionId, { interaction, decision: "approve" });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.data.approved).toBe(true);
    // The answer holds no code: only the browser that started the flow gets one, from our return URL.
    const returnUrl = new URL(approved.body.data.redirectTo);
    expect(`${returnUrl.origin}${returnUrl.pathname}`).toBe(`${issuer.credentialIssuer}/authorize/return`);
    const returned = await returnTo(approved.body.data.redirectTo, cookie);
    expect(returned.status, returned.text).toBe(302);
    expect(returned.setCookie).toMatch(/Max-Age=0/);
    const back = new URL(returned.location as string);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get("state")).toBe("wallet-state");
    expect(back.searchParams.get("iss")).toBe(issuer.credentialIssuer);

    await redeemCode(back.searchParams.get("code") as string, verifier, transactionId);
  });

  it("takes an interaction once: 409 after, 404 when unknown; a retry with its Idempotency-Key repeats the answer", async () => {
    const { transactionId, page } = await atAuthorizationPage();
    const interaction = page.searchParams.get("interaction") as string;
    const headers = { "idempotency-key": `complete-${transactionId}` };
    const first = await complete(transactionId, { interaction, decision: "approve" }, { headers });
    expect(first.status).toBe(200);
    const retried = await complete(transactionId, { interaction, decision: "approve" }, { headers });
    expect(retried.status).toBe(200);
    expect(retried.body.data.redirectTo).toBe(first.body.data.redirectTo);
    const again = await complete(transactionId, { interaction, decision: "approve" });
    expect([again.status, errorCode(again)]).toEqual([409, "InvalidState"]);
    expect(again.body.error.message).toMatch(/already completed/);
    const unknown = await complete(transactionId, { interaction: "not-one-of-ours", decision: "approve" });
    expect([unknown.status, errorCode(unknown)]).toEqual([404, "NotFound"]);
  });

  it("denies: the wallet gets access_denied and the offer stays pending", async () => {
    const { transactionId, page, cookie } = await atAuthorizationPage();
    const denied = await complete(transactionId, {
      interaction: page.searchParams.get("interaction"),
      decision: "deny",
    });
    expect(denied.status, JSON.stringify(denied.body)).toBe(200);
    expect(denied.body.data.approved).toBe(false);
    const back = new URL((await returnTo(denied.body.data.redirectTo, cookie)).location as string);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("code")).toBeNull();
    expect(back.searchParams.get("state")).toBe("wallet-state");
    const tx = await call(t, "GET", `/v1.0/issuance-transactions/${transactionId}`, { key: t.adminKey });
    expect(tx.body.data.status).toBe("pending");
  });

  it("gives access_denied for an offer cancelled while the person was at the page", async () => {
    const { transactionId, page, cookie } = await atAuthorizationPage();
    const cancelled = await call(t, "POST", `/v1.0/issuance-transactions/${transactionId}/cancel`, {
      key: t.adminKey,
    });
    expect(cancelled.status).toBe(200);
    const late = await complete(transactionId, {
      interaction: page.searchParams.get("interaction"),
      decision: "approve",
    });
    expect(late.status, JSON.stringify(late.body)).toBe(200);
    expect(late.body.data.approved).toBe(false);
    const back = await returnTo(late.body.data.redirectTo, cookie);
    expect(new URL(back.location as string).searchParams.get("error")).toBe("access_denied");
  });

  it("gives the code only to the browser that started the flow, with the answer's result, once", async () => {
    // Someone who pushed the request forwards the page link; the person it reaches signs in and approves.
    const { transactionId, page, cookie } = await atAuthorizationPage();
    const approved = await complete(transactionId, {
      interaction: page.searchParams.get("interaction"),
      decision: "approve",
    });
    const { redirectTo } = approved.body.data;
    // The person's browser has no binding cookie: a page, no redirect, nothing spent.
    const elsewhere = await returnTo(redirectTo);
    expect([elsewhere.status, elsewhere.location]).toEqual([400, null]);
    expect(elsewhere.text).toMatch(/browser you started from/);
    const wrongCookie = await returnTo(redirectTo, `${cookie.split("=")[0]}=${"A".repeat(43)}`);
    expect([wrongCookie.status, wrongCookie.location]).toEqual([400, null]);
    // Whoever holds the cookie (and knew the page link) cannot make up the answer's result token.
    const guessed = new URL(redirectTo);
    guessed.searchParams.set("result", page.searchParams.get("interaction") as string);
    expect((await returnTo(guessed.toString(), cookie)).status).toBe(400);
    // The browser that started it, with the result: once.
    expect((await returnTo(redirectTo, cookie)).status).toBe(302);
    expect((await returnTo(redirectTo, cookie)).status).toBe(400);
  });

  it("keeps interactions to their transaction and tenant, asks for credentials.issue, and validates", async () => {
    const { transactionId, page } = await atAuthorizationPage();
    const interaction = page.searchParams.get("interaction") as string;
    const other = await createTransaction(t, t.adminKey, issuer, { grant: "authorizationCode" });
    const wrongTransaction = await complete(other.id, { interaction, decision: "approve" });
    expect([wrongTransaction.status, errorCode(wrongTransaction)]).toEqual([409, "InvalidState"]);
    const foreign = await t.otherTenant();
    const fromOtherTenant = await complete(
      transactionId,
      { interaction, decision: "approve" },
      { key: foreign.key },
    );
    expect([fromOtherTenant.status, errorCode(fromOtherTenant)]).toEqual([404, "NotFound"]);
    const reader = await t.key({ scopes: ["credentials.read"] });
    const readOnly = await complete(transactionId, { interaction, decision: "approve" }, { key: reader });
    expect([readOnly.status, errorCode(readOnly)]).toEqual([403, "MissingScope"]);
    const maybe = await complete(transactionId, { interaction, decision: "maybe" });
    expect([maybe.status, errorCode(maybe)]).toEqual([400, "ValidationFailed"]);
    const missing = await complete(transactionId, { decision: "approve" });
    expect([missing.status, errorCode(missing)]).toEqual([400, "ValidationFailed"]);
    // None of that spent it.
    expect((await complete(transactionId, { interaction, decision: "approve" })).status).toBe(200);
  });

  it("is an https page, set and cleared on the issuer; without it the wallet gets its code at once", async () => {
    const path = `/management/issuers/${issuer.issuerId}`;
    for (const url of ["http://login.acme.example/consent", "not a url"]) {
      const bad = await call(t, "PATCH", path, { key: t.adminKey, body: { authorizationPage: { url } } });
      expect([bad.status, errorCode(bad)], url).toEqual([400, "ValidationFailed"]);
    }
    const cleared = await call(t, "PATCH", path, { key: t.adminKey, body: { authorizationPage: null } });
    expect(cleared.body.data.authorizationPage).toBeNull();
    try {
      const { page } = await atAuthorizationPage();
      expect(`${page.origin}${page.pathname}`).toBe(REDIRECT_URI);
      expect(page.searchParams.get("code")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      await call(t, "PATCH", path, { key: t.adminKey, body: { authorizationPage: { url: PAGE } } });
    }
  });
});

describe("wallet-initiated requests (no offer)", () => {
  /** A wallet's own push: no issuer_state, the configuration named by its scope. */
  const walletPush = (scope: string, at: Record<string, any> = as) => push({ scope }, at);

  async function walletAtPage() {
    const { pushed, verifier } = await walletPush(`openid ${issuer.configuration}`);
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);
    const { page, cookie } = await openAuthorization(pushed.body.request_uri);
    return { page, cookie, verifier, interaction: page.searchParams.get("interaction") as string };
  }

  it("takes the person's own request: the integrator names the transaction it made for them, and the wallet gets the credential", async () => {
    const { page, cookie, verifier, interaction } = await walletAtPage();
    expect(page.searchParams.get("credential_configuration_id")).toBe(issuer.configuration);
    expect(page.searchParams.get("transaction_id")).toBeNull();
    const withoutTransaction = await complete(undefined, { interaction, decision: "approve" });
    expect([withoutTransaction.status, errorCode(withoutTransaction)]).toEqual([400, "ValidationFailed"]);
    // A transaction that cannot answer it: made for the pre-authorized grant.
    const preAuthorized = await createTransaction(t, t.adminKey, issuer);
    const wrongGrant = await complete(preAuthorized.id, { interaction, decision: "approve" });
    expect([wrongGrant.status, errorCode(wrongGrant)]).toEqual([409, "InvalidState"]);

    const made = await createTransaction(t, t.adminKey, issuer, { grant: "authorizationCode" });
    const approved = await complete(made.id, { interaction, decision: "approve" });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.data.approved).toBe(true);
    const returned = await returnTo(approved.body.data.redirectTo, cookie);
    const code = new URL(returned.location as string).searchParams.get("code") as string;
    await redeemCode(code, verifier, made.id);
  });

  it("lets one transaction answer one wallet: a second approval is refused, and the offer's own code flow is closed", async () => {
    const made = await createTransaction(t, t.adminKey, issuer, { grant: "authorizationCode" });
    const offer = await resolveOffer(made.credentialOffer);
    const first = await walletAtPage();
    expect((await complete(made.id, { interaction: first.interaction, decision: "approve" })).status).toBe(
      200,
    );
    const second = await walletAtPage();
    const again = await complete(made.id, { interaction: second.interaction, decision: "approve" });
    expect([again.status, errorCode(again)]).toEqual([409, "InvalidState"]);
    // The offer's issuer_state no longer starts a flow.
    const { pushed } = await push({ issuer_state: offer.grants.authorization_code.issuer_state });
    expect([pushed.status, pushed.body.error]).toEqual([400, "invalid_request"]);
  });

  it("approves one of two wallets when both approvals for one transaction arrive at once", async () => {
    for (let round = 0; round < 3; round++) {
      const made = await createTransaction(t, t.adminKey, issuer, { grant: "authorizationCode" });
      const [a, b] = await Promise.all([walletAtPage(), walletAtPage()]);
      const answers = await Promise.all(
        [a, b].map((w) => complete(made.id, { interaction: w!.interaction, decision: "approve" })),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    }
  });

  it("denies without a transaction; refuses requests naming no configuration of the issuer, or at an issuer without a page", async () => {
    const { cookie, interaction } = await walletAtPage();
    const denied = await complete(undefined, { interaction, decision: "deny" });
    expect(denied.status, JSON.stringify(denied.body)).toBe(200);
    const back = new URL((await returnTo(denied.body.data.redirectTo, cookie)).location as string);
    expect(back.searchParams.get("error")).toBe("access_denied");

    const many = Array.from({ length: 11 }, (_, i) => `scope-${i}`).join(" ");
    for (const scope of ["openid", "no-such-configuration", `${issuer.configuration} ${many}`]) {
      const { pushed } = await walletPush(scope);
      expect([pushed.status, pushed.body.error], scope).toEqual([400, "invalid_scope"]);
    }
    const plain = await activeIssuer(t, t.adminKey);
    const plainAs = (await fetchJson(wellKnown("oauth-authorization-server", plain.credentialIssuer))).body;
    const { pushed } = await walletPush(plain.configuration, plainAs);
    expect([pushed.status, pushed.body.error]).toEqual([400, "invalid_request"]);
    expect(pushed.body.error_description).toMatch(/issuer_state is required/);
  });
});
