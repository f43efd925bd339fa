import { importEs256PublicKey, verifySdJwtVc } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ActiveIssuer,
  activeIssuer,
  createTransactionWith,
  EMPLOYEE_CLAIMS,
  ISSUANCE_TRANSACTIONS_PATH,
  PRE_AUTHORIZED_CODE_GRANT,
  publishedIssuerKey,
  VALID_CLAIMS,
} from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import {
  fetchJson,
  holderKey,
  nonce,
  proof,
  redeemOffer,
  requestCredential,
  resolveOffer,
  token,
  wellKnown,
} from "./wallet-client";

/** OpenID4VCI flow: the credential endpoint (proofs, nonces, batches, notifications, concurrency). */

let t: TestServer;
let issuer: ActiveIssuer;
const PATH = ISSUANCE_TRANSACTIONS_PATH;
const PRE_AUTH = PRE_AUTHORIZED_CODE_GRANT;

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
});
afterAll(() => t?.close());

const create = (extra: Record<string, unknown> = {}, key = t.adminKey) =>
  createTransactionWith(t, key, issuer, extra);
const issuerKey = () => publishedIssuerKey(issuer);

describe("OpenID4VCI flow", () => {
  it("issues nested claims whose parent object the configuration does not declare", async () => {
    const nested = await activeIssuer(t, t.adminKey, {
      claims: [
        { path: ["place", "city"], type: "string", required: true },
        { path: ["place", "zip"], type: "string", required: false },
      ],
    });
    const body = (claims: unknown) => ({
      issuerId: nested.issuerId,
      credentialConfiguration: nested.configuration,
      claims,
    });
    const flat = await call(t, "POST", PATH, { key: t.adminKey, body: body({ "place.city": "Utrecht" }) });
    expect(flat.status).toBe(400);
    expect(errorCode(flat)).toBe("UnknownClaim");
    const missing = await call(t, "POST", PATH, { key: t.adminKey, body: body({}) });
    expect(missing.body.error.details).toEqual([
      expect.objectContaining({ code: "MissingClaim", target: "claims.place.city" }),
    ]);
    const created = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: body({ place: { city: "Utrecht" } }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const flow = await redeemOffer(created.body.data.credentialOffer);
    const [{ credential }] = flow.credentialRes.body.credentials;
    const key = await importEs256PublicKey(
      (await fetchJson(wellKnown("jwt-vc-issuer", nested.credentialIssuer))).body.jwks.keys[0],
    );
    const verified = await verifySdJwtVc(credential, {
      resolveIssuerKey: async () => key,
      now: new Date(),
      expectedVct: [nested.credentialType],
    });
    if (!verified.ok) throw new Error(JSON.stringify(verified.reasons));
    expect((verified.payload as Record<string, unknown>).place).toEqual({ city: "Utrecht" });
  });

  it("issues an SD-JWT VC a wallet can verify with the published key, and completes the transaction", async () => {
    const tx = await create();
    const flow = await redeemOffer(tx.credentialOffer);
    expect(flow.tokenRes.headers.get("cache-control")).toBe("no-store");
    expect(flow.tokenRes.body.token_type).toBe("Bearer");
    expect(flow.credentialRes.status).toBe(200);
    expect(flow.credentialRes.headers.get("cache-control")).toBe("no-store");
    const [{ credential }] = flow.credentialRes.body.credentials;
    expect(typeof flow.credentialRes.body.notification_id).toBe("string");
    const key = await issuerKey();
    const verified = await verifySdJwtVc(credential, {
      resolveIssuerKey: async () => key,
      now: new Date(),
      expectedVct: [issuer.credentialType],
    });
    if (!verified.ok) throw new Error(JSON.stringify(verified.reasons));
    expect(verified.header).toMatchObject({ typ: "dc+sd-jwt", alg: "ES256" });
    expect(verified.header.kid).toBeTruthy();
    const p = verified.payload as Record<string, any>;
    expect(p.iss).toBe(issuer.credentialIssuer);
    expect(p.vct).toBe(issuer.credentialType);
    expect(p.exp - p.iat).toBe(365 * 86400);
    // Rounded to the start of the UTC day (OpenID4VCI §15.4.1), so it says nothing of the moment.
    expect(p.iat % 86_400).toBe(0);
    expect(Date.now() / 1000 - p.iat).toBeLessThan(86_400);
    expect(p.cnf.jwk).toMatchObject({ kty: "EC", crv: "P-256", x: flow.keys[0]!.publicJwk.x });
    expect(p.status.status_list.uri).toMatch(`${issuer.credentialIssuer}/status-lists/`);
    expect(p).toMatchObject({
      given_name: "Erika",
      family_name: "Mustermann",
      employee_number: 4711,
      address: { country: "DE" },
    });
    // Configured claims are disclosures; registered claims and non-SD claims are in the clear.
    const issuerJwtPayload = JSON.parse(
      Buffer.from(credential.split("~")[0].split(".")[1], "base64url").toString(),
    );
    expect(issuerJwtPayload.given_name).toBeUndefined();
    expect(issuerJwtPayload.employee_number).toBe(4711);
    expect(issuerJwtPayload._sd.length).toBeGreaterThanOrEqual(4);
    for (const registered of ["iss", "vct", "iat", "exp", "cnf", "status"])
      expect(issuerJwtPayload[registered]).toBeDefined();

    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey });
    expect(read.body.data).toMatchObject({ status: "completed", credentialOffer: null });
    expect(read.body.data.credentialId).toMatch(/^cred_/);
    // The claims stay sealed only while the access token lives, for further requests with it (§14.3;
    // apps/api/test/repeat-credential-requests.test.ts); the credential record keeps none of them.
    const row = await t.server.database.prisma.issuanceTransaction.findUniqueOrThrow({
      where: { id: tx.id },
    });
    expect(JSON.stringify(row)).not.toMatch(/Erika|Mustermann/);
    const cred = await t.server.database.prisma.credential.findUniqueOrThrow({
      where: { id: read.body.data.credentialId },
    });
    expect(JSON.stringify(cred)).not.toMatch(/Erika|Mustermann/);
  });

  it("nonces are single use; proofs with a wrong aud, stale iat or missing proof are refused; aud may be an array", async () => {
    const tx = await create();
    const offer = await resolveOffer(tx.credentialOffer);
    const tok = await token(`${issuer.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    const at = tok.body.access_token;
    const endpoint = `${issuer.credentialIssuer}/credential`;
    const key = await holderKey();
    const nonceRes = await fetch(`${issuer.credentialIssuer}/nonce`, { method: "POST" });
    expect(nonceRes.headers.get("cache-control")).toBe("no-store");
    const send = (jwts: string[]) =>
      requestCredential(endpoint, at, {
        credential_configuration_id: issuer.configuration,
        proofs: { jwt: jwts },
      });

    const wrongAud = await send([
      await proof(key, "https://elsewhere.example", await nonce(`${issuer.credentialIssuer}/nonce`)),
    ]);
    expect(wrongAud.body.error).toBe("invalid_proof");
    const stale = await send([
      await proof(
        key,
        issuer.credentialIssuer,
        await nonce(`${issuer.credentialIssuer}/nonce`),
        Math.floor(Date.now() / 1000) - 3600,
      ),
    ]);
    expect(stale.body.error).toBe("invalid_proof");
    const noProof = await requestCredential(endpoint, at, {
      credential_configuration_id: issuer.configuration,
    });
    expect(noProof.body.error).toBe("invalid_proof");
    const unknownCfg = await requestCredential(endpoint, at, {
      credential_configuration_id: "other",
      proofs: { jwt: ["x"] },
    });
    expect(unknownCfg.body.error).toBe("unknown_credential_configuration");
    // One the issuer offers, but not the one this token is for: an authorization error (§8.3.1.1).
    const otherConfig = await call(t, "POST", "/management/credential-configurations", {
      key: t.adminKey,
      body: {
        identifier: `second-${Date.now().toString(36)}`,
        displayName: "Second",
        issuerId: issuer.issuerId,
        schemaId: "second-v1",
        claims: EMPLOYEE_CLAIMS,
      },
    });
    expect(otherConfig.status, JSON.stringify(otherConfig.body)).toBe(201);
    const beyond = await requestCredential(endpoint, at, {
      credential_configuration_id: otherConfig.body.data.identifier,
      proofs: { jwt: ["x"] },
    });
    expect(beyond.status).toBe(403);
    expect(beyond.body.error).toBe("insufficient_scope");
    expect(beyond.headers.get("www-authenticate")).toMatch(/^Bearer error="insufficient_scope"/);
    const fabricated = await send([await proof(key, issuer.credentialIssuer, "not-a-nonce-we-issued")]);
    expect(fabricated.body.error).toBe("invalid_nonce");

    const wrongAudArray = await send([
      await proof(key, ["https://elsewhere.example"], await nonce(`${issuer.credentialIssuer}/nonce`)),
    ]);
    expect(wrongAudArray.body.error).toBe("invalid_proof");
    const n = await nonce(`${issuer.credentialIssuer}/nonce`);
    // RFC 7519 §4.1.3: an aud array that holds the credential issuer identifier names it as well.
    const ok = await send([await proof(key, [issuer.credentialIssuer], n)]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const second = await create();
    const flow2Offer = await resolveOffer(second.credentialOffer);
    const tok2 = await token(`${issuer.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": flow2Offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    const replay = await requestCredential(endpoint, tok2.body.access_token, {
      credential_configuration_id: issuer.configuration,
      proofs: { jwt: [await proof(key, issuer.credentialIssuer, n)] },
    });
    expect(replay.body.error).toBe("invalid_nonce");
    // A completed transaction issues again with its token and a fresh nonce (§14.3), never on a spent one.
    const spent = await send([await proof(key, issuer.credentialIssuer, n)]);
    expect(spent.body.error).toBe("invalid_nonce");
    const again = await send([
      await proof(key, issuer.credentialIssuer, await nonce(`${issuer.credentialIssuer}/nonce`)),
    ]);
    expect(again.status).toBe(200);
  });

  it("returns credential_identifiers when the token request used authorization_details, and accepts them", async () => {
    const tx = await create();
    const offer = await resolveOffer(tx.credentialOffer);
    const tok = await token(`${issuer.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
      authorization_details: JSON.stringify([
        { type: "openid_credential", credential_configuration_id: issuer.configuration },
      ]),
    });
    expect(tok.status).toBe(200);
    expect(tok.body.authorization_details).toEqual([
      {
        type: "openid_credential",
        credential_configuration_id: issuer.configuration,
        credential_identifiers: [issuer.configuration],
      },
    ]);
    const key = await holderKey();
    const res = await requestCredential(`${issuer.credentialIssuer}/credential`, tok.body.access_token, {
      credential_identifier: issuer.configuration,
      proofs: {
        jwt: [await proof(key, issuer.credentialIssuer, await nonce(`${issuer.credentialIssuer}/nonce`))],
      },
    });
    expect(res.status).toBe(200);
  });

  it("refuses authorization_details naming a configuration that was not offered, and keeps the code", async () => {
    const tx = await create();
    const offer = await resolveOffer(tx.credentialOffer);
    const code = offer.grants[PRE_AUTH]["pre-authorized_code"];
    const asked = (id: string) =>
      token(`${issuer.credentialIssuer}/token`, {
        grant_type: PRE_AUTH,
        "pre-authorized_code": code,
        authorization_details: JSON.stringify([
          { type: "openid_credential", credential_configuration_id: id, locations: ["https://x.example"] },
        ]),
      });
    const other = await asked("something-else");
    expect(other.status).toBe(400);
    expect(other.body.error).toBe("invalid_authorization_details");
    // The refusal spent nothing: the same code with the offered configuration is redeemed, echoing the entry.
    const ok = await asked(issuer.configuration);
    expect(ok.status).toBe(200);
    expect(ok.body.authorization_details).toEqual([
      {
        type: "openid_credential",
        credential_configuration_id: issuer.configuration,
        locations: ["https://x.example"],
        credential_identifiers: [issuer.configuration],
      },
    ]);
  });

  it("answers 401 invalid_token without a valid bearer token", async () => {
    const r = await requestCredential(`${issuer.credentialIssuer}/credential`, "bogus", {
      credential_configuration_id: issuer.configuration,
    });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe("invalid_token");
    expect(r.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);
    // No credentials at all: a bare challenge (RFC 6750 §3.1), at the credential and notification endpoints.
    for (const path of ["credential", "notification"]) {
      const none = await fetchJson(`${issuer.credentialIssuer}/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect([path, none.status, none.headers.get("www-authenticate")]).toEqual([
        path,
        401,
        'Bearer, DPoP algs="ES256"',
      ]);
    }
  });

  it("issues a batch with distinct keys, status indices and salts", async () => {
    const tx = await create();
    const flow = await redeemOffer(tx.credentialOffer, { proofs: 3 });
    expect(flow.credentialRes.status).toBe(200);
    const creds: string[] = flow.credentialRes.body.credentials.map(
      (c: { credential: string }) => c.credential,
    );
    expect(creds).toHaveLength(3);
    const payloads = creds.map((c) =>
      JSON.parse(Buffer.from(c.split("~")[0]!.split(".")[1]!, "base64url").toString()),
    );
    expect(new Set(payloads.map((p) => p.status.status_list.idx)).size).toBe(3);
    expect(new Set(payloads.map((p) => p.cnf.jwk.x)).size).toBe(3);
    const firstDisclosures = creds.map((c) => c.split("~")[1]);
    expect(new Set(firstDisclosures).size).toBe(3);
  });

  it("records wallet notifications (204, idempotent) and emits an event", async () => {
    const tx = await create();
    const flow = await redeemOffer(tx.credentialOffer);
    const endpoint = `${issuer.credentialIssuer}/notification`;
    const send = (b: unknown) =>
      fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${flow.accessToken}` },
        body: JSON.stringify(b),
      });
    const notification = {
      notification_id: flow.credentialRes.body.notification_id,
      event: "credential_accepted",
    };
    expect((await send(notification)).status).toBe(204);
    expect((await send(notification)).status).toBe(204);
    const bad = await send({ notification_id: "unknown", event: "credential_accepted" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe("invalid_notification_id");
    // Names every object has are not events (they were: 500, or junk stored for __proto__).
    for (const event of ["constructor", "toString", "__proto__"]) {
      const odd = await send({ notification_id: notification.notification_id, event });
      expect([event, odd.status, ((await odd.json()) as { error: string }).error]).toEqual([
        event,
        400,
        "invalid_notification_request",
      ]);
    }
    // §11.1: event_description is printable ASCII without " and \ (%x20-21 / %x23-5B / %x5D-7E).
    for (const description of ['said "no"', "C:\\wallet", "two\nlines", "gelöscht"]) {
      const odd = await send({
        ...notification,
        event: "credential_deleted",
        event_description: description,
      });
      expect([description, odd.status, ((await odd.json()) as { error: string }).error]).toEqual([
        description,
        400,
        "invalid_notification_request",
      ]);
    }
    const described = await send({ ...notification, event_description: "Stored (slot #2) - OK!" });
    expect(described.status).toBe(204);
    const events = await t.server.database.prisma.outboxEvent.findMany({
      where: { type: "credential.accepted" },
    });
    expect(
      events.filter((e) => (e.payload as { transactionId: string }).transactionId === tx.id),
    ).toHaveLength(1);
  });

  it("takes a c_nonce only at the issuer that handed it out: not another issuer's, of this tenant or another", async () => {
    const otherKey = (await t.otherTenant()).key;
    const others = [
      { active: await activeIssuer(t, t.adminKey), key: t.adminKey },
      { active: await activeIssuer(t, otherKey), key: otherKey },
    ];
    const holder = await holderKey();
    /** A credential request at `active` with an access token of its own and a proof with `cNonce`. */
    const requestAt = async (active: ActiveIssuer, key: string, cNonce: string) => {
      const created = await call(t, "POST", PATH, {
        key,
        body: {
          credentialConfiguration: active.configuration,
          issuerId: active.issuerId,
          claims: VALID_CLAIMS,
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const offer = await resolveOffer(created.body.data.credentialOffer);
      const tok = await token(`${active.credentialIssuer}/token`, {
        grant_type: PRE_AUTH,
        "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
      });
      return requestCredential(`${active.credentialIssuer}/credential`, tok.body.access_token, {
        credential_configuration_id: active.configuration,
        proofs: { jwt: [await proof(holder, active.credentialIssuer, cNonce)] },
      });
    };
    for (const other of others) {
      const theirs = await nonce(`${other.active.credentialIssuer}/nonce`);
      const refused = await requestAt(issuer, t.adminKey, theirs);
      expect([refused.status, refused.body.error], other.active.issuerId).toEqual([400, "invalid_nonce"]);
      // The nonce is good where it came from (and the refusal did not spend it).
      const there = await requestAt(other.active, other.key, theirs);
      expect(there.status, JSON.stringify(there.body)).toBe(200);
    }
    const own = await requestAt(issuer, t.adminKey, await nonce(`${issuer.credentialIssuer}/nonce`));
    expect(own.status, JSON.stringify(own.body)).toBe(200);
  });

  it("spends a c_nonce once even when several transactions present it at the same moment", async () => {
    const tokens = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const offer = await resolveOffer((await create()).credentialOffer);
        return (
          await token(`${issuer.credentialIssuer}/token`, {
            grant_type: PRE_AUTH,
            "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
          })
        ).body.access_token as string;
      }),
    );
    const key = await holderKey();
    const shared = await nonce(`${issuer.credentialIssuer}/nonce`);
    const endpoint = `${issuer.credentialIssuer}/credential`;
    const attempt = async (at: string, c: string) =>
      requestCredential(endpoint, at, {
        credential_configuration_id: issuer.configuration,
        proofs: { jwt: [await proof(key, issuer.credentialIssuer, c)] },
      });
    const results = await Promise.all(tokens.map((at) => attempt(at, shared)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.map((r) => r.body.error)).toEqual(["invalid_nonce", "invalid_nonce", "invalid_nonce"]);
    // The refused transactions stay pending and succeed with a fresh nonce.
    const losers = tokens.filter((_, i) => results[i]!.status !== 200);
    for (const at of losers) {
      expect((await attempt(at, await nonce(`${issuer.credentialIssuer}/nonce`))).status).toBe(200);
    }
  });

  it("refuses the credential with invalid_token when the transaction was cancelled after its token was issued", async () => {
    const tx = await create();
    const offer = await resolveOffer(tx.credentialOffer);
    const tok = await token(`${issuer.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    expect((await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: t.adminKey })).status).toBe(200);
    const key = await holderKey();
    const res = await requestCredential(`${issuer.credentialIssuer}/credential`, tok.body.access_token, {
      credential_configuration_id: issuer.configuration,
      proofs: {
        jwt: [await proof(key, issuer.credentialIssuer, await nonce(`${issuer.credentialIssuer}/nonce`))],
      },
    });
    // Cancelling revoked the token: 401 invalid_token, whether the token was still in this process's
    // memory (this first request) or read again (the retry), on any process.
    expect([res.status, res.body.error]).toEqual([401, "invalid_token"]);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);
    const retry = await requestCredential(`${issuer.credentialIssuer}/credential`, tok.body.access_token, {
      credential_configuration_id: issuer.configuration,
      proofs: {
        jwt: [await proof(key, issuer.credentialIssuer, await nonce(`${issuer.credentialIssuer}/nonce`))],
      },
    });
    expect([retry.status, retry.body.error]).toEqual([401, "invalid_token"]);
    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey });
    expect(read.body.data.status).toBe("cancelled");
  });

  it("gives concurrent issuances distinct status indices", async () => {
    const txs = await Promise.all(Array.from({ length: 8 }, () => create()));
    const flows = await Promise.all(txs.map((tx) => redeemOffer(tx.credentialOffer)));
    const indices = flows.map((f) => {
      const c = f.credentialRes.body.credentials[0].credential as string;
      return JSON.parse(Buffer.from(c.split("~")[0]!.split(".")[1]!, "base64url").toString()).status
        .status_list.idx;
    });
    expect(new Set(indices).size).toBe(indices.length);
  });
});
