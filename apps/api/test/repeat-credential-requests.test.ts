// OpenID4VCI 1.0 §14.3: "The Credential Endpoint can be accessed multiple times by a Wallet using the
// same Access Token, even for the same Credential." While the token lives, each further request with a
// fresh nonce and proof gets fresh credentials (new status indices), recorded against the transaction,
// which completes once; the sealed claims go when the token expires, not at the first delivery.

import { sweepExpired } from "@cred/core";
import { decodeJwtUnverified, getStatus, importEs256PublicKey, verifyStatusListToken } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, createTransaction } from "./fixtures";
import { call, startTestServer, type TestServer } from "./harness";
import { describeOnPostgres } from "./skip-reasons";
import {
  fetchJson,
  holderKey,
  nonce,
  proof,
  redeemOffer,
  requestCredential,
  resolveOffer,
  token,
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

const prisma = () => t.server.database.prisma;

type StatusEntry = { idx: number; uri: string };
const payloadOf = (sdJwt: string) => decodeJwtUnverified(sdJwt.split("~")[0]!).payload as any;
const statusEntryOf = (sdJwt: string) => payloadOf(sdJwt).status.status_list as StatusEntry;

/** A completed transaction: the offer redeemed and its first credential delivered. */
async function completedTransaction() {
  const created = await createTransaction(t, t.adminKey, issuer);
  const first = await redeemOffer(created.credentialOffer);
  expect(first.credentialRes.status, JSON.stringify(first.credentialRes.body)).toBe(200);
  return { id: created.id, accessToken: first.accessToken, first };
}

/** A further credential request with the token: a fresh key, and a proof with a fresh nonce (or `cNonce`). */
async function askAgain(accessToken: string, options: { cNonce?: string; keys?: number } = {}) {
  const cNonce = options.cNonce ?? (await nonce(endpoints.nonce));
  const keys = await Promise.all(Array.from({ length: options.keys ?? 1 }, () => holderKey()));
  const jwts = await Promise.all(keys.map((k) => proof(k, issuer.credentialIssuer, cNonce)));
  const res = await requestCredential(endpoints.credential, accessToken, {
    credential_configuration_id: issuer.configuration,
    proofs: { jwt: jwts },
  });
  return { res, keys, jwts };
}

async function eventsOf(transactionId: string, type: string) {
  const events = await prisma().outboxEvent.findMany({ where: { type }, orderBy: { occurredAt: "asc" } });
  return events
    .map((e) => e.payload as { transactionId: string; credentialIds: string[]; status: string })
    .filter((p) => p.transactionId === transactionId);
}

async function statusOf(entry: StatusEntry) {
  const doc = await fetchJson(wellKnown("jwt-vc-issuer", issuer.credentialIssuer));
  const key = await importEs256PublicKey(doc.body.jwks.keys[0]);
  const res = await fetch(entry.uri, { headers: { accept: "application/statuslist+jwt" } });
  const list = await verifyStatusListToken(await res.text(), key, {
    expectedSub: entry.uri,
    now: new Date(),
  });
  return getStatus(list.bytes, list.bits, entry.idx);
}

describe("repeated credential requests with one access token (OpenID4VCI §14.3)", () => {
  it("issues fresh credentials to a further request: new status index, recorded against the transaction, which completes once", async () => {
    const tx = await completedTransaction();
    const firstCredential = tx.first.credentialRes.body.credentials[0].credential as string;
    const again = await askAgain(tx.accessToken);
    expect(again.res.status, JSON.stringify(again.res.body)).toBe(200);
    expect(again.res.headers.get("cache-control")).toBe("no-store");
    const [{ credential }] = again.res.body.credentials;
    expect(credential).not.toBe(firstCredential);
    expect(payloadOf(credential).cnf.jwk.x).toBe(again.keys[0]!.publicJwk.x);
    expect(payloadOf(credential).given_name).toBeUndefined(); // the same claims, as disclosures
    expect(credential.split("~").length).toBe(firstCredential.split("~").length);
    const [firstEntry, secondEntry] = [statusEntryOf(firstCredential), statusEntryOf(credential)];
    expect(`${secondEntry.uri}#${secondEntry.idx}`).not.toBe(`${firstEntry.uri}#${firstEntry.idx}`);
    expect(again.res.body.notification_id).toEqual(expect.any(String));
    expect(again.res.body.notification_id).not.toBe(tx.first.credentialRes.body.notification_id);

    // The transaction completed once, with its first credential; the second is recorded against it.
    const read = (await call(t, "GET", `/v1.0/issuance-transactions/${tx.id}`, { key: t.adminKey })).body
      .data;
    expect(read.status).toBe("completed");
    const rows = await prisma().credential.findMany({ where: { transactionId: tx.id } });
    expect(rows).toHaveLength(2);
    const second = rows.find((r) => r.id !== read.credentialId)!;
    expect(second).toMatchObject({ status: "issued", statusIndex: secondEntry.idx });
    const completed = await eventsOf(tx.id, "issuance.transaction.completed");
    expect(completed.map((e) => e.credentialIds)).toEqual([[read.credentialId]]);
    const reissued = await eventsOf(tx.id, "issuance.transaction.reissued");
    expect(reissued).toEqual([expect.objectContaining({ status: "completed", credentialIds: [second.id] })]);

    // A third request, a batch of two: two more credentials, each with its own index.
    const third = await askAgain(tx.accessToken, { keys: 2 });
    expect(third.res.status, JSON.stringify(third.res.body)).toBe(200);
    expect(third.res.body.credentials).toHaveLength(2);
    expect(await prisma().credential.count({ where: { transactionId: tx.id } })).toBe(4);
    const indices = (await prisma().credential.findMany({ where: { transactionId: tx.id } })).map(
      (c) => `${c.statusListId}#${c.statusIndex}`,
    );
    expect(new Set(indices).size).toBe(4);
    expect(await eventsOf(tx.id, "issuance.transaction.completed")).toHaveLength(1);
    expect(await eventsOf(tx.id, "issuance.transaction.reissued")).toHaveLength(2);
  });

  it("still spends a c_nonce once: a further request replaying a proof or its nonce is invalid_nonce", async () => {
    const tx = await completedTransaction();
    const cNonce = await nonce(endpoints.nonce);
    const first = await askAgain(tx.accessToken, { cNonce });
    expect(first.res.status).toBe(200);
    const replay = await askAgain(tx.accessToken, { cNonce });
    expect([replay.res.status, replay.res.body.error]).toEqual([400, "invalid_nonce"]);
    const sameProof = await requestCredential(endpoints.credential, tx.accessToken, {
      credential_configuration_id: issuer.configuration,
      proofs: { jwt: first.jwts },
    });
    expect([sameProof.status, sameProof.body.error]).toEqual([400, "invalid_nonce"]);
    expect(await prisma().credential.count({ where: { transactionId: tx.id } })).toBe(2);
  });

  it("gives concurrent requests with one token distinct status indices and completes the transaction once", async () => {
    const created = await createTransaction(t, t.adminKey, issuer);
    const redeemed = await redeemOffer(created.credentialOffer); // the first request, then four at once
    expect(redeemed.credentialRes.status).toBe(200);
    const fresh = await createTransaction(t, t.adminKey, issuer);
    const offer = await resolveOffer(fresh.credentialOffer);
    const tokenRes = await token(endpoints.token, {
      grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
      "pre-authorized_code":
        offer.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"],
    });
    expect(tokenRes.status).toBe(200);
    // Four at once as the very first requests of a transaction, and four at once on a completed one.
    for (const [id, accessToken, before] of [
      [fresh.id, tokenRes.body.access_token as string, 0],
      [created.id, redeemed.accessToken, 1],
    ] as const) {
      const results = await Promise.all(Array.from({ length: 4 }, () => askAgain(accessToken)));
      expect(results.map((r) => r.res.status)).toEqual([200, 200, 200, 200]);
      const rows = await prisma().credential.findMany({ where: { transactionId: id } });
      expect(rows).toHaveLength(before + 4);
      expect(new Set(rows.map((c) => `${c.statusListId}#${c.statusIndex}`)).size).toBe(before + 4);
      const completed = await eventsOf(id, "issuance.transaction.completed");
      expect(completed).toHaveLength(1);
      const reissued = await eventsOf(id, "issuance.transaction.reissued");
      expect(reissued).toHaveLength(before + 3);
      // Every credential is named by exactly one event.
      const named = [...completed, ...reissued].flatMap((e) => e.credentialIds).sort();
      expect(named).toEqual(rows.map((r) => r.id).sort());
      const read = await call(t, "GET", `/v1.0/issuance-transactions/${id}`, { key: t.adminKey });
      expect(read.body.data.credentialId).toBe(completed[0]!.credentialIds[0]);
    }
  });

  it("revoking a further credential revokes every credential of the transaction, and ends its further issuance", async () => {
    const tx = await completedTransaction();
    const firstEntry = statusEntryOf(tx.first.credentialRes.body.credentials[0].credential);
    const again = await askAgain(tx.accessToken);
    expect(again.res.status).toBe(200);
    const secondEntry = statusEntryOf(again.res.body.credentials[0].credential);
    const [reissued] = await eventsOf(tx.id, "issuance.transaction.reissued");
    const secondId = reissued!.credentialIds[0]!;
    expect(await statusOf(secondEntry)).toBe(0);

    const revoked = await call(t, "POST", `/v1.0/credentials/${secondId}/revoke`, { key: t.adminKey });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body.data).toMatchObject({
      credentialId: secondId,
      status: "revoked",
      statusList: { idx: secondEntry.idx, uri: secondEntry.uri },
    });
    expect(await statusOf(secondEntry)).toBe(1);
    expect(await statusOf(firstEntry)).toBe(1);
    const rows = await prisma().credential.findMany({ where: { transactionId: tx.id } });
    expect(rows.map((r) => r.status)).toEqual(["revoked", "revoked"]);
    // A revoked credential is not handed out again: the claims are gone, the token gets no more.
    const row = await prisma().issuanceTransaction.findUniqueOrThrow({ where: { id: tx.id } });
    expect(row.claimsCipher).toBeNull();
    const after = await askAgain(tx.accessToken);
    expect([after.res.status, after.res.body.error]).toEqual([400, "credential_request_denied"]);
    expect(await prisma().credential.count({ where: { transactionId: tx.id } })).toBe(2);
  });

  it("revoking the first credential revokes the further ones too", async () => {
    const tx = await completedTransaction();
    const again = await askAgain(tx.accessToken);
    const secondEntry = statusEntryOf(again.res.body.credentials[0].credential);
    const { credentialId } = (
      await call(t, "GET", `/v1.0/issuance-transactions/${tx.id}`, { key: t.adminKey })
    ).body.data;
    const revoked = await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: t.adminKey });
    expect(revoked.status).toBe(200);
    expect(await statusOf(secondEntry)).toBe(1);
  });

  it("keeps the sealed claims while the token lives; after its expiry the request is invalid_token and the sweeper purges them", async () => {
    const tx = await completedTransaction();
    const held = await prisma().issuanceTransaction.findUniqueOrThrow({ where: { id: tx.id } });
    expect(held.claimsCipher).toEqual(expect.any(String));
    expect(JSON.stringify(held)).not.toMatch(/Erika|Mustermann/); // sealed, not in the clear
    const past = new Date(Date.now() - 1_000);
    await prisma().accessToken.updateMany({ where: { transactionId: tx.id }, data: { expiresAt: past } });
    const expired = await askAgain(tx.accessToken);
    expect([expired.res.status, expired.res.body.error]).toEqual([401, "invalid_token"]);
    expect(expired.res.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);

    // Another completed transaction whose token still lives keeps its claims.
    const live = await completedTransaction();
    await sweepExpired(t.server.deps);
    const purged = await prisma().issuanceTransaction.findUniqueOrThrow({ where: { id: tx.id } });
    expect(purged).toMatchObject({ status: "completed", claimsCipher: null });
    expect(await prisma().accessToken.count({ where: { transactionId: tx.id } })).toBe(0);
    const kept = await prisma().issuanceTransaction.findUniqueOrThrow({ where: { id: live.id } });
    expect(kept.claimsCipher).toEqual(expect.any(String));
    expect((await askAgain(live.accessToken)).res.status).toBe(200);
    // The credentials issued stay as they were.
    expect(await prisma().credential.count({ where: { transactionId: tx.id, status: "issued" } })).toBe(1);
  });
});

// PostgreSQL runs statements side by side: another session holding the transaction row makes the
// interleavings that are otherwise a matter of timing happen every time.
describeOnPostgres("repeated credential requests under contention", () => {
  /**
   * Runs `during` while another session holds the transaction row locked, waits until `waiters`
   * statements wait for that lock, runs `more` in that session and commits it.
   */
  async function whileRowLocked(
    transactionId: string,
    waiters: number,
    during: () => Promise<void>,
    more?: string,
  ) {
    const pool = t.server.database.pool!;
    const other = await pool.connect();
    let committed = false;
    try {
      await other.query("BEGIN");
      await other.query(`UPDATE "IssuanceTransaction" SET "updatedAt" = now() WHERE "id" = $1`, [
        transactionId,
      ]);
      await during();
      for (let waited = 0; ; waited += 20) {
        // Statements waiting for a lock (the first for this session's, the others queued behind it).
        const blocked = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND cardinality(pg_blocking_pids(pid)) > 0`,
        );
        if (blocked.rows[0]!.n >= waiters) break;
        if (waited > 20_000) throw new Error("the requests never reached the locked row");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      if (more) await other.query(more, [transactionId]);
      await other.query("COMMIT");
      committed = true;
    } finally {
      if (!committed) await other.query("ROLLBACK");
      other.release();
    }
  }

  it("two first requests that meet at the row: both are issued, and the transaction completes once", async () => {
    const created = await createTransaction(t, t.adminKey, issuer);
    const offer = await resolveOffer(created.credentialOffer);
    const tokenRes = await token(endpoints.token, {
      grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
      "pre-authorized_code":
        offer.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"]["pre-authorized_code"],
    });
    const accessToken = tokenRes.body.access_token as string;
    let requests: Promise<Awaited<ReturnType<typeof askAgain>>[]> = Promise.resolve([]);
    await whileRowLocked(created.id, 2, async () => {
      requests = Promise.all([askAgain(accessToken), askAgain(accessToken)]);
    });
    const results = await requests;
    expect(results.map((r) => r.res.status)).toEqual([200, 200]);
    expect(await eventsOf(created.id, "issuance.transaction.completed")).toHaveLength(1);
    expect(await eventsOf(created.id, "issuance.transaction.reissued")).toHaveLength(1);
    const rows = await prisma().credential.findMany({ where: { transactionId: created.id } });
    expect(new Set(rows.map((c) => `${c.statusListId}#${c.statusIndex}`)).size).toBe(2);
  });

  it("a revocation waits for an issuance in flight and revokes its credentials too", async () => {
    const tx = await completedTransaction();
    const [first] = await prisma().credential.findMany({ where: { transactionId: tx.id } });
    // A free index in the same list for the credential the session in flight records.
    let idx = (first!.statusIndex! + 1) % 131_072;
    while (
      await prisma().credential.count({ where: { statusListId: first!.statusListId, statusIndex: idx } })
    )
      idx = (idx + 1) % 131_072;
    const inFlight = `cred_inflight_${Date.now()}`;
    let revoking: ReturnType<typeof call> | undefined;
    await whileRowLocked(
      tx.id,
      1,
      async () => {
        revoking = call(t, "POST", `/v1.0/credentials/${first!.id}/revoke`, { key: t.adminKey });
      },
      `INSERT INTO "Credential" ("id", "tenantId", "environment", "issuerId", "configurationId", "transactionId",
         "status", "statusListId", "statusIndex", "digest", "issuedAt", "expiresAt")
       SELECT '${inFlight}', "tenantId", "environment", "issuerId", "configurationId", "transactionId", 'issued',
              "statusListId", ${idx}, 'd', now(), "expiresAt" FROM "Credential" WHERE "transactionId" = $1`,
    );
    expect((await revoking!).status).toBe(200);
    const rows = await prisma().credential.findMany({ where: { transactionId: tx.id } });
    expect(rows.map((r) => [r.id === inFlight, r.status]).sort()).toEqual([
      [false, "revoked"],
      [true, "revoked"],
    ]);
    const after = await askAgain(tx.accessToken);
    expect([after.res.status, after.res.body.error]).toEqual([400, "credential_request_denied"]);
  });
});
