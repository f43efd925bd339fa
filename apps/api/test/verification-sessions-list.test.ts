import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, issueCredential, policyTrusting, presentTo } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

const LIST = "/v1.0/verification-sessions";

let t: TestServer;
let issuer: ActiveIssuer;
let stranger: ActiveIssuer;
/** Sessions oldest first: verified (trusting), rejected (distrusting), pending, expired, cancelled. */
const made: string[] = [];
let rejectionReason = "";

const start = async (policy: string, key = t.adminKey) => {
  const r = await call(t, "POST", "/v1.0/verifications", { key, body: { policy } });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  return r.body.data.id as string;
};

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
  stranger = await activeIssuer(t, t.adminKey);
  await policyTrusting(t, t.adminKey, "trusting", issuer);
  // Asks for the same type but trusts another issuer only: the presentation is rejected.
  await policyTrusting(t, t.adminKey, "distrusting", issuer, [{ issuerId: stranger.issuerId }]);
  const issued = await issueCredential(t, t.adminKey, issuer);
  const before = new Set(
    (await t.server.database.root.prisma.verificationSession.findMany({ select: { id: true } })).map(
      (s) => s.id,
    ),
  );
  const verified = await presentTo(t, t.adminKey, "trusting", issued);
  expect(verified.status).toBe("verified");
  const rejected = await presentTo(t, t.adminKey, "distrusting", issued);
  expect(rejected.status).toBe("rejected");
  rejectionReason = rejected.result.reasons![0]!.code;
  const decided = (
    await t.server.database.root.prisma.verificationSession.findMany({ orderBy: { id: "asc" } })
  )
    .map((s) => s.id)
    .filter((id) => !before.has(id));
  made.push(...decided);
  made.push(await start("trusting"));
  const expired = await start("trusting");
  await t.server.database.root.prisma.verificationSession.update({
    where: { id: expired },
    data: { expiresAt: new Date(Date.now() - 1000) },
  });
  made.push(expired);
  const cancelled = await start("distrusting");
  expect((await call(t, "POST", `${LIST}/${cancelled}/cancel`, { key: t.adminKey })).status).toBe(200);
  made.push(cancelled);
});
afterAll(async () => {
  await t.close();
});

const list = (query = "", key: string | null = t.adminKey) => call(t, "GET", `${LIST}${query}`, { key });
const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((s) => s.id);
const VERIFIED = () => made[0]!;
const REJECTED = () => made[1]!;
const PENDING = () => made[2]!;
const EXPIRED = () => made[3]!;
const CANCELLED = () => made[4]!;
const newestFirst = () => [CANCELLED(), EXPIRED(), PENDING(), REJECTED(), VERIFIED()];

describe("VerificationSessions_List", () => {
  it("lists the environment's sessions newest first, each as VerificationSessions_Get shows it", async () => {
    expect(made).toHaveLength(5);
    const res = await list();
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual(newestFirst());
    expect(res.body.data.map((s: { status: string }) => s.status)).toEqual([
      "cancelled",
      "expired",
      "pending",
      "rejected",
      "verified",
    ]);
    const verified = res.body.data[4];
    expect(verified.result.outcome).toBe("verified");
    expect(verified.result.credentials[0].checks).toMatchObject({ issuerSignature: "passed" });
    expect(verified.result.credentials[0].claims).toEqual({ given_name: "Erika" });
    for (const item of res.body.data) {
      const got = await call(t, "GET", `${LIST}/${item.id}`, { key: t.adminKey });
      expect(item).toEqual(got.body.data);
    }
  });

  it("maps a pending session past its expiry to expired without writing it", async () => {
    const fresh = await start("trusting");
    await t.server.database.root.prisma.verificationSession.update({
      where: { id: fresh },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const res = await list("?limit=1");
    expect(res.body.data[0]).toMatchObject({ id: fresh, status: "expired" });
    const stored = await t.server.database.root.prisma.verificationSession.findUnique({
      where: { id: fresh },
    });
    expect(stored?.status).toBe("pending");
    // Out of this tenant's sight again, so the other tests see the five sessions made up front.
    await t.server.database.root.prisma.verificationSession.update({
      where: { id: fresh },
      data: { tenantId: "ten_elsewhere" },
    });
  });

  it("withholds the result where Get withholds it (requireResponseCode with a response code)", async () => {
    const row = await t.server.database.root.prisma.verificationSession.findUniqueOrThrow({
      where: { id: VERIFIED() },
    });
    await t.server.database.root.prisma.verificationSession.update({
      where: { id: VERIFIED() },
      data: {
        rules: { ...(row.rules as object), requireResponseCode: true },
        responseCodeHash: "x".repeat(43),
      },
    });
    try {
      const listed = (await list()).body.data.find((s: { id: string }) => s.id === VERIFIED());
      const got = await call(t, "GET", `${LIST}/${VERIFIED()}`, { key: t.adminKey });
      expect(got.body.data.resultWithheld).toBe(true);
      expect(listed).toEqual(got.body.data);
      expect(listed.result).toBeUndefined();
    } finally {
      await t.server.database.root.prisma.verificationSession.update({
        where: { id: VERIFIED() },
        data: { rules: row.rules as object, responseCodeHash: row.responseCodeHash },
      });
    }
  });

  it("pages newest first with the cursor", async () => {
    const one = await list("?limit=2");
    expect(ids(one)).toEqual(newestFirst().slice(0, 2));
    const two = await list(`?limit=2&cursor=${one.body.nextCursor}`);
    expect(ids(two)).toEqual(newestFirst().slice(2, 4));
    const three = await list(`?limit=2&cursor=${two.body.nextCursor}`);
    expect(ids(three)).toEqual(newestFirst().slice(4));
    expect(three.body.nextCursor).toBeNull();
  });

  it("filters by status, policy, reason code and creation time", async () => {
    expect(ids(await list("?status=pending"))).toEqual([PENDING()]);
    expect(ids(await list("?status=expired"))).toEqual([EXPIRED()]);
    expect(ids(await list("?status=verified"))).toEqual([VERIFIED()]);
    expect(ids(await list("?status=rejected"))).toEqual([REJECTED()]);
    expect(ids(await list("?status=cancelled"))).toEqual([CANCELLED()]);
    expect(ids(await list("?policy=distrusting"))).toEqual([CANCELLED(), REJECTED()]);
    expect(ids(await list(`?reason=${rejectionReason}`))).toEqual([REJECTED()]);
    expect(ids(await list("?reason=no_such_reason"))).toEqual([]);
    const rows = await t.server.database.root.prisma.verificationSession.findMany({
      where: { id: { in: made } },
    });
    const createdAt = new Map(rows.map((r) => [r.id, r.createdAt.toISOString()]));
    expect(ids(await list(`?createdFrom=${createdAt.get(PENDING())}`))).toEqual(newestFirst().slice(0, 3));
    expect(ids(await list(`?createdTo=${createdAt.get(PENDING())}`))).toEqual([REJECTED(), VERIFIED()]);
  });

  it("400 for a bad filter or cursor", async () => {
    for (const query of ["?status=done", "?limit=0", "?createdTo=soon", "?cursor=%%%", "?reason=a%20b"]) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      expect(errorCode(res), query).toBe("ValidationFailed");
    }
  });

  it("401 without a key, 403 MissingScope without verification.read", async () => {
    expect((await list("", null)).status).toBe(401);
    const executeOnly = await t.key({ scopes: ["verification.execute"] });
    const res = await list("", executeOnly);
    expect(res.status).toBe(403);
    expect(errorCode(res)).toBe("MissingScope");
  });

  it("never lists another tenant's or environment's sessions", async () => {
    const other = await t.otherTenant();
    const foreignIssuer = await activeIssuer(t, other.key);
    await policyTrusting(t, other.key, "trusting", foreignIssuer);
    const foreign = await start("trusting", other.key);
    const production = await t.key({ environment: "production" });
    expect(ids(await list("", production))).toEqual([]);
    expect(ids(await list("", other.key))).toEqual([foreign]);
    expect(ids(await list())).toEqual(newestFirst());
  });
});
