import { getStatus, verifyStatusListToken } from "@cred/oid4vc";
import { calculateJwkThumbprint, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ActiveIssuer,
  activeIssuer,
  createTransactionWith,
  ISSUANCE_TRANSACTIONS_PATH,
  issueCredential,
  PRE_AUTHORIZED_CODE_GRANT,
  policyTrusting,
  presentTo,
  publishedIssuerKey,
  VALID_CLAIMS,
} from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { redeemOffer, requestCredential, resolveOffer, token } from "./wallet-client";

/**
 * Credentials_Get, Credentials_List, Credentials_Suspend and Credentials_Reinstate (extensions of the
 * contract, docs/api/credentials.md): the read model, its filters and paging, and suspension through the
 * status list's second bit as wallets and relying parties see it.
 */

const CREDENTIALS = "/v1.0/credentials";

let t: TestServer;
let issuer: ActiveIssuer;
let otherIssuer: ActiveIssuer;

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
  otherIssuer = await activeIssuer(t, t.adminKey);
});
afterAll(() => t?.close());

interface StatusEntry {
  idx: number;
  uri: string;
}

const payloadOf = (credential: string) =>
  JSON.parse(Buffer.from(credential.split("~")[0]!.split(".")[1]!, "base64url").toString());

/** Issues through the whole OpenID4VCI flow; the transaction, its credential ids (newest last) and entries. */
async function issue(active: ActiveIssuer = issuer, extra: Record<string, unknown> = {}, proofs = 1) {
  const tx = await createTransactionWith(t, t.adminKey, active, extra);
  const flow = await redeemOffer(tx.credentialOffer, { proofs });
  expect(flow.credentialRes.status).toBe(200);
  const payloads = (flow.credentialRes.body.credentials as { credential: string }[]).map((c) =>
    payloadOf(c.credential),
  );
  const rows = await t.server.database.prisma.credential.findMany({
    where: { transactionId: tx.id },
    orderBy: { id: "asc" },
  });
  return {
    transactionId: tx.id as string,
    credentialIds: rows.map((r) => r.id),
    credentialId: rows[0]!.id,
    entries: payloads.map((p) => p.status.status_list as StatusEntry),
    cnfJwks: payloads.map((p) => p.cnf.jwk as JWK),
  };
}

/** The entry's value in the status list token as a wallet or relying party fetches it. */
async function statusOf(entry: StatusEntry, active: ActiveIssuer = issuer) {
  const res = await fetch(entry.uri, { headers: { accept: "application/statuslist+jwt" } });
  expect(res.status).toBe(200);
  const list = await verifyStatusListToken(await res.text(), await publishedIssuerKey(active), {
    expectedSub: entry.uri,
    now: new Date(),
  });
  return getStatus(list.bytes, list.bits, entry.idx);
}

const get = (id: string, key: string | null = t.adminKey) => call(t, "GET", `${CREDENTIALS}/${id}`, { key });
const list = (query: string, key: string | null = t.adminKey) =>
  call(t, "GET", `${CREDENTIALS}${query ? `?${query}` : ""}`, { key });
const suspend = (id: string, key: string | null = t.adminKey) =>
  call(t, "POST", `${CREDENTIALS}/${id}/suspend`, { key });
const reinstate = (id: string, key: string | null = t.adminKey) =>
  call(t, "POST", `${CREDENTIALS}/${id}/reinstate`, { key });
const revoke = (id: string) => call(t, "POST", `${CREDENTIALS}/${id}/revoke`, { key: t.adminKey });

async function eventsFor(type: string, credentialId: string) {
  const events = await t.server.database.prisma.outboxEvent.findMany({ where: { type } });
  return events.filter((e) => (e.payload as { credentialId: string }).credentialId === credentialId);
}

const ids = (body: { data: { id: string }[] }) => body.data.map((c) => c.id);

describe("Credentials_Get", () => {
  it("returns the metadata and state, the status list entry and the holder key thumbprint, never the claims", async () => {
    const issued = await issue(issuer, { externalSubjectReference: "subject-get" });
    const r = await get(issued.credentialId);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      id: issued.credentialId,
      credentialConfiguration: issuer.configuration,
      configurationVersion: 1,
      issuerId: issuer.issuerId,
      transactionId: issued.transactionId,
      status: "active",
      issuedAt: expect.any(String),
      expiresAt: expect.any(String),
      revokedAt: null,
      suspendedAt: null,
      statusList: issued.entries[0],
      holderKeyThumbprint: await calculateJwkThumbprint(issued.cnfJwks[0]!, "sha256"),
    });
    expect(new Date(r.body.data.expiresAt).getTime()).toBeGreaterThan(Date.now());
    const text = JSON.stringify(r.body);
    for (const value of [VALID_CLAIMS.given_name, VALID_CLAIMS.family_name, VALID_CLAIMS.birthdate])
      expect(text).not.toContain(value);
  });

  it("derives expired from expiresAt at read time; a revoked credential stays revoked", async () => {
    const a = await issue();
    const b = await issue();
    const past = new Date(Date.now() - 1000);
    await t.server.database.prisma.credential.updateMany({
      where: { id: { in: [a.credentialId, b.credentialId] } },
      data: { expiresAt: past },
    });
    expect((await get(a.credentialId)).body.data.status).toBe("expired");
    expect((await revoke(b.credentialId)).status).toBe(200);
    expect((await get(b.credentialId)).body.data).toMatchObject({
      status: "revoked",
      revokedAt: expect.any(String),
    });
  });

  it("holderKeyThumbprint is null for a credential without holder binding", async () => {
    const unbound = await activeIssuer(t, t.adminKey, { holderBindingRequired: false });
    const tx = await createTransactionWith(t, t.adminKey, unbound);
    const offer = await resolveOffer(tx.credentialOffer);
    const tok = await token(`${unbound.credentialIssuer}/token`, {
      grant_type: PRE_AUTHORIZED_CODE_GRANT,
      "pre-authorized_code": offer.grants[PRE_AUTHORIZED_CODE_GRANT]["pre-authorized_code"],
    });
    const res = await requestCredential(`${unbound.credentialIssuer}/credential`, tok.body.access_token, {
      credential_configuration_id: unbound.configuration,
    });
    expect(res.status).toBe(200);
    const { credentialId } = (
      await call(t, "GET", `${ISSUANCE_TRANSACTIONS_PATH}/${tx.id}`, { key: t.adminKey })
    ).body.data;
    const r = await get(credentialId);
    expect(r.status).toBe(200);
    expect(r.body.data.holderKeyThumbprint).toBeNull();
  });

  it("401 without a key, 403 MissingScope without credentials.read, 404 unknown, foreign tenant, other environment or other issuer", async () => {
    const { credentialId } = await issue();
    expect((await get(credentialId, null)).status).toBe(401);
    const noRead = await t.key({ scopes: ["credentials.issue"] });
    const refused = await get(credentialId, noRead);
    expect(refused.status).toBe(403);
    expect(errorCode(refused)).toBe("MissingScope");
    const readOnly = await t.key({ scopes: ["credentials.read"] });
    expect((await get(credentialId, readOnly)).status).toBe(200);

    const unknown = await get("cred_01jd5x6c3v8w9y0z1a2b3c4d5e");
    expect(unknown.status).toBe(404);
    expect(errorCode(unknown)).toBe("NotFound");
    expect((await get(credentialId, (await t.otherTenant()).key)).status).toBe(404);
    expect((await get(credentialId, await t.key({ environment: "production" }))).status).toBe(404);
    const boundToOther = await t.key({ issuerId: otherIssuer.issuerId });
    expect((await get(credentialId, boundToOther)).status).toBe(404);
    expect((await get(credentialId, await t.key({ issuerId: issuer.issuerId }))).status).toBe(200);
  });

  it("400 for an id longer than allowed", async () => {
    const r = await get(`cred_${"x".repeat(80)}`);
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("ValidationFailed");
  });
});

describe("Credentials_List", () => {
  it("pages newest first with the cursor of the page before, and each filter narrows", async () => {
    const subject = `subject-list-${Date.now()}`;
    const first = await issue(issuer, { externalSubjectReference: subject });
    const batch = await issue(issuer, { externalSubjectReference: subject }, 2);
    const other = await issue(otherIssuer, { externalSubjectReference: subject });
    const expected = [first.credentialId, ...batch.credentialIds, ...other.credentialIds].reverse();
    expect([...expected].sort().reverse()).toEqual(expected);

    const page1 = await list(`externalSubjectReference=${subject}&limit=3`);
    expect(page1.status).toBe(200);
    expect(ids(page1.body)).toEqual(expected.slice(0, 3));
    expect(page1.body.nextCursor).toEqual(expect.any(String));
    const page2 = await list(`externalSubjectReference=${subject}&limit=3&cursor=${page1.body.nextCursor}`);
    expect(ids(page2.body)).toEqual(expected.slice(3));
    expect(page2.body.nextCursor).toBeNull();

    const only = async (query: string) =>
      ids((await list(`externalSubjectReference=${subject}&${query}`)).body);
    expect(await only(`transactionId=${batch.transactionId}`)).toEqual([...batch.credentialIds].reverse());
    expect(await only(`issuerId=${otherIssuer.issuerId}`)).toEqual(other.credentialIds);
    expect(await only(`credentialConfiguration=${otherIssuer.configuration}`)).toEqual(other.credentialIds);
    expect(await only("credentialConfiguration=no-such-configuration")).toEqual([]);
    expect(ids((await list(`transactionId=${first.transactionId}`)).body)).toEqual([first.credentialId]);
    expect(ids((await list("externalSubjectReference=nobody")).body)).toEqual([]);

    const issuedAt = new Date((await get(batch.credentialId)).body.data.issuedAt);
    const from = new Date(issuedAt.getTime() - 1).toISOString();
    expect(await only(`issuedFrom=${encodeURIComponent(from)}`)).toEqual(expected.slice(0, 3));
    const firstAt = new Date((await get(first.credentialId)).body.data.issuedAt);
    const to = new Date(firstAt.getTime() + 1).toISOString();
    expect(await only(`issuedTo=${encodeURIComponent(to)}`)).toEqual([first.credentialId]);

    // States: active, suspended, revoked, expired.
    expect((await suspend(batch.credentialId)).status).toBe(200);
    expect((await revoke(first.credentialId)).status).toBe(200);
    await t.server.database.prisma.credential.update({
      where: { id: other.credentialId },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(await only("status=suspended")).toEqual([...batch.credentialIds].reverse());
    expect(await only("status=revoked")).toEqual([first.credentialId]);
    expect(await only("status=expired")).toEqual(other.credentialIds);
    expect(await only("status=active")).toEqual([]);
    const states = (await list(`externalSubjectReference=${subject}`)).body.data.map(
      (c: { status: string }) => c.status,
    );
    expect(states).toEqual(["expired", "suspended", "suspended", "revoked"]);
  });

  it("an issuer-bound key lists only its issuer's credentials; other tenants and environments see none of them", async () => {
    const subject = `subject-scope-${Date.now()}`;
    const mine = await issue(issuer, { externalSubjectReference: subject });
    await issue(otherIssuer, { externalSubjectReference: subject });
    const bound = await t.key({ issuerId: issuer.issuerId, scopes: ["credentials.read"] });
    expect(ids((await list(`externalSubjectReference=${subject}`, bound)).body)).toEqual([mine.credentialId]);
    const foreign = await list("", (await t.otherTenant()).key);
    expect(foreign.status).toBe(200);
    expect(foreign.body.data).toEqual([]);
    const production = await list("", await t.key({ environment: "production" }));
    expect(production.body).toEqual({ data: [], nextCursor: null });
  });

  it("400 for a bad cursor, status, time or limit; 401 without a key; 403 MissingScope without credentials.read", async () => {
    for (const query of [
      "cursor=bm90LWFuLWlk",
      "status=issued",
      "issuedFrom=yesterday",
      "limit=0",
      "limit=101",
    ]) {
      const r = await list(query);
      expect(r.status, query).toBe(400);
      expect(errorCode(r), query).toBe("ValidationFailed");
    }
    expect((await list("", null)).status).toBe(401);
    const refused = await list("", await t.key({ scopes: ["credentials.revoke"] }));
    expect(refused.status).toBe(403);
    expect(errorCode(refused)).toBe("MissingScope");
  });
});

describe("Credentials_Suspend and Credentials_Reinstate", () => {
  it("suspension shows 2 on the next status list fetch, reinstatement 0; repeats answer the state without events", async () => {
    const { credentialId, entries } = await issue();
    expect(await statusOf(entries[0]!)).toBe(0);

    const suspended = await suspend(credentialId);
    expect(suspended.status).toBe(200);
    expect(suspended.body.data).toMatchObject({ id: credentialId, status: "suspended", revokedAt: null });
    expect(suspended.body.data.suspendedAt).toEqual(expect.any(String));
    expect(await statusOf(entries[0]!)).toBe(2);
    const again = await suspend(credentialId);
    expect(again.status).toBe(200);
    expect(again.body.data.suspendedAt).toBe(suspended.body.data.suspendedAt);
    expect(await eventsFor("credential.suspended", credentialId)).toHaveLength(1);
    expect((await eventsFor("credential.suspended", credentialId))[0]!.payload).toMatchObject({
      credentialId,
      issuerId: issuer.issuerId,
      credentialConfiguration: issuer.configuration,
      status: "suspended",
    });

    const reinstated = await reinstate(credentialId);
    expect(reinstated.status).toBe(200);
    expect(reinstated.body.data).toMatchObject({ status: "active", suspendedAt: null });
    expect(await statusOf(entries[0]!)).toBe(0);
    expect((await reinstate(credentialId)).body.data.status).toBe("active");
    expect(await eventsFor("credential.reinstated", credentialId)).toHaveLength(1);

    // Suspended again, then revoked: the entry goes from 2 to 1 (not 3), and revoked is final.
    expect((await suspend(credentialId)).status).toBe(200);
    expect(await statusOf(entries[0]!)).toBe(2);
    const revoked = await revoke(credentialId);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({ credentialId, status: "revoked" });
    expect(await statusOf(entries[0]!)).toBe(1);
    expect(await eventsFor("credential.revoked", credentialId)).toHaveLength(1);
    for (const op of [suspend, reinstate]) {
      const r = await op(credentialId);
      expect(r.status).toBe(409);
      expect(errorCode(r)).toBe("InvalidState");
    }
    expect(await statusOf(entries[0]!)).toBe(1);
    expect((await get(credentialId)).body.data).toMatchObject({
      status: "revoked",
      suspendedAt: expect.any(String),
    });
  });

  it("a verification of a suspended credential is rejected with credential_suspended; after reinstatement it verifies", async () => {
    const issued = await issueCredential(t, t.adminKey, issuer);
    await policyTrusting(t, t.adminKey, "suspension-check", issuer);
    expect((await presentTo(t, t.adminKey, "suspension-check", issued)).status).toBe("verified");
    expect((await suspend(issued.credentialId)).status).toBe(200);
    const refused = await presentTo(t, t.adminKey, "suspension-check", issued);
    expect(refused.status).toBe("rejected");
    expect(refused.result.reasons?.map((r) => r.code)).toContain("credential_suspended");
    expect((await reinstate(issued.credentialId)).status).toBe(200);
    expect((await presentTo(t, t.adminKey, "suspension-check", issued)).status).toBe("verified");
  });

  it("suspends and reinstates every copy of a batch, and leaves neighbours alone", async () => {
    const neighbour = await issue();
    const batch = await issue(issuer, {}, 3);
    expect(batch.entries).toHaveLength(3);
    expect((await suspend(batch.credentialIds[1]!)).status).toBe(200);
    for (const entry of batch.entries) expect(await statusOf(entry)).toBe(2);
    expect(await statusOf(neighbour.entries[0]!)).toBe(0);
    for (const id of batch.credentialIds) expect(await eventsFor("credential.suspended", id)).toHaveLength(1);

    expect((await reinstate(batch.credentialIds[2]!)).status).toBe(200);
    for (const entry of batch.entries) expect(await statusOf(entry)).toBe(0);
    for (const id of batch.credentialIds) expect((await get(id)).body.data.status).toBe("active");

    // Revoking a copy of a suspended batch revokes every copy (value 1 each).
    expect((await suspend(batch.credentialId)).status).toBe(200);
    expect((await revoke(batch.credentialIds[2]!)).status).toBe(200);
    for (const entry of batch.entries) expect(await statusOf(entry)).toBe(1);
    expect(await statusOf(neighbour.entries[0]!)).toBe(0);
  });

  it("400 for a credential without status, 401, 403 MissingScope without credentials.revoke, 404 unknown, foreign or other environment", async () => {
    const { credentialId, entries } = await issue();
    for (const op of [suspend, reinstate]) {
      expect((await op(credentialId, null)).status).toBe(401);
      const refused = await op(credentialId, await t.key({ scopes: ["credentials.read"] }));
      expect(refused.status).toBe(403);
      expect(errorCode(refused)).toBe("MissingScope");
      expect((await op("cred_01jd5x6c3v8w9y0z1a2b3c4d5e")).status).toBe(404);
      expect((await op(credentialId, (await t.otherTenant()).key)).status).toBe(404);
      expect((await op(credentialId, await t.key({ environment: "production" }))).status).toBe(404);
      expect((await op(credentialId, await t.key({ issuerId: otherIssuer.issuerId }))).status).toBe(404);
    }
    expect(await statusOf(entries[0]!)).toBe(0);

    const noStatus = await activeIssuer(t, t.adminKey, {
      statusEnabled: false,
      holderBindingRequired: false,
    });
    const tx = await createTransactionWith(t, t.adminKey, noStatus);
    const offer = await resolveOffer(tx.credentialOffer);
    const tok = await token(`${noStatus.credentialIssuer}/token`, {
      grant_type: PRE_AUTHORIZED_CODE_GRANT,
      "pre-authorized_code": offer.grants[PRE_AUTHORIZED_CODE_GRANT]["pre-authorized_code"],
    });
    await requestCredential(`${noStatus.credentialIssuer}/credential`, tok.body.access_token, {
      credential_configuration_id: noStatus.configuration,
    });
    const unlisted = (await call(t, "GET", `${ISSUANCE_TRANSACTIONS_PATH}/${tx.id}`, { key: t.adminKey }))
      .body.data.credentialId;
    for (const op of [suspend, reinstate]) {
      const r = await op(unlisted);
      expect(r.status).toBe(400);
      expect(errorCode(r)).toBe("RevocationNotSupported");
    }
    expect((await get(unlisted)).body.data).toMatchObject({ status: "active", statusList: null });
  });
});
