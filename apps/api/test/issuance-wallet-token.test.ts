import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ActiveIssuer,
  activeIssuer,
  createTransactionWith,
  ISSUANCE_TRANSACTIONS_PATH,
  PRE_AUTHORIZED_CODE_GRANT,
} from "./fixtures";
import { call, startTestServer, type TestServer } from "./harness";
import {
  fetchJson,
  holderKey,
  nonce,
  proof,
  redeemOffer,
  requestCredential,
  resolveOffer,
  token,
} from "./wallet-client";

/** OpenID4VCI flow: the token endpoint (pre-authorized code, tx_code, grant types, OAuth error shapes). */

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

describe("OpenID4VCI flow", () => {
  it("accepts the tx_code, limits wrong attempts and then invalidates the code", async () => {
    const tx = await create({ delivery: { txCode: { inputMode: "numeric", length: 6 } } });
    const offer = await resolveOffer(tx.credentialOffer);
    const code = offer.grants[PRE_AUTH]["pre-authorized_code"];
    const tokenEndpoint = `${issuer.credentialIssuer}/token`;
    const missing = await token(tokenEndpoint, { grant_type: PRE_AUTH, "pre-authorized_code": code });
    expect(missing.body.error).toBe("invalid_request");
    const wrong = tx.txCode === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) {
      const r = await token(tokenEndpoint, {
        grant_type: PRE_AUTH,
        "pre-authorized_code": code,
        tx_code: wrong,
      });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("invalid_grant");
    }
    const late = await token(tokenEndpoint, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": code,
      tx_code: tx.txCode,
    });
    expect(late.body.error).toBe("invalid_grant");

    const ok = await create({ delivery: { txCode: { inputMode: "text", length: 8 } } });
    expect(ok.txCode).toMatch(/^[A-Z2-9]{8}$/);
    const flow = await redeemOffer(ok.credentialOffer, { txCode: ok.txCode });
    expect(flow.credentialRes.status).toBe(200);
  });

  it("keeps the tx_code as a keyed hash, not one a database reader can search the code space with", async () => {
    const tx = await create({ delivery: { txCode: { inputMode: "numeric", length: 6 } } });
    const row = await t.server.database.prisma.issuanceTransaction.findUniqueOrThrow({
      where: { id: tx.id },
    });
    const stored = row.txCodeHash as string;
    const sha256 = (s: string) => createHash("sha256").update(s).digest("base64url");
    expect(stored).toMatch(/^k1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]{43}$/);
    for (const unkeyed of [sha256(`${tx.id}:${tx.txCode}`), sha256(tx.txCode)])
      expect(stored).not.toContain(unkeyed);
    const flow = await redeemOffer(tx.credentialOffer, { txCode: tx.txCode });
    expect(flow.credentialRes.status, JSON.stringify(flow.credentialRes.body)).toBe(200);
  });

  it("still takes the tx_code of a transaction created before keyed hashes (an unkeyed SHA-256)", async () => {
    const tx = await create({ delivery: { txCode: { inputMode: "numeric", length: 6 } } });
    const legacy = createHash("sha256").update(`${tx.id}:${tx.txCode}`).digest("base64url");
    await t.server.database.prisma.issuanceTransaction.update({
      where: { id: tx.id },
      data: { txCodeHash: legacy },
    });
    const code = (await resolveOffer(tx.credentialOffer)).grants[PRE_AUTH]["pre-authorized_code"];
    const tokenEndpoint = `${issuer.credentialIssuer}/token`;
    const wrong = await token(tokenEndpoint, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": code,
      tx_code: tx.txCode === "000000" ? "111111" : "000000",
    });
    expect([wrong.status, wrong.body.error]).toEqual([400, "invalid_grant"]);
    const right = await token(tokenEndpoint, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": code,
      tx_code: tx.txCode,
    });
    expect(right.status, JSON.stringify(right.body)).toBe(200);
  });

  it("a code redeemed just before the offer expires keeps the transaction open for the token's lifetime", async () => {
    const tx = await create({ delivery: { expiresInSeconds: 60 } });
    const offer = await resolveOffer(tx.credentialOffer);
    const redeemedAt = Date.now();
    const tok = await token(`${issuer.credentialIssuer}/token`, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    expect(tok.status).toBe(200);
    // The offer had 60 s left; the token announces 300 s, and the transaction now lasts that long.
    const read = await call(t, "GET", `${PATH}/${tx.id}`, { key: t.adminKey });
    expect(Date.parse(read.body.data.expiresAt)).toBeGreaterThanOrEqual(
      redeemedAt + tok.body.expires_in * 1000 - 1000,
    );
    const key = await holderKey();
    const cNonce = await nonce(`${issuer.credentialIssuer}/nonce`);
    const res = await requestCredential(`${issuer.credentialIssuer}/credential`, tok.body.access_token, {
      credential_configuration_id: offer.credential_configuration_ids[0],
      proofs: { jwt: [await proof(key, issuer.credentialIssuer, cNonce)] },
    });
    expect(res.status).toBe(200);
  });

  it("counts wrong tx_codes sent at once: the limit holds under concurrency", async () => {
    const tx = await create({ delivery: { txCode: { inputMode: "numeric", length: 6 } } });
    const offer = await resolveOffer(tx.credentialOffer);
    const code = offer.grants[PRE_AUTH]["pre-authorized_code"];
    const tokenEndpoint = `${issuer.credentialIssuer}/token`;
    const wrong = (i: number) => String((Number(tx.txCode) + 1 + i) % 1_000_000).padStart(6, "0");
    // Over HTTP the guesses interleave as the connections deliver them; in-process, every guess reads the
    // transaction before any of them records its failure, the interleaving a race needs.
    const { exchangeToken } = await import("@cred/core/wallet");
    const fast = t.server.deps.database.root.sql;
    await Promise.all(Array.from({ length: 20 }, () => fast.query("SELECT 1", []))); // 20 open connections
    const guesses = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        exchangeToken(
          t.server.deps,
          t.server.deps.database.root,
          { id: issuer.issuerId, tenantId: t.tenantId, environment: "sandbox", walletAttestation: null },
          {
            grant_type: PRE_AUTH,
            "pre-authorized_code": code,
            tx_code: wrong(i),
          },
        ),
      ),
    );
    expect(guesses.map((r) => r.status === "rejected" && (r.reason as { error?: string }).error)).toEqual(
      Array(20).fill("invalid_grant"),
    );
    // Twenty wrong guesses are more than the five allowed, however they interleaved: the code is gone.
    const right = await token(tokenEndpoint, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": code,
      tx_code: tx.txCode,
    });
    expect(right.body.error).toBe("invalid_grant");
    const row = await t.server.database.prisma.issuanceTransaction.findUniqueOrThrow({
      where: { id: tx.id },
    });
    expect(row.preAuthorizedCodeHash).toBeNull();
    expect(row.codeRedeemedAt).toBeNull();
  });

  it("answers bodies that fail before the handler in the endpoint's OAuth error shape, not the REST envelope", async () => {
    const post = (path: string, contentType: string, body: string) =>
      fetchJson(`${issuer.credentialIssuer}/${path}`, {
        method: "POST",
        headers: { "content-type": contentType, authorization: "Bearer x" },
        body,
      });
    const cases = [
      ["credential", "application/json", "{not json", "invalid_credential_request"],
      ["credential", "application/xml", "<a/>", "invalid_credential_request"],
      ["credential", "application/json", "x".repeat(1024 * 1024 + 1), "invalid_credential_request"],
      ["notification", "application/json", "{", "invalid_notification_request"],
      ["token", "application/json", "{", "invalid_request"],
      ["nonce", "application/xml", "<a/>", "invalid_request"],
    ] as const;
    for (const [path, contentType, body, error] of cases) {
      const r = await post(path, contentType, body);
      expect([path, contentType, r.status, r.body]).toEqual([
        path,
        contentType,
        400,
        { error, error_description: expect.any(String) },
      ]);
      expect(r.headers.get("cache-control")).toBe("no-store");
    }
  });

  it("refuses a tx_code that was not asked for, a reused code, and bad grant types", async () => {
    const tx = await create();
    const offer = await resolveOffer(tx.credentialOffer);
    const code = offer.grants[PRE_AUTH]["pre-authorized_code"];
    const tokenEndpoint = `${issuer.credentialIssuer}/token`;
    expect(
      (await token(tokenEndpoint, { grant_type: PRE_AUTH, "pre-authorized_code": code, tx_code: "1234" }))
        .body.error,
    ).toBe("invalid_request");
    expect((await token(tokenEndpoint, { grant_type: "client_credentials" })).body.error).toBe(
      "unsupported_grant_type",
    );
    expect((await token(tokenEndpoint, { grant_type: PRE_AUTH, "pre-authorized_code": code })).status).toBe(
      200,
    );
    const reused = await token(tokenEndpoint, { grant_type: PRE_AUTH, "pre-authorized_code": code });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
    const json = await fetchJson(tokenEndpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(json.body.error).toBe("invalid_request");
  });
});
