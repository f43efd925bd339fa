// Deferred issuance (OpenID4VCI 1.0 §9): a transaction created without claims answers the wallet's
// credential request with 202 and a transaction_id; IssuanceTransactions_SupplyClaims adds the claims,
// and the deferred credential endpoint then issues to the holder keys of the original request.

import { createDpopProof, generateEs256KeyPair } from "@cred/oid4vc";
import { CompactEncrypt, compactDecrypt, exportJWK, generateKeyPair, importJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, createTransaction, VALID_CLAIMS } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { fetchJson, holderKey, nonce, proof, resolveOffer, token, walletEndpoints } from "./wallet-client";

let t: TestServer;
let issuer: ActiveIssuer;
let endpoints: Awaited<ReturnType<typeof walletEndpoints>>;

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
  endpoints = await walletEndpoints(issuer.credentialIssuer);
});
afterAll(() => t?.close());

/** A deferred transaction: no claims yet. */
async function createDeferred() {
  const r = await call(t, "POST", "/v1.0/issuance-transactions", {
    key: t.adminKey,
    body: {
      credentialConfiguration: issuer.configuration,
      issuerId: issuer.issuerId,
      delivery: { deferred: true },
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as { id: string; credentialOffer: string };
}

const supply = (id: string, claims: unknown, key = t.adminKey) =>
  call(t, "POST", `/v1.0/issuance-transactions/${id}/claims`, { key, body: { claims } });

const read = async (id: string) =>
  (await call(t, "GET", `/v1.0/issuance-transactions/${id}`, { key: t.adminKey })).body.data;

async function deferredTransaction() {
  return createDeferred().then(async (created) => {
    const offer = await resolveOffer(created.credentialOffer);
    const grant = offer.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"];
    const res = await token(endpoints.token, {
      grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
      "pre-authorized_code": grant["pre-authorized_code"],
    });
    expect(res.status).toBe(200);
    return { id: created.id, accessToken: res.body.access_token as string };
  });
}

async function post(
  url: string,
  accessToken: string | null,
  body: unknown,
  contentType = "application/json",
) {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": contentType,
      ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body: parsed as any };
}

async function credentialRequest(accessToken: string, key?: Awaited<ReturnType<typeof holderKey>>) {
  const holder = key ?? (await holderKey());
  const jwt = await proof(holder, issuer.credentialIssuer, await nonce(endpoints.nonce));
  const res = await post(endpoints.credential, accessToken, {
    credential_configuration_id: issuer.configuration,
    proofs: { jwt: [jwt] },
  });
  return { res, holder, jwt };
}

const payloadOf = (sdJwt: string) =>
  JSON.parse(Buffer.from(sdJwt.split("~")[0]!.split(".")[1]!, "base64url").toString("utf8"));

describe("deferred issuance", () => {
  it("announces the deferred credential endpoint", () => {
    expect(endpoints.deferred).toBe(`${issuer.credentialIssuer}/deferred-credential`);
  });

  it("is created without claims (claims with it are 400) and shows its deferral", async () => {
    const withClaims = await call(t, "POST", "/v1.0/issuance-transactions", {
      key: t.adminKey,
      body: {
        credentialConfiguration: issuer.configuration,
        issuerId: issuer.issuerId,
        claims: VALID_CLAIMS,
        delivery: { deferred: true },
      },
    });
    expect([withClaims.status, errorCode(withClaims)]).toEqual([400, "ValidationFailed"]);
    const created = await createDeferred();
    const got = await read(created.id);
    expect(got).toMatchObject({
      status: "pending",
      deferral: { claimsSuppliedAt: null, walletWaitingSince: null },
    });
    const plain = await createTransaction(t, t.adminKey, issuer);
    expect((await read(plain.id)).deferral).toBeNull();
  });

  it("202 to the wallet, claims supplied, then the credential at the deferred endpoint, bound to the first key", async () => {
    const tx = await deferredTransaction();
    const { res, holder, jwt } = await credentialRequest(tx.accessToken);
    expect(res.status).toBe(202);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body).toEqual({ transaction_id: expect.any(String), interval: 10 });
    const transactionId = res.body.transaction_id as string;
    expect((await read(tx.id)).deferral.walletWaitingSince).toEqual(expect.any(String));
    // The access token now lives as long as the transaction, so the wallet can come back later.
    const stored = await t.server.database.prisma.accessToken.findMany({ where: { transactionId: tx.id } });
    const row = await t.server.database.prisma.issuanceTransaction.findUniqueOrThrow({
      where: { id: tx.id },
    });
    expect(stored[0]!.expiresAt.getTime()).toBe(row.expiresAt.getTime());
    const events = await t.server.database.prisma.outboxEvent.findMany({
      where: { type: "issuance.transaction.deferred" },
    });
    expect(events.some((e) => (e.payload as { transactionId: string }).transactionId === tx.id)).toBe(true);

    // The proof's nonce was spent by the deferral: replayed for another transaction, it is refused.
    const otherTx = await deferredTransaction();
    const replay = await post(endpoints.credential, otherTx.accessToken, {
      credential_configuration_id: issuer.configuration,
      proofs: { jwt: [jwt] },
    });
    expect([replay.status, replay.body.error]).toEqual([400, "invalid_nonce"]);

    const early = await post(endpoints.deferred, tx.accessToken, { transaction_id: transactionId });
    expect(early.status).toBe(202);
    expect(early.body).toEqual({ transaction_id: transactionId, interval: 10 });

    const invalid = await supply(tx.id, { given_name: "Erika" });
    expect([invalid.status, errorCode(invalid)]).toEqual([400, "ValidationFailed"]);
    const supplied = await supply(tx.id, VALID_CLAIMS);
    expect(supplied.status).toBe(200);
    expect(supplied.body.data.deferral.claimsSuppliedAt).toEqual(expect.any(String));
    const again = await supply(tx.id, VALID_CLAIMS);
    expect([again.status, errorCode(again)]).toEqual([409, "InvalidState"]);

    const issued = await post(endpoints.deferred, tx.accessToken, { transaction_id: transactionId });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(issued.body.credentials).toHaveLength(1);
    // No notification_id: oid4vc-ts 0.4.6 refuses a deferred response with one (see credential.ts).
    expect(issued.body.notification_id).toBeUndefined();
    const payload = payloadOf(issued.body.credentials[0].credential);
    expect(payload.cnf.jwk).toMatchObject({ x: holder.publicJwk.x, y: holder.publicJwk.y });
    expect(issued.body.credentials[0].credential).not.toContain("Erika"); // disclosures are salted hashes
    const completed = await read(tx.id);
    expect(completed.status).toBe("completed");
    expect(completed.credentialId).toEqual(expect.any(String));
    // §9.1: the transaction_id is invalidated once its credentials were delivered.
    const used = await post(endpoints.deferred, tx.accessToken, { transaction_id: transactionId });
    expect([used.status, used.body.error]).toEqual([400, "invalid_transaction_id"]);
    // Nor does the credential endpoint issue them again to other keys (the token lived for days).
    const asked = await credentialRequest(tx.accessToken);
    expect([asked.res.status, asked.res.body.error]).toEqual([400, "credential_request_denied"]);
    expect(await t.server.database.prisma.credential.count({ where: { transactionId: tx.id } })).toBe(1);
    // The holder keys do not outlive the issuance.
    const done = await t.server.database.prisma.issuanceTransaction.findUniqueOrThrow({
      where: { id: tx.id },
    });
    expect([done.deferredHolderKeys, done.deferredIdHash, done.claimsCipher]).toEqual([null, null, null]);
  });

  it("issues at once when the claims came before the wallet's request, and again to a further request (§14.3)", async () => {
    const tx = await deferredTransaction();
    expect((await supply(tx.id, VALID_CLAIMS)).status).toBe(200);
    const { res } = await credentialRequest(tx.accessToken);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.credentials).toHaveLength(1);
    // Nobody waited, so no keys were fixed: the token's further request is issued like any other.
    const again = await credentialRequest(tx.accessToken);
    expect(again.res.status, JSON.stringify(again.res.body)).toBe(200);
    expect(await t.server.database.prisma.credential.count({ where: { transactionId: tx.id } })).toBe(2);
    const completions = await t.server.database.prisma.outboxEvent.findMany({
      where: { type: "issuance.transaction.completed" },
    });
    expect(
      completions.filter((e) => (e.payload as { transactionId: string }).transactionId === tx.id),
    ).toHaveLength(1);
  });

  it("refuses a malformed or foreign transaction_id, and a request without a token", async () => {
    const tx = await deferredTransaction();
    const { res } = await credentialRequest(tx.accessToken);
    expect(res.status).toBe(202);
    const other = await deferredTransaction();
    const otherId = (await credentialRequest(other.accessToken)).res.body.transaction_id;
    const cases: Array<[unknown, string]> = [
      [{}, "invalid_credential_request"],
      [{ transaction_id: 42 }, "invalid_credential_request"],
      [{ transaction_id: "nope" }, "invalid_transaction_id"],
      [{ transaction_id: otherId }, "invalid_transaction_id"],
    ];
    for (const [body, code] of cases) {
      const r = await post(endpoints.deferred, tx.accessToken, body);
      expect([r.status, r.body.error], JSON.stringify(body)).toEqual([400, code]);
    }
    const anonymous = await post(endpoints.deferred, null, { transaction_id: res.body.transaction_id });
    expect(anonymous.status).toBe(401);
  });

  it("a second credential request is refused once deferred (the keys are fixed); a cancellation ends the wait", async () => {
    const tx = await deferredTransaction();
    const first = (await credentialRequest(tx.accessToken)).res.body.transaction_id;
    const second = await credentialRequest(tx.accessToken);
    expect([second.res.status, second.res.body.error]).toEqual([400, "credential_request_denied"]);
    const still = await post(endpoints.deferred, tx.accessToken, { transaction_id: first });
    expect(still.status).toBe(202);
    // Even with the claims there, the credential endpoint does not issue to other keys.
    expect((await supply(tx.id, VALID_CLAIMS)).status).toBe(200);
    const third = await credentialRequest(tx.accessToken);
    expect([third.res.status, third.res.body.error]).toEqual([400, "credential_request_denied"]);
    const cancelled = await call(t, "POST", `/v1.0/issuance-transactions/${tx.id}/cancel`, {
      key: t.adminKey,
    });
    expect(cancelled.status).toBe(200);
    const after = await post(endpoints.deferred, tx.accessToken, { transaction_id: first });
    expect(after.status).toBe(401);
    const supplyAfter = await supply(tx.id, VALID_CLAIMS);
    expect([supplyAfter.status, errorCode(supplyAfter)]).toEqual([409, "InvalidState"]);
    const row = await t.server.database.prisma.issuanceTransaction.findUniqueOrThrow({
      where: { id: tx.id },
    });
    expect([row.deferredHolderKeys, row.deferredIdHash, row.claimsCipher]).toEqual([null, null, null]);
  });

  it("waits deferredWaitSeconds once the wallet asked, however short the offer; the token is cut back after issuance", async () => {
    const r = await call(t, "POST", "/v1.0/issuance-transactions", {
      key: t.adminKey,
      body: {
        credentialConfiguration: issuer.configuration,
        issuerId: issuer.issuerId,
        delivery: { deferred: true, expiresInSeconds: 120, deferredWaitSeconds: 86_400 },
      },
    });
    expect(r.status).toBe(201);
    const offer = await resolveOffer(r.body.data.credentialOffer);
    const tokenRes = await token(endpoints.token, {
      grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
      "pre-authorized_code":
        offer.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"],
    });
    const accessToken = tokenRes.body.access_token as string;
    const before = Date.now();
    const deferred = await credentialRequest(accessToken);
    expect(deferred.res.status).toBe(202);
    const waiting = await read(r.body.data.id);
    expect(Date.parse(waiting.expiresAt)).toBeGreaterThanOrEqual(before + 86_400_000 - 1_000);
    const prisma = t.server.database.prisma;
    const extended = await prisma.accessToken.findFirstOrThrow({ where: { transactionId: r.body.data.id } });
    expect(extended.expiresAt.getTime()).toBe(Date.parse(waiting.expiresAt));
    expect((await supply(r.body.data.id, VALID_CLAIMS)).status).toBe(200);
    const issued = await post(endpoints.deferred, accessToken, {
      transaction_id: deferred.res.body.transaction_id,
    });
    expect(issued.status).toBe(200);
    const capped = await prisma.accessToken.findFirstOrThrow({ where: { transactionId: r.body.data.id } });
    expect(capped.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 300_000);

    const notDeferred = await call(t, "POST", "/v1.0/issuance-transactions", {
      key: t.adminKey,
      body: {
        credentialConfiguration: issuer.configuration,
        issuerId: issuer.issuerId,
        claims: VALID_CLAIMS,
        delivery: { deferredWaitSeconds: 600 },
      },
    });
    expect([notDeferred.status, errorCode(notDeferred)]).toEqual([400, "ValidationFailed"]);
  });

  it("issues a batch to every key of the deferred request, and replays SupplyClaims by Idempotency-Key", async () => {
    const tx = await deferredTransaction();
    const keys = [await holderKey(), await holderKey()];
    const cNonce = await nonce(endpoints.nonce);
    const res = await post(endpoints.credential, tx.accessToken, {
      credential_configuration_id: issuer.configuration,
      proofs: { jwt: await Promise.all(keys.map((k) => proof(k, issuer.credentialIssuer, cNonce))) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const headers = { "idempotency-key": `supply-${tx.id}` };
    const first = await call(t, "POST", `/v1.0/issuance-transactions/${tx.id}/claims`, {
      key: t.adminKey,
      body: { claims: VALID_CLAIMS },
      headers,
    });
    expect(first.status).toBe(200);
    const replay = await call(t, "POST", `/v1.0/issuance-transactions/${tx.id}/claims`, {
      key: t.adminKey,
      body: { claims: VALID_CLAIMS },
      headers,
    });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const issued = await post(endpoints.deferred, tx.accessToken, {
      transaction_id: res.body.transaction_id,
    });
    expect(issued.status).toBe(200);
    const bound = issued.body.credentials.map(
      (c: { credential: string }) => payloadOf(c.credential).cnf.jwk.x,
    );
    expect(bound).toEqual(keys.map((k) => k.publicJwk.x));
  });

  it("keeps a DPoP-bound token bound: the poll needs a proof by the same key for the deferred endpoint", async () => {
    const created = await createDeferred();
    const offer = await resolveOffer(created.credentialOffer);
    const dpopKey = await generateEs256KeyPair();
    const dpop = (url: string, accessToken?: string) =>
      createDpopProof({ ...dpopKey, method: "POST", url, ...(accessToken ? { accessToken } : {}) });
    const tokenRes = await fetchJson(endpoints.token, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", dpop: await dpop(endpoints.token) },
      body: new URLSearchParams({
        grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
        "pre-authorized_code":
          offer.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"],
      }).toString(),
    });
    expect(tokenRes.body.token_type).toBe("DPoP");
    const at = tokenRes.body.access_token as string;
    const jwt = await proof(await holderKey(), issuer.credentialIssuer, await nonce(endpoints.nonce));
    const deferred = await fetchJson(endpoints.credential, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `DPoP ${at}`,
        dpop: await dpop(endpoints.credential, at),
      },
      body: JSON.stringify({ credential_configuration_id: issuer.configuration, proofs: { jwt: [jwt] } }),
    });
    expect(deferred.status, JSON.stringify(deferred.body)).toBe(202);
    const poll = (dpopProof?: string) =>
      fetchJson(endpoints.deferred, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `DPoP ${at}`,
          ...(dpopProof ? { dpop: dpopProof } : {}),
        },
        body: JSON.stringify({ transaction_id: deferred.body.transaction_id }),
      });
    expect((await poll()).status).toBe(401);
    expect((await poll(await dpop(endpoints.credential, at))).status).toBe(401); // proof for another URL
    expect((await supply(created.id, VALID_CLAIMS)).status).toBe(200);
    const issued = await poll(await dpop(endpoints.deferred, at));
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expect(issued.body.credentials).toHaveLength(1);
  });

  it("SupplyClaims: 409 for a transaction created with claims, 404 across tenants, 403 without credentials.issue", async () => {
    const plain = await createTransaction(t, t.adminKey, issuer);
    const notDeferred = await supply(plain.id, VALID_CLAIMS);
    expect([notDeferred.status, errorCode(notDeferred)]).toEqual([409, "InvalidState"]);
    const deferred = await createDeferred();
    const other = await t.otherTenant();
    expect((await supply(deferred.id, VALID_CLAIMS, other.key)).status).toBe(404);
    expect((await supply("itx_unknown", VALID_CLAIMS)).status).toBe(404);
    const reader = await t.key({ scopes: ["credentials.read"] });
    const forbidden = await supply(deferred.id, VALID_CLAIMS, reader);
    expect(forbidden.status).toBe(403);
    const unauthenticated = await supply(deferred.id, VALID_CLAIMS, "");
    expect(unauthenticated.status).toBe(401);
    const badBody = await call(t, "POST", `/v1.0/issuance-transactions/${deferred.id}/claims`, {
      key: t.adminKey,
      body: { claims: "not an object" },
    });
    expect(badBody.status).toBe(400);
    expect((await read(deferred.id)).deferral.claimsSuppliedAt).toBeNull();
  });

  it("answers an encrypted deferred request with an encrypted response", async () => {
    const on = await call(t, "PATCH", `/management/issuers/${issuer.issuerId}`, {
      key: t.adminKey,
      body: { credentialEncryption: { required: false } },
    });
    expect(on.status).toBe(200);
    try {
      const issuerJwk = on.body.data.credentialEncryption.publicJwk;
      const tx = await deferredTransaction();
      const transactionId = (await credentialRequest(tx.accessToken)).res.body.transaction_id;
      expect((await supply(tx.id, VALID_CLAIMS)).status).toBe(200);
      const { publicKey, privateKey } = await generateKeyPair("ECDH-ES", { crv: "P-256" });
      const jwk = { ...(await exportJWK(publicKey)), alg: "ECDH-ES" };
      const jwe = await new CompactEncrypt(
        new TextEncoder().encode(
          JSON.stringify({
            transaction_id: transactionId,
            credential_response_encryption: { jwk, enc: "A256GCM" },
          }),
        ),
      )
        .setProtectedHeader({ alg: "ECDH-ES", enc: "A128GCM", kid: issuerJwk.kid })
        .encrypt(await importJWK(issuerJwk, "ECDH-ES"));
      const res = await fetch(endpoints.deferred, {
        method: "POST",
        headers: { "content-type": "application/jwt", authorization: `Bearer ${tx.accessToken}` },
        body: jwe,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/jwt/);
      const { plaintext } = await compactDecrypt(await res.text(), privateKey);
      expect(JSON.parse(new TextDecoder().decode(plaintext)).credentials).toHaveLength(1);
    } finally {
      await call(t, "PATCH", `/management/issuers/${issuer.issuerId}`, {
        key: t.adminKey,
        body: { credentialEncryption: null },
      });
    }
  });
});
