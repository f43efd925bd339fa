import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { bootstrap, createApiKey, resealSecrets, SCOPES } from "@cred/core";
import { presentWithTestWallet } from "@cred/oid4vc";
import { afterAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "../src/server";
import { activeIssuer, policyTrusting, VALID_CLAIMS } from "./fixtures";
import { call, freshPostgresDatabase } from "./harness";
import {
  fetchJson,
  holderKey,
  nonce,
  proof,
  requestCredential,
  resolveOffer,
  token,
  wellKnown,
} from "./wallet-client";

const PRE_AUTH = "urn:ietf:params:oauth:grant-type:pre-authorized_code";
const oldKey = randomBytes(32);
const newKey = randomBytes(32);

const adminUrl = process.env.TEST_POSTGRES_URL;
const pgdb = adminUrl ? await freshPostgresDatabase(adminUrl) : undefined;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "master-key-"));
let port = 0;

/** The service on the same database each time, as a restart with other keys would find it. */
async function start(masterKey: Buffer, previousMasterKeys: Buffer[] = []) {
  const server = await createServer({
    databaseUrl: pgdb?.url,
    dataDir,
    masterKey,
    previousMasterKeys,
    publicBaseUrl: "http://127.0.0.1",
    developmentMode: true,
    logLevel: process.env.TEST_LOG_LEVEL ?? "silent",
    rateLimit: { points: 100_000, durationSeconds: 1 },
    webhookAllowedHosts: ["127.0.0.1"],
  });
  await server.app.listen({ host: "127.0.0.1", port });
  port = (server.app.server.address() as { port: number }).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  server.deps.config.publicBaseUrl = baseUrl;
  return { server, baseUrl };
}

/** A fresh all-scope key of the bootstrap tenant. */
async function newApiKey(server: Server) {
  const tenant = await server.database.prisma.tenant.findFirstOrThrow({ orderBy: { id: "asc" } });
  return (
    await createApiKey(
      server.database.root,
      { tenantId: tenant.id, environment: "sandbox" },
      { name: "t", scopes: [...SCOPES] },
    )
  ).key;
}

afterAll(async () => {
  await pgdb?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Every column the test fills, by `Table.column`, with how many of its values `resealSecrets` found where. */
async function counts(server: Server, dryRun: boolean) {
  const report = await resealSecrets(server.database.root, server.deps.secretBox, { dryRun });
  return Object.fromEntries(
    report.columns.map((c) => [`${c.table}.${c.column}`, [c.current, c.resealed, c.unreadable]]),
  );
}

/** The tx_code hashes of open offers, by the key that made them (what `check` reports). */
async function txCodeHashes(server: Server) {
  const report = await resealSecrets(server.database.root, server.deps.secretBox, { dryRun: true });
  return report.keyedHashes.find((c) => c.table === "IssuanceTransaction" && c.column === "txCodeHash");
}

describe("rotating the master key", () => {
  it("keeps every sealed value readable: old key as previous, reseal, then the new key alone", async () => {
    // Under the old key: an issuer, offers (one replayable by Idempotency-Key), a token and a c_nonce
    // mid-flow, a webhook secret with a replaced one in its overlap, the verifier key, and a session
    // with its encryption key and result.
    const first = await start(oldKey);
    const boot = await bootstrap(first.server.database.root);
    const key = boot?.apiKey as string;
    const t = { baseUrl: first.baseUrl };
    const issuer = await activeIssuer(t, key);
    const encrypting = await call(t, "PATCH", `/management/issuers/${issuer.issuerId}`, {
      key,
      body: { credentialEncryption: { required: false } },
    });
    expect(encrypting.status).toBe(200);
    const encryptionRotated = await call(
      t,
      "POST",
      `/management/issuers/${issuer.issuerId}/rotate-credential-encryption-key`,
      { key, body: { overlapSeconds: 86_400 } },
    );
    expect(encryptionRotated.status).toBe(200);
    const offerBody = {
      credentialConfiguration: issuer.configuration,
      issuerId: issuer.issuerId,
      claims: VALID_CLAIMS,
    };
    const headers = { "idempotency-key": "rotation-1" };
    const created = await call(t, "POST", "/v1.0/issuance-transactions", { key, body: offerBody, headers });
    expect(created.status).toBe(201);

    const offer = await resolveOffer(created.body.data.credentialOffer);
    const metadata = (await fetchJson(wellKnown("openid-credential-issuer", issuer.credentialIssuer))).body;
    const as = (await fetchJson(wellKnown("oauth-authorization-server", issuer.credentialIssuer))).body;
    const tokenRes = await token(as.token_endpoint, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    expect(tokenRes.status).toBe(200);
    const oldNonce = await nonce(metadata.nonce_endpoint);

    const webhook = await call(t, "POST", "/management/webhooks", {
      key,
      body: { url: "http://127.0.0.1:9/hook", events: ["*"] },
    });
    expect(webhook.status).toBe(201);
    const rotated = await call(t, "POST", `/management/webhooks/${webhook.body.data.id}/rotate-secret`, {
      key,
      body: { overlapSeconds: 3600 },
    });
    expect(rotated.status).toBe(200);

    // A credential of our own, presented once so that a verified result is sealed too.
    const holder = await holderKey();
    const second = await call(t, "POST", "/v1.0/issuance-transactions", { key, body: offerBody });
    const secondOffer = await resolveOffer(second.body.data.credentialOffer);
    const secondToken = await token(as.token_endpoint, {
      grant_type: PRE_AUTH,
      "pre-authorized_code": secondOffer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    const issued = await requestCredential(metadata.credential_endpoint, secondToken.body.access_token, {
      credential_configuration_id: issuer.configuration,
      proofs: { jwt: [await proof(holder, issuer.credentialIssuer, await nonce(metadata.nonce_endpoint))] },
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    await policyTrusting(t, key, "rotation", issuer);
    const session = await call(t, "POST", "/v1.0/verifications", { key, body: { policy: "rotation" } });
    const presented = await presentWithTestWallet({
      authorizationRequestUri: session.body.data.authorizationRequestUri,
      fetch: (input, init) => fetch(input, init),
      holderPrivateKey: holder.privateJwk,
      credential: issued.body.credentials[0].credential,
    });
    expect(presented.status).toBe(200);
    const pending = await call(t, "POST", "/v1.0/verifications", { key, body: { policy: "rotation" } });
    const unclaimed = await call(t, "POST", "/v1.0/issuance-transactions", { key, body: offerBody });
    // Two offers with a tx_code, kept as keyed hashes under the old key: one redeemed while the old key
    // is a previous one, one not redeemed before the old key is gone.
    const withTxCode = { ...offerBody, delivery: { txCode: { inputMode: "numeric", length: 6 } } };
    const txCodeOffers = await Promise.all(
      [1, 2].map(async () => {
        const r = await call(t, "POST", "/v1.0/issuance-transactions", { key, body: withTxCode });
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        const grant = (await resolveOffer(r.body.data.credentialOffer)).grants[PRE_AUTH];
        return { code: grant["pre-authorized_code"] as string, txCode: r.body.data.txCode as string };
      }),
    );
    const [redeemedDuring, leftOpen] = txCodeOffers as [(typeof txCodeOffers)[0], (typeof txCodeOffers)[0]];
    const redeemWithTxCode = (offer: { code: string; txCode: string }) =>
      token(as.token_endpoint, {
        grant_type: PRE_AUTH,
        "pre-authorized_code": offer.code,
        tx_code: offer.txCode,
      });
    await first.server.close();

    // The new key alone does not open them: the service refuses to start.
    await expect(start(newKey)).rejects.toThrow(/PREVIOUS_MASTER_KEYS/);

    // New key, old key as previous: everything still works, including the c_nonce minted before.
    const during = await start(newKey, [oldKey]);
    const replay = await call(t, "POST", "/v1.0/issuance-transactions", { key, body: offerBody, headers });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(created.body);
    const credential = await requestCredential(metadata.credential_endpoint, tokenRes.body.access_token, {
      credential_configuration_id: issuer.configuration,
      proofs: { jwt: [await proof(await holderKey(), issuer.credentialIssuer, oldNonce)] },
    });
    expect(credential.status, JSON.stringify(credential.body)).toBe(200);
    expect((await fetch(pending.body.data.requestUri)).status).toBe(200);
    expect((await resolveOffer(unclaimed.body.data.credentialOffer)).grants[PRE_AUTH]).toBeDefined();
    // A tx_code hashed under the old key verifies while it is a previous key.
    const keyedBefore = await txCodeHashes(during.server);
    expect(keyedBefore).toMatchObject({ current: 0, previous: 2, unkeyed: 0, unknownKey: 0 });
    const redeemed = await redeemWithTxCode(redeemedDuring);
    expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
    const keyedLeft = await txCodeHashes(during.server);
    expect(keyedLeft).toMatchObject({ current: 0, previous: 1 });
    expect(Date.parse(keyedLeft?.previousUsableUntil as string)).toBeGreaterThan(Date.now());

    const before = await counts(during.server, true);
    for (const column of [
      "IssuerKey.privateKeyCipher",
      "IssuanceTransaction.offerCipher",
      "VerifierCertificate.privateKeyCipher",
      "VerificationSession.encryptionKeyCipher",
      "VerificationSession.resultCipher",
      "WebhookSubscription.secretCipher",
      "WebhookSubscription.previousSecrets",
      "IdempotencyRecord.responseBody",
    ]) {
      expect(before[column]?.[1], column).toBeGreaterThan(0);
    }
    expect(Object.values(before).every(([, , unreadable]) => unreadable === 0)).toBe(true);
    const resealed = await counts(during.server, false);
    expect(resealed).toEqual(before);
    const after = await counts(during.server, true);
    expect(Object.values(after).every(([, again, unreadable]) => again === 0 && unreadable === 0)).toBe(true);
    // A keyed hash cannot be made again without its code: the reseal leaves it, and it is still counted.
    expect(await txCodeHashes(during.server)).toEqual(keyedLeft);
    await during.server.close();

    // The new key alone now opens everything.
    const done = await start(newKey);
    try {
      const again = await call(t, "POST", "/v1.0/issuance-transactions", { key, body: offerBody, headers });
      expect(again.body).toEqual(created.body);
      const read = await call(t, "GET", `/v1.0/verification-sessions/${session.body.data.id}`, { key });
      expect(read.body.data.status).toBe("verified");
      expect(read.body.data.result.credentials[0].claims.given_name).toBe("Erika");
      // (Its request object would come from this process's cache of the sessions it created: read the row.)
      const stillPending = await done.server.database.prisma.verificationSession.findUniqueOrThrow({
        where: { id: pending.body.data.id },
      });
      const encryptionKey = done.server.deps.secretBox.open(
        stillPending.encryptionKeyCipher as string,
        `verification-encryption-key:${stillPending.id}`,
      );
      expect(JSON.parse(encryptionKey).d).toBeDefined();
      const requestKeyRow = await done.server.database.prisma.issuerKey.findFirstOrThrow({
        where: { issuerId: issuer.issuerId, purpose: "credential_request_encryption", state: "current" },
      });
      const requestKey = done.server.deps.secretBox.open(
        requestKeyRow.privateKeyCipher as string,
        `${issuer.issuerId}/credential-encryption`,
      );
      expect(JSON.parse(requestKey).d).toBeDefined();
      const offer = await resolveOffer(unclaimed.body.data.credentialOffer);
      const claimed = await token(as.token_endpoint, {
        grant_type: PRE_AUTH,
        "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
      });
      expect(claimed.status).toBe(200);
      // The tx_code hashed under the removed key no longer verifies (docs/operations.md: keep the key
      // until check reports no such offer open); one hashed now does.
      const stale = await redeemWithTxCode(leftOpen);
      expect([stale.status, stale.body.error]).toEqual([400, "invalid_grant"]);
      expect(await txCodeHashes(done.server)).toMatchObject({ previous: 0, unknownKey: 1 });
      const fresh = await call(t, "POST", "/v1.0/issuance-transactions", { key, body: withTxCode });
      const freshGrant = (await resolveOffer(fresh.body.data.credentialOffer)).grants[PRE_AUTH];
      const redeemedNow = await redeemWithTxCode({
        code: freshGrant["pre-authorized_code"],
        txCode: fresh.body.data.txCode,
      });
      expect(redeemedNow.status, JSON.stringify(redeemedNow.body)).toBe(200);
      const sub = await call(t, "GET", `/management/webhooks/${webhook.body.data.id}`, { key });
      expect(sub.status).toBe(200);
      const stored = await done.server.database.prisma.webhookSubscription.findUniqueOrThrow({
        where: { id: webhook.body.data.id },
      });
      const previous = stored.previousSecrets as { cipher: string }[];
      expect(done.server.deps.secretBox.open(previous[0]?.cipher as string, stored.id)).toBe(
        webhook.body.data.secret,
      );
    } finally {
      await done.server.close();
    }
  }, 120_000);

  it("leaves a value the service rewrote between the reseal's read and write to the service, and counts it", async () => {
    const thirdKey = randomBytes(32);
    const before = await start(newKey);
    const key = await newApiKey(before.server);
    const webhook = await call({ baseUrl: before.baseUrl }, "POST", "/management/webhooks", {
      key,
      body: { url: "http://127.0.0.1:9/other", events: ["*"] },
    });
    expect(webhook.status).toBe(201);
    await before.server.close();

    const during = await start(thirdKey, [newKey]);
    try {
      const prisma = during.server.database.prisma;
      const rewritten = during.server.deps.secretBox.seal("whsec_rewritten", webhook.body.data.id);
      // The service rotates the secret (under the current key) just before the reseal writes it back.
      const racing = new Proxy(prisma, {
        get(target, property) {
          if (property !== "$executeRawUnsafe") return Reflect.get(target, property, target);
          return async (sql: string, ...params: unknown[]) => {
            if (sql.includes('"secretCipher"') && params[1] === webhook.body.data.id) {
              await target.webhookSubscription.update({
                where: { id: webhook.body.data.id },
                data: { secretCipher: rewritten },
              });
            }
            return target.$executeRawUnsafe(sql, ...params);
          };
        },
      });
      const report = await resealSecrets(
        { ...during.server.database.root, prisma: racing },
        during.server.deps.secretBox,
      );
      const secrets = report.columns.find(
        (c) => c.table === "WebhookSubscription" && c.column === "secretCipher",
      );
      expect(secrets?.changedMeanwhile).toBe(1);
      const row = await prisma.webhookSubscription.findUniqueOrThrow({ where: { id: webhook.body.data.id } });
      expect(row.secretCipher).toBe(rewritten);
      const again = await counts(during.server, true);
      expect(
        Object.values(again).every(([, resealable, unreadable]) => resealable === 0 && unreadable === 0),
      ).toBe(true);
    } finally {
      await during.server.close();
    }
  });
});
