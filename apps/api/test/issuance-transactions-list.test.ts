import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ActiveIssuer,
  activeIssuer,
  createTransactionWith,
  ISSUANCE_TRANSACTIONS_PATH,
} from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

let t: TestServer;
let first: ActiveIssuer;
let second: ActiveIssuer;
/** Transactions of `first` (a, b, c) and of `second` (d), oldest first. */
const made: { id: string; status: string }[] = [];

beforeAll(async () => {
  t = await startTestServer();
  first = await activeIssuer(t, t.adminKey);
  second = await activeIssuer(t, t.adminKey);
  const a = await createTransactionWith(t, t.adminKey, first, {
    externalSubjectReference: "crm-a",
    callbackReference: "order-a",
  });
  const b = await createTransactionWith(t, t.adminKey, first, { externalSubjectReference: "crm-b" });
  const c = await createTransactionWith(t, t.adminKey, first, { callbackReference: "order-c" });
  const d = await createTransactionWith(t, t.adminKey, second);
  made.push(a, b, c, d);
  // b: cancelled; c: pending past its expiry (not settled by anyone yet).
  expect(
    (await call(t, "POST", `${ISSUANCE_TRANSACTIONS_PATH}/${b.id}/cancel`, { key: t.adminKey })).status,
  ).toBe(200);
  await t.server.database.root.prisma.issuanceTransaction.update({
    where: { id: c.id },
    data: { expiresAt: new Date(Date.now() - 1000) },
  });
});
afterAll(async () => {
  await t.close();
});

const list = (query = "", key = t.adminKey) =>
  call(t, "GET", `${ISSUANCE_TRANSACTIONS_PATH}${query}`, { key });
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((tx) => tx.id);
const A = () => made[0]!.id;
const B = () => made[1]!.id;
const C = () => made[2]!.id;
const D = () => made[3]!.id;

describe("IssuanceTransactions_List", () => {
  it("lists the environment's transactions newest first, as Get shows them, without the offer secrets", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([D(), C(), B(), A()]);
    expect(res.body.nextCursor).toBeNull();
    const [d, c, b, a] = res.body.data;
    expect(a).toMatchObject({
      status: "pending",
      issuerId: first.issuerId,
      credentialConfiguration: first.configuration,
      externalSubjectReference: "crm-a",
      callbackReference: "order-a",
      credentialOffer: null,
      credentialOfferUri: null,
      txCode: null,
    });
    expect(b.status).toBe("cancelled");
    expect(c.status).toBe("expired");
    expect(d.issuerId).toBe(second.issuerId);
    // Get hands the same caller the offer of a pending transaction; the list never does.
    const got = await call(t, "GET", `${ISSUANCE_TRANSACTIONS_PATH}/${A()}`, { key: t.adminKey });
    expect(got.body.data.credentialOffer).toMatch(/^openid-credential-offer:/);
    expect({ ...got.body.data, credentialOffer: null, credentialOfferUri: null }).toEqual(a);
    // Listing settles nothing: the expired one is still pending in storage.
    const stored = await t.server.database.root.prisma.issuanceTransaction.findUnique({ where: { id: C() } });
    expect(stored?.status).toBe("pending");
  });

  it("pages newest first with the cursor", async () => {
    const one = await list("?limit=1");
    expect(ids(one)).toEqual([D()]);
    const two = await list(`?limit=2&cursor=${one.body.nextCursor}`);
    expect(ids(two)).toEqual([C(), B()]);
    const three = await list(`?limit=2&cursor=${two.body.nextCursor}`);
    expect(ids(three)).toEqual([A()]);
    expect(three.body.nextCursor).toBeNull();
  });

  it("filters by status (pending past expiry counts as expired), configuration, issuer and references", async () => {
    expect(ids(await list("?status=pending"))).toEqual([D(), A()]);
    expect(ids(await list("?status=expired"))).toEqual([C()]);
    expect(ids(await list("?status=cancelled"))).toEqual([B()]);
    expect(ids(await list("?status=completed"))).toEqual([]);
    expect(ids(await list(`?credentialConfiguration=${second.configuration}`))).toEqual([D()]);
    expect(ids(await list(`?issuerId=${first.issuerId}`))).toEqual([C(), B(), A()]);
    expect(ids(await list("?externalSubjectReference=crm-b"))).toEqual([B()]);
    expect(ids(await list("?callbackReference=order-c"))).toEqual([C()]);
    expect(ids(await list(`?issuerId=${first.issuerId}&status=pending`))).toEqual([A()]);
  });

  it("filters by creation time (from inclusive, to exclusive)", async () => {
    const rows = await t.server.database.root.prisma.issuanceTransaction.findMany({
      where: { id: { in: made.map((m) => m.id) } },
    });
    const createdAt = new Map(rows.map((r) => [r.id, r.createdAt.toISOString()]));
    const from = createdAt.get(B())!;
    expect(ids(await list(`?createdFrom=${from}`))).toEqual([D(), C(), B()]);
    expect(ids(await list(`?createdTo=${from}`))).toEqual([A()]);
    expect(ids(await list(`?createdFrom=${from}&createdTo=${createdAt.get(D())!}`))).toEqual([C(), B()]);
    expect(ids(await list("?createdTo=2000-01-01T00:00:00Z"))).toEqual([]);
  });

  it("400 for a bad filter or cursor", async () => {
    for (const query of [
      "?status=done",
      "?limit=0",
      "?limit=101",
      "?createdFrom=yesterday",
      "?cursor=not-a-cursor",
      `?externalSubjectReference=${"x".repeat(201)}`,
    ]) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      expect(errorCode(res), query).toBe("ValidationFailed");
    }
  });

  it("401 without a key, 403 MissingScope without credentials.read", async () => {
    expect((await list("", null as unknown as string)).status).toBe(401);
    const issueOnly = await t.key({ scopes: ["credentials.issue"] });
    const res = await list("", issueOnly);
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe("MissingScope");
  });

  it("a read-only key lists the same items (never an offer)", async () => {
    const reader = await t.key({ scopes: ["credentials.read"] });
    const res = await list("", reader);
    expect(ids(res)).toEqual([D(), C(), B(), A()]);
    expect(res.body.data.every((tx: { credentialOffer: null }) => tx.credentialOffer === null)).toBe(true);
  });

  it("an issuer-bound key sees only its issuer's transactions", async () => {
    const bound = await t.key({ scopes: ["credentials.read"], issuerId: second.issuerId });
    expect(ids(await list("", bound))).toEqual([D()]);
    expect(ids(await list(`?issuerId=${second.issuerId}`, bound))).toEqual([D()]);
    expect(ids(await list(`?issuerId=${first.issuerId}`, bound))).toEqual([]);
  });

  it("never lists another tenant's or environment's transactions", async () => {
    const other = await t.otherTenant();
    const foreign = await activeIssuer(t, other.key);
    const foreignTx = await createTransactionWith(t, other.key, foreign);
    const production = await t.key({ environment: "production" });
    expect(ids(await list("", production))).toEqual([]);
    expect(ids(await list("", other.key))).toEqual([foreignTx.id]);
    expect(ids(await list())).toEqual([D(), C(), B(), A()]);
    expect(ids(await list(`?issuerId=${foreign.issuerId}`))).toEqual([]);
  });
});
