// OpenID4VCI's authorization code flow at our issuer (offer-initiated, §5.1 with issuer_state): a pushed
// authorization request (RFC 9126) with PKCE S256, the authorization endpoint's redirect with code,
// state and iss (RFC 9207), and the code's exchange at the token endpoint, optionally DPoP-bound.
import { randomBytes } from "node:crypto";
import { createDpopProof, generateEs256KeyPair, jwkThumbprintKid, pkceChallengeOf } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, createTransaction } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { fetchJson, holderKey, nonce, proof, resolveOffer, wellKnown } from "./wallet-client";

let t: TestServer;
let issuer: ActiveIssuer;
let as: Record<string, any>;
let metadata: Record<string, any>;

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
  as = (await fetchJson(wellKnown("oauth-authorization-server", issuer.credentialIssuer))).body;
  metadata = (await fetchJson(wellKnown("openid-credential-issuer", issuer.credentialIssuer))).body;
});
afterAll(() => t?.close());

const REDIRECT_URI = "https://wallet.example/callback?app=1";
const CLIENT_ID = "wallet-client";
type Key = Awaited<ReturnType<typeof generateEs256KeyPair>>;

/** A transaction offered with the authorization code grant, and its issuer_state. */
async function codeOffer(active: ActiveIssuer = issuer) {
  const created = await createTransaction(t, t.adminKey, active, { grant: "authorizationCode" });
  const offer = await resolveOffer(created.credentialOffer);
  return { id: created.id, offer, issuerState: offer.grants.authorization_code.issuer_state as string };
}

const form = (body: Record<string, string>) => new URLSearchParams(body).toString();

function par(body: Record<string, string>, options: { dpop?: string; endpoint?: string } = {}) {
  return fetchJson(options.endpoint ?? as.pushed_authorization_request_endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(options.dpop ? { dpop: options.dpop } : {}),
    },
    body: form(body),
  });
}

function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: pkceChallengeOf(verifier) };
}

function parBody(issuerState: string, challenge: string, extra: Record<string, string> = {}) {
  return {
    response_type: "code",
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: "S256",
    issuer_state: issuerState,
    state: "wallet-state-1",
    ...extra,
  };
}

async function authorizeAt(params: Record<string, string>, endpoint = as.authorization_endpoint) {
  const res = await fetch(`${endpoint}?${form(params)}`, { redirect: "manual" });
  return { status: res.status, location: res.headers.get("location"), text: await res.text(), res };
}

function tokenWithCode(body: Record<string, string>, dpop?: string) {
  return fetchJson(as.token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(dpop ? { dpop } : {}) },
    body: form({ grant_type: "authorization_code", ...body }),
  });
}

/** PAR → authorize → the code, for a fresh offer (or the given one). */
async function authorizationCode(
  options: {
    offer?: Awaited<ReturnType<typeof codeOffer>>;
    extra?: Record<string, string>;
    dpop?: string;
  } = {},
) {
  const offer = options.offer ?? (await codeOffer());
  const { verifier, challenge } = pkce();
  const pushed = await par(parBody(offer.issuerState, challenge, options.extra), { dpop: options.dpop });
  expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);
  const redirect = await authorizeAt({ client_id: CLIENT_ID, request_uri: pushed.body.request_uri });
  expect(redirect.status, redirect.text).toBe(302);
  const location = new URL(redirect.location as string);
  return { offer, verifier, code: location.searchParams.get("code") as string, location, pushed };
}

async function credentialWith(authorization: string, dpop?: string) {
  const holder = await holderKey();
  const jwt = await proof(holder, issuer.credentialIssuer, await nonce(metadata.nonce_endpoint));
  return fetchJson(metadata.credential_endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", authorization, ...(dpop ? { dpop } : {}) },
    body: JSON.stringify({ credential_configuration_id: issuer.configuration, proofs: { jwt: [jwt] } }),
  });
}

describe("authorization code flow", () => {
  it("announces the flow in the authorization server metadata as HAIP asks for it", () => {
    expect(as).toMatchObject({
      issuer: issuer.credentialIssuer,
      authorization_endpoint: `${issuer.credentialIssuer}/authorize`,
      pushed_authorization_request_endpoint: `${issuer.credentialIssuer}/par`,
      require_pushed_authorization_requests: true,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      grant_types_supported: ["authorization_code", "urn:ietf:params:oauth:grant-type:pre-authorized_code"],
    });
    expect(metadata.credential_configurations_supported[issuer.configuration].scope).toBe(
      issuer.configuration,
    );
  });

  it("issues through PAR, the authorization redirect and the code exchange, and completes the transaction", async () => {
    const offer = await codeOffer();
    expect(Object.keys(offer.offer.grants)).toEqual(["authorization_code"]);
    const details = JSON.stringify([
      { type: "openid_credential", credential_configuration_id: issuer.configuration },
    ]);
    const { code, verifier, location, pushed } = await authorizationCode({
      offer,
      extra: { authorization_details: details, resource: issuer.credentialIssuer },
    });
    expect(pushed.body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect(pushed.body.expires_in).toBe(60);
    expect(pushed.headers.get("cache-control")).toBe("no-store");
    expect(`${location.origin}${location.pathname}`).toBe("https://wallet.example/callback");
    expect(location.searchParams.get("app")).toBe("1");
    expect(location.searchParams.get("state")).toBe("wallet-state-1");
    expect(location.searchParams.get("iss")).toBe(issuer.credentialIssuer);

    const tokenRes = await tokenWithCode({
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: CLIENT_ID,
    });
    expect(tokenRes.status, JSON.stringify(tokenRes.body)).toBe(200);
    expect(tokenRes.body).toMatchObject({
      token_type: "Bearer",
      authorization_details: [
        {
          type: "openid_credential",
          credential_configuration_id: issuer.configuration,
          credential_identifiers: [issuer.configuration],
        },
      ],
    });
    const issued = await credentialWith(`Bearer ${tokenRes.body.access_token}`);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    const tx = await call(t, "GET", `/v1.0/issuance-transactions/${offer.id}`, { key: t.adminKey });
    expect(tx.body.data.status).toBe("completed");
    // The offer is redeemed: its URI is gone and its issuer_state starts nothing more.
    const again = await par(parBody(offer.issuerState, pkce().challenge));
    expect(again.body.error).toBe("invalid_request");
  });

  it("takes scope in place of authorization_details, and lets a wallet push again before it authorizes", async () => {
    const offer = await codeOffer();
    const first = await par(parBody(offer.issuerState, pkce().challenge, { scope: issuer.configuration }));
    expect(first.status).toBe(201);
    const { code, verifier } = await authorizationCode({ offer, extra: { scope: issuer.configuration } });
    const tokenRes = await tokenWithCode({
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: CLIENT_ID,
    });
    expect(tokenRes.status).toBe(200);
    expect(tokenRes.body.authorization_details).toBeUndefined();
    // The first request_uri cannot start a second redemption of the same offer.
    const late = await authorizeAt({ client_id: CLIENT_ID, request_uri: first.body.request_uri });
    expect(late.status).toBe(302);
    expect(new URL(late.location as string).searchParams.get("error")).toBe("access_denied");
  });

  it("refuses pushed requests the flow does not allow, each with its OAuth error", async () => {
    const { issuerState } = await codeOffer();
    const { challenge } = pkce();
    const cases: [string, Record<string, string>, string][] = [
      ["another response_type", { response_type: "token" }, "unsupported_response_type"],
      ["no client_id", { client_id: "" }, "invalid_request"],
      ["no redirect_uri", { redirect_uri: "" }, "invalid_request"],
      ["a script redirect_uri", { redirect_uri: "javascript:alert(1)" }, "invalid_request"],
      ["plain http to a remote host", { redirect_uri: "http://wallet.example/cb" }, "invalid_request"],
      ["a fragment", { redirect_uri: "https://wallet.example/cb#x" }, "invalid_request"],
      ["no PKCE", { code_challenge: "" }, "invalid_request"],
      ["plain PKCE", { code_challenge_method: "plain" }, "invalid_request"],
      ["a short challenge", { code_challenge: "abc" }, "invalid_request"],
      ["no issuer_state", { issuer_state: "" }, "invalid_request"],
      ["an unknown issuer_state", { issuer_state: "nope" }, "invalid_request"],
      ["another configuration's scope", { scope: "other-configuration" }, "invalid_scope"],
      [
        "details for another configuration",
        { authorization_details: '[{"type":"openid_credential","credential_configuration_id":"x"}]' },
        "invalid_authorization_details",
      ],
      ["details that are not JSON", { authorization_details: "[" }, "invalid_authorization_details"],
      ["another resource", { resource: "https://elsewhere.example" }, "invalid_target"],
      ["a request object", { request: "a.b.c" }, "invalid_request"],
      [
        "a redirect_uri with a code in its query",
        { redirect_uri: "https://wallet.example/cb?code=x" },
        "invalid_request",
      ],
      ["a long client_id", { client_id: "c".repeat(1_001) }, "invalid_request"],
      ["a dpop_jkt that is no thumbprint", { dpop_jkt: "abc" }, "invalid_request"],
      ["a long state", { state: "s".repeat(1_001) }, "invalid_request"],
      ["no challenge method", { code_challenge_method: "" }, "invalid_request"],
    ];
    for (const [label, change, error] of cases) {
      const body = Object.fromEntries(
        Object.entries(parBody(issuerState, challenge, change)).filter(([, v]) => v !== ""),
      );
      const r = await par(body);
      expect([label, r.status, r.body.error]).toEqual([label, 400, error]);
      expect(r.headers.get("cache-control")).toBe("no-store");
    }
    const json = await fetchJson(as.pushed_authorization_request_endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(parBody(issuerState, challenge)),
    });
    expect([json.status, json.body.error]).toEqual([400, "invalid_request"]);
    // None of that spent the offer.
    expect((await par(parBody(issuerState, challenge))).status).toBe(201);
  });

  it("takes an issuer's offer only at that issuer: another issuer's PAR and authorization endpoints refuse it", async () => {
    const other = await activeIssuer(t, t.adminKey);
    const otherAs = (await fetchJson(wellKnown("oauth-authorization-server", other.credentialIssuer))).body;
    const { issuerState } = await codeOffer();
    const { challenge } = pkce();
    const foreign = await par(parBody(issuerState, challenge), {
      endpoint: otherAs.pushed_authorization_request_endpoint,
    });
    expect([foreign.status, foreign.body.error]).toEqual([400, "invalid_request"]);
    const pushed = await par(parBody(issuerState, challenge));
    const elsewhere = await authorizeAt(
      { client_id: CLIENT_ID, request_uri: pushed.body.request_uri },
      otherAs.authorization_endpoint,
    );
    expect(elsewhere.status).toBe(400);
    // …and it was not spent there.
    expect((await authorizeAt({ client_id: CLIENT_ID, request_uri: pushed.body.request_uri })).status).toBe(
      302,
    );
  });

  it("authorizes a request_uri once, for its client only; anything else gets a page, not a redirect", async () => {
    const { issuerState } = await codeOffer();
    const pushed = await par(parBody(issuerState, pkce().challenge));
    const requestUri = pushed.body.request_uri as string;
    const wrongClient = await authorizeAt({ client_id: "someone-else", request_uri: requestUri });
    expect(wrongClient.status).toBe(400);
    expect(wrongClient.location).toBeNull();
    expect(wrongClient.res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(wrongClient.text).toMatch(/unknown, has expired or was already used/);
    expect((await authorizeAt({ client_id: CLIENT_ID, request_uri: requestUri })).status).toBe(302);
    const replay = await authorizeAt({ client_id: CLIENT_ID, request_uri: requestUri });
    expect([replay.status, replay.location]).toEqual([400, null]);
    const bare = await authorizeAt({
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      response_type: "code",
    });
    expect(bare.status).toBe(400);
    expect(bare.text).toMatch(/pushed authorization requests only/);
    const unknown = await authorizeAt({
      client_id: CLIENT_ID,
      request_uri: "urn:ietf:params:oauth:request_uri:nope",
    });
    expect(unknown.status).toBe(400);
    // The page escapes nothing it was given: it shows only fixed text.
    expect(unknown.text).not.toMatch(/nope/);
  });

  it("expires a request_uri after its minute", async () => {
    const { issuerState } = await codeOffer();
    const pushed = await par(parBody(issuerState, pkce().challenge));
    await t.server.database.prisma.authorizationRequest.updateMany({
      where: {
        transactionId: { not: "" },
        requestUriUsedAt: null,
        state: "wallet-state-1",
        createdAt: { gt: new Date(Date.now() - 5_000) },
      },
      data: { requestUriExpiresAt: new Date(Date.now() - 1_000) },
    });
    expect((await authorizeAt({ client_id: CLIENT_ID, request_uri: pushed.body.request_uri })).status).toBe(
      400,
    );
  });

  it("sends the wallet back with access_denied when the offer was cancelled after the push", async () => {
    const offer = await codeOffer();
    const pushed = await par(parBody(offer.issuerState, pkce().challenge));
    const cancelled = await call(t, "POST", `/v1.0/issuance-transactions/${offer.id}/cancel`, {
      key: t.adminKey,
    });
    expect(cancelled.status).toBe(200);
    const redirect = await authorizeAt({ client_id: CLIENT_ID, request_uri: pushed.body.request_uri });
    expect(redirect.status).toBe(302);
    const location = new URL(redirect.location as string);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("code")).toBeNull();
    expect(location.searchParams.get("state")).toBe("wallet-state-1");
    expect(location.searchParams.get("iss")).toBe(issuer.credentialIssuer);
    expect((await par(parBody(offer.issuerState, pkce().challenge))).body.error).toBe("invalid_request");
  });

  it("refuses a code without its verifier, redirect URI or client, and keeps it usable after those failures", async () => {
    const { code, verifier } = await authorizationCode();
    const good = { code, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: CLIENT_ID };
    const cases: [string, Record<string, string>, string][] = [
      ["no verifier", { code_verifier: "" }, "invalid_request"],
      ["a wrong verifier", { code_verifier: pkce().verifier }, "invalid_grant"],
      ["no redirect_uri", { redirect_uri: "" }, "invalid_request"],
      ["another redirect_uri", { redirect_uri: "https://wallet.example/callback" }, "invalid_grant"],
      ["no client_id", { client_id: "" }, "invalid_request"],
      ["another client_id", { client_id: "other" }, "invalid_grant"],
      ["an unknown code", { code: "nope" }, "invalid_grant"],
    ];
    for (const [label, change, error] of cases) {
      const body = Object.fromEntries(Object.entries({ ...good, ...change }).filter(([, v]) => v !== ""));
      const r = await tokenWithCode(body);
      expect([label, r.status, r.body.error]).toEqual([label, 400, error]);
    }
    expect((await tokenWithCode(good)).status).toBe(200);
  });

  it("spends a code once: a second exchange with its verifier fails and revokes the token of the first", async () => {
    const { code, verifier, offer } = await authorizationCode();
    const body = { code, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: CLIENT_ID };
    const first = await tokenWithCode(body);
    expect(first.status).toBe(200);
    // A used code leaked without its verifier cannot revoke anything.
    const leaked = await tokenWithCode({ ...body, code_verifier: pkce().verifier });
    expect([leaked.status, leaked.body.error]).toEqual([400, "invalid_grant"]);
    expect((await credentialWith(`Bearer ${first.body.access_token}`)).status).toBe(200);
    // Completed, the transaction keeps its sealed claims for further requests with the token (§14.3)...
    const transaction = () =>
      t.server.database.prisma.issuanceTransaction.findUniqueOrThrow({ where: { id: offer.id } });
    expect((await transaction()).claimsCipher).toEqual(expect.any(String));
    const second = await tokenWithCode(body);
    expect([second.status, second.body.error]).toEqual([400, "invalid_grant"]);
    const revoked = await credentialWith(`Bearer ${first.body.access_token}`);
    expect([revoked.status, revoked.body.error]).toEqual([401, "invalid_token"]);
    // ...and drops them with the revoked token.
    expect(await transaction()).toMatchObject({ status: "completed", claimsCipher: null });
  });

  it("grants the offered configuration's scope and ignores other scope values", async () => {
    const { code, verifier, location } = await authorizationCode({
      extra: { scope: `openid ${issuer.configuration}`, redirect_uri: "eudi-openid4ci://authorize" },
    });
    expect(location.protocol).toBe("eudi-openid4ci:");
    const tokenRes = await tokenWithCode({
      code,
      code_verifier: verifier,
      redirect_uri: "eudi-openid4ci://authorize",
      client_id: CLIENT_ID,
    });
    expect(tokenRes.status, JSON.stringify(tokenRes.body)).toBe(200);
    expect(tokenRes.body.scope).toBe(issuer.configuration);
  });

  it("refuses two resources with invalid_target, and a verifier of the wrong length with invalid_grant", async () => {
    const { issuerState } = await codeOffer();
    const body = new URLSearchParams(parBody(issuerState, pkce().challenge));
    body.append("resource", issuer.credentialIssuer);
    body.append("resource", issuer.credentialIssuer);
    const twice = await fetchJson(as.pushed_authorization_request_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: body.toString(),
    });
    expect([twice.status, twice.body.error]).toEqual([400, "invalid_target"]);
    const { code, verifier } = await authorizationCode();
    const good = { code, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: CLIENT_ID };
    const short = await tokenWithCode({ ...good, code_verifier: verifier.slice(0, 42) });
    expect([short.status, short.body.error]).toEqual([400, "invalid_grant"]);
    expect((await tokenWithCode(good)).status).toBe(200);
  });

  it("does not spend a request_uri on HEAD (link checkers, prefetch)", async () => {
    const { issuerState } = await codeOffer();
    const pushed = await par(parBody(issuerState, pkce().challenge));
    const url = `${as.authorization_endpoint}?${form({ client_id: CLIENT_ID, request_uri: pushed.body.request_uri })}`;
    const head = await fetch(url, { method: "HEAD", redirect: "manual" });
    expect(head.status).toBe(405);
    const redirect = await authorizeAt({ client_id: CLIENT_ID, request_uri: pushed.body.request_uri });
    expect(redirect.status).toBe(302);
    expect(redirect.res.headers.get("cache-control")).toBe("no-store");
    expect(redirect.res.headers.get("referrer-policy")).toBe("no-referrer");
  });

  it("takes a code only at its own issuer's token endpoint", async () => {
    const other = await activeIssuer(t, t.adminKey);
    const otherAs = (await fetchJson(wellKnown("oauth-authorization-server", other.credentialIssuer))).body;
    const { code, verifier } = await authorizationCode();
    const body = { code, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: CLIENT_ID };
    const elsewhere = await fetchJson(otherAs.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form({ grant_type: "authorization_code", ...body }),
    });
    expect([elsewhere.status, elsewhere.body.error]).toEqual([400, "invalid_grant"]);
    expect((await tokenWithCode(body)).status).toBe(200);
  });

  it("with two codes for one offer: the second fails, and replaying it does not revoke the first one's token", async () => {
    const offer = await codeOffer();
    const a = await authorizationCode({ offer });
    const b = await authorizationCode({ offer });
    const exchange = (c: typeof a) =>
      tokenWithCode({
        code: c.code,
        code_verifier: c.verifier,
        redirect_uri: REDIRECT_URI,
        client_id: CLIENT_ID,
      });
    const won = await exchange(b);
    expect(won.status).toBe(200);
    expect((await exchange(a)).body.error).toBe("invalid_grant");
    expect((await exchange(a)).body.error).toBe("invalid_grant");
    const issued = await credentialWith(`Bearer ${won.body.access_token}`);
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  });

  it("under concurrency: a request_uri authorizes once, a code is exchanged once and its token then revoked", async () => {
    const { issuerState } = await codeOffer();
    const pushed = await par(parBody(issuerState, pkce().challenge));
    const redirects = await Promise.all(
      Array.from({ length: 5 }, () =>
        authorizeAt({ client_id: CLIENT_ID, request_uri: pushed.body.request_uri }),
      ),
    );
    expect(redirects.map((r) => r.status).sort()).toEqual([302, 400, 400, 400, 400]);

    const { code, verifier } = await authorizationCode();
    const body = { code, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: CLIENT_ID };
    const exchanges = await Promise.all(Array.from({ length: 5 }, () => tokenWithCode(body)));
    const won = exchanges.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    // The other four were second uses of the code: the token of the first is revoked (RFC 6749 §4.1.2).
    const revoked = await credentialWith(`Bearer ${won[0]!.body.access_token}`);
    expect([revoked.status, revoked.body.error]).toEqual([401, "invalid_token"]);
  });

  it("refuses an expired code", async () => {
    const { code, verifier, offer } = await authorizationCode();
    await t.server.database.prisma.authorizationRequest.updateMany({
      where: { transactionId: offer.id },
      data: { codeExpiresAt: new Date(Date.now() - 1_000) },
    });
    const r = await tokenWithCode({
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: CLIENT_ID,
    });
    expect([r.status, r.body.error]).toEqual([400, "invalid_grant"]);
  });

  it("keeps the grants apart: an issuer_state is no pre-authorized code, and txCode needs the pre-authorized grant", async () => {
    const { issuerState } = await codeOffer();
    const asPreAuthorized = await fetchJson(as.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form({
        grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
        "pre-authorized_code": issuerState,
      }),
    });
    expect(asPreAuthorized.body.error).toBe("invalid_grant");
    const withTxCode = await call(t, "POST", "/v1.0/issuance-transactions", {
      key: t.adminKey,
      body: {
        credentialConfiguration: issuer.configuration,
        issuerId: issuer.issuerId,
        claims: { given_name: "Erika", family_name: "Mustermann" },
        delivery: { grant: "authorizationCode", txCode: { inputMode: "numeric", length: 6 } },
      },
    });
    expect(withTxCode.status).toBe(400);
    expect(errorCode(withTxCode)).toBe("ValidationFailed");
    expect(withTxCode.body.error.details[0].target).toBe("delivery.txCode");
    const bad = await call(t, "POST", "/v1.0/issuance-transactions", {
      key: t.adminKey,
      body: {
        credentialConfiguration: issuer.configuration,
        issuerId: issuer.issuerId,
        delivery: { grant: "implicit" },
      },
    });
    expect(errorCode(bad)).toBe("ValidationFailed");
  });

  it("allowedRedirectUris: only the listed redirect URIs, compared exactly; null takes any again", async () => {
    const path = `/management/issuers/${issuer.issuerId}`;
    const listed = ["eudi-openid4ci://authorize", REDIRECT_URI, "http://127.0.0.1:8080/cb"];
    const set = await call(t, "PATCH", path, { key: t.adminKey, body: { allowedRedirectUris: listed } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data.allowedRedirectUris).toEqual(listed);
    try {
      const { issuerState } = await codeOffer();
      for (const other of [
        "https://wallet.example/callback",
        `${REDIRECT_URI}&x=1`,
        "https://evil.example/cb",
        "http://127.0.0.1:8080/other",
      ]) {
        const refused = await par(parBody(issuerState, pkce().challenge, { redirect_uri: other }));
        expect([refused.status, refused.body.error], other).toEqual([400, "invalid_request"]);
        expect(refused.body.error_description).toMatch(
          /redirect_uri is not one this credential issuer allows/,
        );
      }
      // A loopback URI matches on any port (RFC 8252 §7.3).
      for (const uri of [...listed, "http://127.0.0.1:53117/cb"]) {
        const accepted = await par(parBody(issuerState, pkce().challenge, { redirect_uri: uri }));
        expect(accepted.status, uri).toBe(201);
      }
    } finally {
      const cleared = await call(t, "PATCH", path, { key: t.adminKey, body: { allowedRedirectUris: null } });
      expect(cleared.body.data.allowedRedirectUris).toBeNull();
    }
    const { issuerState } = await codeOffer();
    const anyAgain = await par(
      parBody(issuerState, pkce().challenge, { redirect_uri: "https://any.example/cb" }),
    );
    expect(anyAgain.status).toBe(201);
  });

  it("allowedRedirectUris: set at creation; 400 for a list wallets could be sent somewhere unsafe by", async () => {
    const path = `/management/issuers/${issuer.issuerId}`;
    for (const allowedRedirectUris of [
      [],
      ["javascript:alert(1)"],
      ["http://wallet.example/cb"],
      ["https://wallet.example/cb#x"],
      ["not a uri"],
      [REDIRECT_URI, REDIRECT_URI],
    ]) {
      const bad = await call(t, "PATCH", path, { key: t.adminKey, body: { allowedRedirectUris } });
      expect([bad.status, errorCode(bad)], JSON.stringify(allowedRedirectUris)).toEqual([
        400,
        "ValidationFailed",
      ]);
    }
    expect((await call(t, "GET", path, { key: t.adminKey })).body.data.allowedRedirectUris).toBeNull();
    const org = (await call(t, "GET", path, { key: t.adminKey })).body.data.organisationReference;
    const created = await call(t, "POST", "/management/issuers", {
      key: t.adminKey,
      body: {
        organisationReference: org,
        displayName: "Listed",
        allowedRedirectUris: ["http://127.0.0.1:9/cb"],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.allowedRedirectUris).toEqual(["http://127.0.0.1:9/cb"]);
  });

  it("offers the authorization code grant by value too", async () => {
    const created = await createTransaction(t, t.adminKey, issuer, {
      grant: "authorizationCode",
      offerBy: "value",
    });
    const offer = await resolveOffer(created.credentialOffer);
    expect(offer.grants.authorization_code.issuer_state).toEqual(expect.any(String));
    expect(offer.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]).toBeUndefined();
  });
});

describe("authorization code flow with DPoP", () => {
  const dpopFor = (key: Key, url: string, accessToken?: string) =>
    createDpopProof({ ...key, method: "POST", url, ...(accessToken ? { accessToken } : {}) });

  it("binds the code to the PAR's proof key: the token needs a proof by that key and is DPoP-bound", async () => {
    const key = await generateEs256KeyPair();
    const { code, verifier } = await authorizationCode({
      dpop: await dpopFor(key, as.pushed_authorization_request_endpoint),
    });
    const body = { code, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: CLIENT_ID };
    const without = await tokenWithCode(body);
    expect([without.status, without.body.error]).toEqual([400, "invalid_dpop_proof"]);
    const otherKey = await generateEs256KeyPair();
    const other = await tokenWithCode(body, await dpopFor(otherKey, as.token_endpoint));
    expect([other.status, other.body.error]).toEqual([400, "invalid_dpop_proof"]);
    const bound = await tokenWithCode(body, await dpopFor(key, as.token_endpoint));
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
    expect(bound.body.token_type).toBe("DPoP");
    const accessToken = bound.body.access_token as string;
    const issued = await credentialWith(
      `DPoP ${accessToken}`,
      await dpopFor(key, metadata.credential_endpoint, accessToken),
    );
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  });

  it("binds with dpop_jkt alone, refuses a dpop_jkt that is not the proof's key, and a proof for another URL", async () => {
    const key = await generateEs256KeyPair();
    const jkt = jwkThumbprintKid(key.publicJwk);
    const { code, verifier } = await authorizationCode({ extra: { dpop_jkt: jkt } });
    const body = { code, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: CLIENT_ID };
    expect((await tokenWithCode(body)).body.error).toBe("invalid_dpop_proof");
    expect((await tokenWithCode(body, await dpopFor(key, as.token_endpoint))).body.token_type).toBe("DPoP");

    const { issuerState } = await codeOffer();
    const otherKey = await generateEs256KeyPair();
    const mismatch = await par(parBody(issuerState, pkce().challenge, { dpop_jkt: jkt }), {
      dpop: await dpopFor(otherKey, as.pushed_authorization_request_endpoint),
    });
    expect([mismatch.status, mismatch.body.error]).toEqual([400, "invalid_dpop_proof"]);
    const wrongUrl = await par(parBody(issuerState, pkce().challenge), {
      dpop: await dpopFor(key, as.token_endpoint),
    });
    expect([wrongUrl.status, wrongUrl.body.error]).toEqual([400, "invalid_dpop_proof"]);
  });

  it("requireDpop: an issuer that requires DPoP refuses a push without a proof or dpop_jkt", async () => {
    const path = `/management/issuers/${issuer.issuerId}`;
    expect((await call(t, "PATCH", path, { key: t.adminKey, body: { requireDpop: true } })).status).toBe(200);
    try {
      const { issuerState } = await codeOffer();
      const refused = await par(parBody(issuerState, pkce().challenge));
      expect([refused.status, refused.body.error]).toEqual([400, "invalid_dpop_proof"]);
      const key = await generateEs256KeyPair();
      const accepted = await par(parBody(issuerState, pkce().challenge), {
        dpop: await dpopFor(key, as.pushed_authorization_request_endpoint),
      });
      expect(accepted.status).toBe(201);
    } finally {
      await call(t, "PATCH", path, { key: t.adminKey, body: { requireDpop: false } });
    }
  });

  it("requireDpopNonce: a push's proof needs the issuer's nonce, and the push answer brings the next one", async () => {
    const path = `/management/issuers/${issuer.issuerId}`;
    expect((await call(t, "PATCH", path, { key: t.adminKey, body: { requireDpopNonce: true } })).status).toBe(
      200,
    );
    try {
      const key = await generateEs256KeyPair();
      const { issuerState } = await codeOffer();
      const { verifier, challenge } = pkce();
      const body = parBody(issuerState, challenge);
      const refused = await par(body, { dpop: await dpopFor(key, as.pushed_authorization_request_endpoint) });
      expect([refused.status, refused.body.error]).toEqual([400, "use_dpop_nonce"]);
      const nonceProof = (url: string, nonce: string | null) =>
        createDpopProof({ ...key, method: "POST", url, nonce: nonce as string });
      const pushed = await par(body, {
        dpop: await nonceProof(as.pushed_authorization_request_endpoint, refused.headers.get("dpop-nonce")),
      });
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);
      const redirect = await authorizeAt({ client_id: CLIENT_ID, request_uri: pushed.body.request_uri });
      const code = new URL(redirect.location as string).searchParams.get("code") as string;
      const token = await tokenWithCode(
        { code, code_verifier: verifier, redirect_uri: REDIRECT_URI, client_id: CLIENT_ID },
        await nonceProof(as.token_endpoint, pushed.headers.get("dpop-nonce")),
      );
      expect(token.status, JSON.stringify(token.body)).toBe(200);
      expect(token.body.token_type).toBe("DPoP");
    } finally {
      await call(t, "PATCH", path, { key: t.adminKey, body: { requireDpopNonce: false } });
    }
  });
});
