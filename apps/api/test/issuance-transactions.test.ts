import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ActiveIssuer,
  activeIssuer,
  createTransactionWith,
  ISSUANCE_TRANSACTIONS_PATH,
  PRE_AUTHORIZED_CODE_GRANT,
  transactionBody,
  VALID_CLAIMS,
} from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { redeemOffer, resolveOffer, token } from "./wallet-client";

/** IssuanceTransactions_Create, _Get and _Cancel, and Credentials_Issue over REST. */

let t: TestServer;
let issuer: ActiveIssuer;
const PATH = ISSUANCE_TRANSACTIONS_PATH;
const PRE_AUTH = PRE_AUTHORIZED_CODE_GRANT;

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
});
afterAll(() => t?.close());

const body = (extra: Record<string, unknown> = {}) => transactionBody(issuer, extra);
const create = (extra: Record<string, unknown> = {}, key = t.adminKey) =>
  createTransactionWith(t, key, issuer, extra);

describe("IssuanceTransactions_Create", () => {
  it("invocation haip links the offer with haip-vci://, by reference and by value, on create and on read", async () => {
    const byReference = await create({ delivery: { invocation: "haip" } });
    expect(byReference.credentialOffer).toBe(
      `haip-vci://?credential_offer_uri=${encodeURIComponent(byReference.credentialOfferUri)}`,
    );
    const read = await call(t, "GET", `${PATH}/${byReference.id}`, { key: t.adminKey });
    expect(read.body.data.credentialOffer).toBe(byReference.credentialOffer);
    const byValue = await create({ delivery: { invocation: "haip", offerBy: "value" } });
    expect(byValue.credentialOffer).toMatch(/^haip-vci:\/\/\?credential_offer=%7B/);
    expect((await create()).credentialOffer).toMatch(/^openid-credential-offer:\/\/\?credential_offer_uri=/);
    const bad = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: body({ delivery: { invocation: "haip-vci" } }),
    });
    expect([bad.status, errorCode(bad)]).toEqual([400, "ValidationFailed"]);
  });

  it("201 with an offer by reference, unique per offer", async () => {
    const r = await call(t, "POST", PATH, { key: t.adminKey, body: body({ callbackReference: "order-1" }) });
    expect(r.status).toBe(201);
    expect(r.headers.get("x-correlation-id")).toBeTruthy();
    const tx = r.body.data;
    expect(tx).toMatchObject({
      status: "pending",
      issuerId: issuer.issuerId,
      credentialConfiguration: issuer.configuration,
    });
    expect(tx.credentialOffer).toMatch(/^openid-credential-offer:\/\/\?credential_offer_uri=/);
    expect(tx.txCode).toBeNull();
    const other = await create();
    expect(other.credentialOfferUri).not.toBe(tx.credentialOfferUri);
    const offerRes = await fetch(tx.credentialOfferUri);
    expect(offerRes.headers.get("content-type")).toMatch(/^application\/json/);
    const offer = (await offerRes.json()) as any;
    expect(offer.credential_issuer).toBe(issuer.credentialIssuer);
    expect(offer.credential_configuration_ids).toEqual([issuer.configuration]);
    expect(offer.grants[PRE_AUTH]["pre-authorized_code"]).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    // The first fetch is served from what the create remembered, a second one from the database.
    expect(await (await fetch(tx.credentialOfferUri)).json()).toEqual(offer);
  });

  it("201 with an offer by value and a tx_code returned once", async () => {
    const tx = await create({
      delivery: { offerBy: "value", txCode: { inputMode: "numeric", length: 6, description: "By SMS" } },
    });
    expect(tx.credentialOfferUri).toBeNull();
    expect(tx.txCode).toMatch(/^\d{6}$/);
    const offer = await resolveOffer(tx.credentialOffer);
    expect(offer.grants[PRE_AUTH].tx_code).toEqual({
      input_mode: "numeric",
      length: 6,
      description: "By SMS",
    });
    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey });
    expect(read.body.data.txCode).toBeNull();
    expect(read.body.data.credentialOffer).toBe(tx.credentialOffer);
  });

  it("400 UnknownClaim naming the path", async () => {
    const r = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: body({ claims: { ...VALID_CLAIMS, address: { country: "DE", city: "Berlin" } } }),
    });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("UnknownClaim");
    expect(r.body.error.details[0].target).toBe("claims.address.city");
  });

  it("400 for invalid claims, with details", async () => {
    const r = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: body({ claims: { family_name: 7, birthdate: "26.01.1984", address: { country: "de" } } }),
    });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ValidationFailed");
    expect(r.body.error.details.map((d: { target: string }) => d.target).sort()).toEqual(
      ["claims.address.country", "claims.birthdate", "claims.family_name", "claims.given_name"].sort(),
    );
  });

  it("400 for a malformed body", async () => {
    const r = await call(t, "POST", PATH, { key: t.adminKey, body: { issuerId: issuer.issuerId } });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ValidationFailed");
  });

  it("401 without a key and 403 without credentials.issue", async () => {
    expect((await call(t, "POST", PATH, { body: body() })).status).toBe(401);
    const reader = await t.key({ scopes: ["credentials.read"] });
    const r = await call(t, "POST", PATH, { key: reader, body: body() });
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe("MissingScope");
  });

  it("404 for an unknown configuration or another tenant's issuer", async () => {
    const r = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: body({ credentialConfiguration: "nope" }),
    });
    expect(r.status).toBe(404);
    const other = await t.otherTenant();
    const foreign = await call(t, "POST", PATH, { key: other.key, body: body() });
    expect(foreign.status).toBe(404);
    const production = await t.key({ environment: "production" });
    expect((await call(t, "POST", PATH, { key: production, body: body() })).status).toBe(404);
  });

  it("409 when the issuer is not active", async () => {
    const org = await call(t, "POST", "/management/organisations", {
      key: t.adminKey,
      body: { reference: "draft-org", displayName: "D" },
    });
    const draft = await call(t, "POST", "/management/issuers", {
      key: t.adminKey,
      body: { organisationReference: org.body.data.reference, displayName: "Draft" },
    });
    const cfg = await call(t, "POST", "/management/credential-configurations", {
      key: t.adminKey,
      body: {
        identifier: "draft-cfg",
        displayName: "D",
        issuerId: draft.body.data.id,
        schemaId: "s",
        claims: [],
      },
    });
    expect(cfg.status).toBe(201);
    const r = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: { credentialConfiguration: "draft-cfg", issuerId: draft.body.data.id, claims: {} },
    });
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("IssuerNotActive");
  });

  it("409 when the issuer is not authorised for the configuration", async () => {
    const second = await activeIssuer(t, t.adminKey);
    const r = await call(t, "POST", PATH, { key: t.adminKey, body: body({ issuerId: second.issuerId }) });
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("IssuerNotAuthorised");
  });

  it("Idempotency-Key replays and refuses another payload (409)", async () => {
    const headers = { "idempotency-key": "itx-1" };
    const first = await call(t, "POST", PATH, { key: t.adminKey, body: body(), headers });
    const again = await call(t, "POST", PATH, { key: t.adminKey, body: body(), headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.id).toBe(first.body.data.id);
    const other = await call(t, "POST", PATH, {
      key: t.adminKey,
      body: body({ callbackReference: "x" }),
      headers,
    });
    expect(other.status).toBe(409);
    expect(errorCode(other)).toBe("IdempotencyKeyReused");
    const count = await t.server.database.prisma.issuanceTransaction.count({
      where: { id: first.body.data.id },
    });
    expect(count).toBe(1);
  });

  it("keeps a replayable response sealed: the tx_code and the offer's code are not stored in plain text", async () => {
    const headers = { "idempotency-key": "itx-sealed" };
    const payload = body({
      delivery: { offerBy: "value", txCode: { inputMode: "numeric", length: 8 } },
    });
    const first = await call(t, "POST", PATH, { key: t.adminKey, body: payload, headers });
    expect(first.status).toBe(201);
    const { txCode, credentialOffer } = first.body.data;
    const stored = await t.server.database.prisma.idempotencyRecord.findFirstOrThrow({
      where: { key: "itx-sealed" },
    });
    const text = JSON.stringify(stored.responseBody);
    expect(text).not.toContain(txCode);
    expect(text).not.toContain(first.body.data.id);
    const code = (await resolveOffer(credentialOffer)).grants[PRE_AUTH]["pre-authorized_code"];
    expect(text).not.toContain(code);
    const again = await call(t, "POST", PATH, { key: t.adminKey, body: payload, headers });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
  });

  it("issuer-bound keys use their issuer and may not name another", async () => {
    const bound = await t.key({
      issuerId: issuer.issuerId,
      scopes: ["credentials.issue", "credentials.read"],
    });
    const r = await call(t, "POST", PATH, {
      key: bound,
      body: { credentialConfiguration: issuer.configuration, claims: VALID_CLAIMS },
    });
    expect(r.status).toBe(201);
    expect(r.body.data.issuerId).toBe(issuer.issuerId);
    const second = await activeIssuer(t, t.adminKey);
    const mismatch = await call(t, "POST", PATH, { key: bound, body: body({ issuerId: second.issuerId }) });
    expect(mismatch.status).toBe(403);
  });

  it("an Idempotency-Key does not replay another caller's issuer to an issuer-bound key", async () => {
    const second = await activeIssuer(t, t.adminKey);
    const headers = { "idempotency-key": "order-42" };
    const payload = body({
      issuerId: second.issuerId,
      credentialConfiguration: second.configuration,
      delivery: { txCode: { inputMode: "numeric", length: 6 } },
    });
    const first = await call(t, "POST", PATH, { key: t.adminKey, body: payload, headers });
    expect(first.status).toBe(201);
    const bound = await t.key({ issuerId: issuer.issuerId, scopes: ["credentials.issue"] });
    const replay = await call(t, "POST", PATH, { key: bound, body: payload, headers });
    expect(replay.status).toBe(409);
    expect(errorCode(replay)).toBe("IdempotencyKeyReused");
    expect(JSON.stringify(replay.body)).not.toContain(first.body.data.txCode);
  });

  it("writes issuance.transaction.created to the outbox without claims", async () => {
    const tx = await create({ externalSubjectReference: "crm-1" });
    const events = await t.server.database.prisma.outboxEvent.findMany({
      where: { type: "issuance.transaction.created" },
    });
    const event = events.find((e) => (e.payload as { transactionId: string }).transactionId === tx.id);
    expect(event?.payload).toMatchObject({ transactionId: tx.id, externalSubjectReference: "crm-1" });
    expect(JSON.stringify(event?.payload)).not.toContain("Mustermann");
  });
});

describe("request bodies", () => {
  it("are never coerced: a string where a boolean belongs is a 400, not true", async () => {
    const r = await call(t, "POST", "/management/credential-configurations", {
      key: t.adminKey,
      body: {
        identifier: "coerce-check",
        displayName: "C",
        issuerId: issuer.issuerId,
        schemaId: "s",
        holderBindingRequired: "false",
      },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details[0].target).toBe("holderBindingRequired");
  });
  it("accept application/merge-patch+json on PATCH", async () => {
    const r = await call(t, "PATCH", `/management/issuers/${issuer.issuerId}`, {
      key: t.adminKey,
      rawBody: JSON.stringify({ description: "Patched" }),
      headers: { "content-type": "application/merge-patch+json" },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.description).toBe("Patched");
  });
});

describe("Credentials_Issue", () => {
  it("400 IssuerRequired without issuerId, 201 with it", async () => {
    const r = await call(t, "POST", "/v1.0/credentials/issuance", {
      key: t.adminKey,
      body: { credentialConfiguration: issuer.configuration, claims: VALID_CLAIMS },
    });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("IssuerRequired");
    const ok = await call(t, "POST", "/v1.0/credentials/issuance", { key: t.adminKey, body: body() });
    expect(ok.status).toBe(201);
    expect(ok.body.data.status).toBe("pending");
  });
  it("403 without scope, 401 without key, 404 for another tenant, 409 idempotency reuse", async () => {
    const reader = await t.key({ scopes: ["credentials.read"] });
    expect((await call(t, "POST", "/v1.0/credentials/issuance", { key: reader, body: body() })).status).toBe(
      403,
    );
    expect((await call(t, "POST", "/v1.0/credentials/issuance", { body: body() })).status).toBe(401);
    const other = await t.otherTenant();
    expect(
      (await call(t, "POST", "/v1.0/credentials/issuance", { key: other.key, body: body() })).status,
    ).toBe(404);
    const headers = { "idempotency-key": "ci-1" };
    await call(t, "POST", "/v1.0/credentials/issuance", { key: t.adminKey, body: body(), headers });
    const reused = await call(t, "POST", "/v1.0/credentials/issuance", {
      key: t.adminKey,
      body: body({ callbackReference: "y" }),
      headers,
    });
    expect(reused.status).toBe(409);
  });
});

describe("IssuanceTransactions_Get and _Cancel", () => {
  it("hands the pending offer link only to callers that may issue; a read-only key sees it as null", async () => {
    const tx = await create();
    const issuerKey = await t.key({ scopes: ["credentials.issue", "credentials.read"] });
    const full = (await call(t, "GET", `${PATH}/${tx.id}`, { key: issuerKey })).body.data;
    expect(full.credentialOffer).toBe(tx.credentialOffer);
    expect(full.credentialOfferUri).toBeTruthy();
    const reader = await t.key({ scopes: ["credentials.read"] });
    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: reader });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      id: tx.id,
      status: "pending",
      credentialOffer: null,
      credentialOfferUri: null,
    });
  });

  it("reads its own, 404 for another tenant or environment, 403 without credentials.read", async () => {
    const tx = await create();
    expect((await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey })).body.data.id).toBe(tx.id);
    const other = await t.otherTenant();
    expect((await call(t, "GET", `${PATH}/${tx.id}`, { key: other.key })).status).toBe(404);
    const production = await t.key({ environment: "production" });
    expect((await call(t, "GET", `${PATH}/${tx.id}`, { key: production })).status).toBe(404);
    const issuerOnly = await t.key({ scopes: ["credentials.issue"] });
    expect((await call(t, "GET", `${PATH}/${tx.id}`, { key: issuerOnly })).status).toBe(403);
    expect((await call(t, "GET", `${PATH}/${tx.id}`)).status).toBe(401);
    expect((await call(t, "GET", `${PATH}/itx_unknown`, { key: t.adminKey })).status).toBe(404);
    // However long, an id that names nothing is a 404 (the operations list no 400).
    const long = `itx_${"x".repeat(80)}`;
    expect((await call(t, "GET", `${PATH}/${long}`, { key: t.adminKey })).status).toBe(404);
    expect((await call(t, "POST", `${PATH}/${long}/cancel`, { key: t.adminKey })).status).toBe(404);
  });

  it("cancels a pending transaction once; then 409; the offer stops working", async () => {
    const tx = await create();
    const r = await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: "cancelled", credentialOffer: null });
    const again = await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: t.adminKey });
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe("InvalidState");
    expect((await fetch(tx.credentialOfferUri)).status).toBe(404);
    const reader = await t.key({ scopes: ["credentials.read"] });
    expect((await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: reader })).status).toBe(403);
    const other = await t.otherTenant();
    expect((await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: other.key })).status).toBe(404);
  });

  it("409 when cancelling a completed transaction", async () => {
    const tx = await create();
    const flow = await redeemOffer(tx.credentialOffer);
    expect(flow.credentialRes.status).toBe(200);
    const r = await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: t.adminKey });
    expect(r.status).toBe(409);
  });

  it("reads as expired past its lifetime and the code no longer works", async () => {
    const tx = await create();
    const offer = await resolveOffer(tx.credentialOffer);
    await t.server.database.prisma.issuanceTransaction.update({
      where: { id: tx.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey })).body.data.status).toBe("expired");
    const res = await token(`${issuer.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
    expect((await call(t, "POST", `${PATH}/${tx.id}/cancel`, { key: t.adminKey })).status).toBe(409);
  });
});
