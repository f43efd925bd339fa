import { get as httpGet, type IncomingHttpHeaders } from "node:http";
import { gunzipSync } from "node:zlib";
import { decodeStatusList, getStatus, verifyStatusListToken } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ActiveIssuer,
  activeIssuer,
  createTransactionWith,
  ISSUANCE_TRANSACTIONS_PATH,
  PRE_AUTHORIZED_CODE_GRANT,
  publishedIssuerKey,
  VALID_CLAIMS,
} from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { itOnPostgres } from "./skip-reasons";
import { redeemOffer, requestCredential, resolveOffer, token } from "./wallet-client";

/** Credentials_Revoke and the status list it publishes. */

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

describe("Credentials_Revoke and the status list", () => {
  async function issued() {
    const tx = await create();
    const flow = await redeemOffer(tx.credentialOffer);
    const credential = flow.credentialRes.body.credentials[0].credential as string;
    const payload = JSON.parse(Buffer.from(credential.split("~")[0]!.split(".")[1]!, "base64url").toString());
    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey });
    return {
      credentialId: read.body.data.credentialId as string,
      status: payload.status.status_list as { idx: number; uri: string },
    };
  }

  async function statusOf(entry: { idx: number; uri: string }) {
    const res = await fetch(entry.uri, { headers: { accept: "application/statuslist+jwt" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/statuslist\+jwt/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const jwt = await res.text();
    const header = JSON.parse(Buffer.from(jwt.split(".")[0]!, "base64url").toString());
    expect(header.typ).toBe("statuslist+jwt");
    const list = await verifyStatusListToken(jwt, await issuerKey(), {
      expectedSub: entry.uri,
      now: new Date(),
    });
    expect(list.bits).toBe(2);
    expect(list.ttl).toBeGreaterThan(0);
    return getStatus(list.bytes, list.bits, entry.idx);
  }

  /** A GET without fetch's transparent decoding, so the test sees the bytes and headers as sent. */
  function rawGet(url: string, headers: Record<string, string>) {
    return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      httpGet(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      }).on("error", reject);
    });
  }

  it("serves the list gzipped when accepted, identity otherwise, and 304 while the client's ETag is current", async () => {
    const { credentialId, status } = await issued();
    const plain = await rawGet(status.uri, { "accept-encoding": "identity" });
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    const etag = plain.headers.etag!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);

    const gz = await rawGet(status.uri, { "accept-encoding": "br;q=1, gzip;q=0.5" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    // Its own strong tag (RFC 9110 §8.8.3), current together with the plain one's.
    expect(gz.headers.etag).toBe(etag.replace(/"$/, '-gz"'));
    expect((await rawGet(status.uri, { "if-none-match": gz.headers.etag! })).status).toBe(304);
    expect(gunzipSync(gz.body).toString()).toBe(plain.body.toString());
    expect(
      (await rawGet(status.uri, { "accept-encoding": "gzip;q=0, *" })).headers["content-encoding"],
    ).toBeUndefined();

    const unchanged = await rawGet(status.uri, { "if-none-match": `W/"other", ${etag}` });
    expect(unchanged.status).toBe(304);
    expect(unchanged.body.length).toBe(0);
    expect(unchanged.headers.etag).toBe(etag);

    expect(
      (await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: t.adminKey })).status,
    ).toBe(200);
    const changed = await rawGet(status.uri, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    const list = await verifyStatusListToken(changed.body.toString(), await issuerKey(), {
      expectedSub: status.uri,
      now: new Date(),
    });
    expect(getStatus(list.bytes, list.bits, status.idx)).toBe(1);
  });

  it("revoking one copy of a batch revokes every copy of that issuance (one credential to its holder)", async () => {
    const tx = await create();
    const flow = await redeemOffer(tx.credentialOffer, { proofs: 3 });
    const entries = (flow.credentialRes.body.credentials as { credential: string }[]).map(
      ({ credential }) =>
        JSON.parse(Buffer.from(credential.split("~")[0]!.split(".")[1]!, "base64url").toString()).status
          .status_list as { idx: number; uri: string },
    );
    expect(entries).toHaveLength(3);
    const other = await issued(); // another issuance stays valid
    const { credentialId } = (await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey })).body.data;
    const r = await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ credentialId, status: "revoked" });
    for (const entry of entries) expect(await statusOf(entry)).toBe(1);
    expect(await statusOf(other.status)).toBe(0);
    const again = await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: t.adminKey });
    expect(again.status).toBe(200);
    expect(again.body.data.revokedAt).toBe(r.body.data.revokedAt);
  });

  itOnPostgres(
    "a batch revocation waits for another transaction holding its copies instead of deadlocking with it",
    async () => {
      const tx = await create();
      await redeemOffer(tx.credentialOffer, { proofs: 2 });
      const prisma = t.server.database.prisma;
      const [x, y] = await prisma.credential.findMany({
        where: { transactionId: tx.id },
        orderBy: { id: "asc" },
      });
      // Y first in (list, index) order, X first in id order: the orders in which the two sides lock.
      expect(x!.statusListId).toBe(y!.statusListId);
      if (x!.statusIndex! < y!.statusIndex!) {
        const swap = (id: string, idx: number) =>
          prisma.credential.update({ where: { id }, data: { statusIndex: idx } });
        await swap(x!.id, -1);
        await swap(y!.id, x!.statusIndex!);
        await swap(x!.id, y!.statusIndex!);
      }
      const other = await t.server.database.pool!.connect();
      try {
        // Another writer of the batch (as a wallet notification is) holds X, then wants Y.
        await other.query("BEGIN");
        await other.query(`UPDATE "Credential" SET "notifiedAt" = now() WHERE "id" = $1`, [x!.id]);
        const revoking = call(t, "POST", `/v1.0/credentials/${y!.id}/revoke`, { key: t.adminKey });
        await new Promise((resolve) => setTimeout(resolve, 300));
        await other.query(`UPDATE "Credential" SET "notifiedAt" = now() WHERE "id" = $1`, [y!.id]);
        await other.query("COMMIT");
        expect((await revoking).status).toBe(200);
      } finally {
        other.release();
      }
      const copies = await prisma.credential.findMany({ where: { transactionId: tx.id } });
      expect(copies.map((c) => c.status)).toEqual(["revoked", "revoked"]);
    },
  );

  it("answers a request for the list at a past time with 501 (historical resolution is not offered)", async () => {
    const { status } = await issued();
    const res = await fetch(`${status.uri}?time=${Math.floor(Date.now() / 1000) - 60}`);
    expect(res.status).toBe(501);
    expect(await res.json()).toMatchObject({ error: { code: "NotImplemented" } });
  });

  it("negotiates the list's media type: 406 for a client that takes only the CWT form, the JWT otherwise", async () => {
    const { status } = await issued();
    const get = (accept: string) => fetch(status.uri, { headers: { accept } });
    const cwtOnly = await get("application/statuslist+cwt");
    expect(cwtOnly.status).toBe(406);
    expect(await cwtOnly.json()).toMatchObject({ error: { code: "NotAcceptable" } });
    for (const accept of [
      "application/statuslist+jwt",
      "application/statuslist+cwt, application/statuslist+jwt;q=0.5",
      "*/*",
      "application/json",
    ]) {
      const res = await get(accept);
      expect(res.status, accept).toBe(200);
      expect(res.headers.get("content-type"), accept).toMatch(/^application\/statuslist\+jwt/);
    }
    expect((await get("application/statuslist+cwt, application/statuslist+jwt;q=0")).status).toBe(406);
    expect((await get("application/statuslist+jwt;q=0, application/statuslist+cwt, */*")).status).toBe(406);
  });

  it("shows a revocation from the moment Credentials_Revoke returns; repeat is 200", async () => {
    const { credentialId, status } = await issued();
    expect(await statusOf(status)).toBe(0);
    const r = await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: t.adminKey });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ credentialId, status: "revoked", statusList: status });
    expect(await statusOf(status)).toBe(1);
    const again = await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: t.adminKey });
    expect(again.status).toBe(200);
    expect(again.body.data.revokedAt).toBe(r.body.data.revokedAt);
    const events = await t.server.database.prisma.outboxEvent.findMany({
      where: { type: "credential.revoked" },
    });
    expect(
      events.filter((e) => (e.payload as { credentialId: string }).credentialId === credentialId),
    ).toHaveLength(1);
  });

  it("fetches arriving together after revocations all show every revocation made before them", async () => {
    const a = await issued();
    const b = await issued();
    expect(await statusOf(a.status)).toBe(0);
    await call(t, "POST", `/v1.0/credentials/${a.credentialId}/revoke`, { key: t.adminKey });
    // One token is built for the new version and shared by the fetches that wait for it.
    expect(await Promise.all(Array.from({ length: 8 }, () => statusOf(a.status)))).toEqual(Array(8).fill(1));
    // Revocations interleaved with fetches: each fetch that starts after a revocation returns shows it.
    const revokeB = call(t, "POST", `/v1.0/credentials/${b.credentialId}/revoke`, { key: t.adminKey });
    const during = Array.from({ length: 4 }, () => statusOf(b.status));
    await revokeB;
    expect((await Promise.all(during)).every((s) => s === 0 || s === 1)).toBe(true);
    expect(await Promise.all(Array.from({ length: 4 }, () => statusOf(b.status)))).toEqual([1, 1, 1, 1]);
    expect(await statusOf(a.status)).toBe(1);
  });

  it("revocations of neighbours in the same byte do not disturb each other", async () => {
    const a = await issued();
    const b = await issued();
    await Promise.all([
      call(t, "POST", `/v1.0/credentials/${a.credentialId}/revoke`, { key: t.adminKey }),
      call(t, "POST", `/v1.0/credentials/${b.credentialId}/revoke`, { key: t.adminKey }),
    ]);
    expect(await statusOf(a.status)).toBe(1);
    expect(await statusOf(b.status)).toBe(1);
    const row = await t.server.database.prisma.statusList.findFirstOrThrow({
      where: { issuerId: issuer.issuerId },
    });
    const revoked = await t.server.database.prisma.credential.count({
      where: { statusListId: row.id, status: "revoked" },
    });
    const chunks = await t.server.database.prisma.statusListChunk.findMany({ where: { listId: row.id } });
    const bytes = new Uint8Array((row.size * 2) / 8);
    for (const c of chunks) bytes.set(new Uint8Array(c.data), c.chunk * 1024);
    let set = 0;
    for (let i = 0; i < row.size; i++) if (getStatus(bytes, 2, i) === 1) set++;
    expect(set).toBe(revoked);
    expect(decodeStatusList).toBeTypeOf("function");
  });

  it("404 for unknown or foreign credentials, 403 without scope, 401 without key", async () => {
    const { credentialId } = await issued();
    expect((await call(t, "POST", "/v1.0/credentials/cred_unknown/revoke", { key: t.adminKey })).status).toBe(
      404,
    );
    const other = await t.otherTenant();
    expect(
      (await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: other.key })).status,
    ).toBe(404);
    const production = await t.key({ environment: "production" });
    expect(
      (await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: production })).status,
    ).toBe(404);
    const issuerOnly = await t.key({ scopes: ["credentials.issue"] });
    expect(
      (await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: issuerOnly })).status,
    ).toBe(403);
    expect((await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`)).status).toBe(401);
  });

  it("400 for a credential issued without status", async () => {
    const noStatus = await activeIssuer(t, t.adminKey, {
      statusEnabled: false,
      holderBindingRequired: false,
    });
    const tx = (
      await call(t, "POST", PATH, {
        key: t.adminKey,
        body: {
          credentialConfiguration: noStatus.configuration,
          issuerId: noStatus.issuerId,
          claims: VALID_CLAIMS,
        },
      })
    ).body.data;
    const offer = await resolveOffer(tx.credentialOffer);
    const tok = await token(`${noStatus.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    const res = await requestCredential(`${noStatus.credentialIssuer}/credential`, tok.body.access_token, {
      credential_configuration_id: noStatus.configuration,
    });
    expect(res.status).toBe(200);
    const payload = JSON.parse(
      Buffer.from(res.body.credentials[0].credential.split("~")[0].split(".")[1], "base64url").toString(),
    );
    expect(payload.cnf).toBeUndefined();
    expect(payload.status).toBeUndefined();
    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey });
    const r = await call(t, "POST", `/v1.0/credentials/${read.body.data.credentialId}/revoke`, {
      key: t.adminKey,
    });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("RevocationNotSupported");
  });
});

describe("status list allocation under pressure", () => {
  it("never hands out a (list, index) twice and moves to a new list when one fills", async () => {
    const base = t.server.deps.config.issuance;
    const small = await startTestServer({ config: { issuance: { ...base, statusListSize: 16 } } });
    try {
      const tiny = await activeIssuer(small, small.adminKey);
      const entries: string[] = [];
      for (let i = 0; i < 8; i++) {
        const tx = await call(small, "POST", PATH, {
          key: small.adminKey,
          body: {
            credentialConfiguration: tiny.configuration,
            issuerId: tiny.issuerId,
            claims: VALID_CLAIMS,
          },
        });
        const flow = await redeemOffer(tx.body.data.credentialOffer, { proofs: 3 });
        expect(flow.credentialRes.status).toBe(200);
        for (const { credential } of flow.credentialRes.body.credentials) {
          const { status } = JSON.parse(
            Buffer.from(credential.split("~")[0].split(".")[1], "base64url").toString(),
          );
          entries.push(`${status.status_list.uri}#${status.status_list.idx}`);
        }
      }
      expect(new Set(entries).size).toBe(24);
      const lists = await small.server.database.prisma.statusList.findMany({
        where: { issuerId: tiny.issuerId },
      });
      expect(lists.length).toBeGreaterThanOrEqual(2);
      expect(lists.filter((l) => l.full).length).toBeGreaterThanOrEqual(1);
    } finally {
      await small.close();
    }
  });
});
