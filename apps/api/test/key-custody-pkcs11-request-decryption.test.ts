// Credential request encryption keys in a PKCS#11 token (docs/key-custody.md): the issuer's ECDH-ES key is
// generated in a SoftHSM2 token of this file's own, and encrypted credential requests are decrypted with
// the token's CKM_ECDH1_DERIVE (only the shared secret leaves it). The wallet encrypts with jose.

import { sweepExpired } from "@cred/core";
import {
  compactDecrypt,
  compactVerify,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
} from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePkcs11Uri } from "../src/key-custody/pkcs11-uri";
import {
  encryptTo,
  accessToken as fixtureAccessToken,
  sendEncrypted as fixtureSendEncrypted,
  postCredentialRequest,
  publishedEncryptionKey,
  requestBody,
} from "./fixtures/encrypted-credential-request";
import { issuerInCustody } from "./fixtures/key-custody";
import { freshSoftHsmToken, type SoftHsmToken, softHsmMissing, viewTokenKey } from "./fixtures/softhsm";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { fetchJson, walletEndpoints, wellKnown } from "./wallet-client";

const ISSUERS = "/management/issuers";

let t: TestServer;
let hsm: SoftHsmToken;

beforeAll(async () => {
  if (softHsmMissing) return;
  hsm = freshSoftHsmToken("cred-decrypt");
  t = await startTestServer({ pkcs11: hsm.settings });
});
afterAll(async () => {
  await t?.close();
  hsm?.remove();
});

/** An active issuer created in `custody`, with `extra` settings (credentialEncryption, …). */
async function issuerIn(custody: "pkcs11" | "software", extra: Record<string, unknown> = {}) {
  const { active } = await issuerInCustody(t, custody, extra);
  return { active, endpoints: await walletEndpoints(active.credentialIssuer) };
}

type Issuer = Awaited<ReturnType<typeof issuerIn>>;

const encryptionKeyRows = (issuerId: string) =>
  t.server.database.root.prisma.issuerKey.findMany({
    where: { issuerId, purpose: "credential_request_encryption" },
    orderBy: { createdAt: "asc" },
  });

const tokenKey = (providerKeyRef: string) => viewTokenKey(hsm.settings, parsePkcs11Uri(providerKeyRef)!.id);

const patch = (issuerId: string, body: Record<string, unknown>) =>
  call(t, "PATCH", `${ISSUERS}/${issuerId}`, { key: t.adminKey, body });

const accessToken = (issuer: Issuer) => fixtureAccessToken(t, issuer);
const post = postCredentialRequest;
const sendEncrypted = (issuer: Issuer, to?: JWK) => fixtureSendEncrypted(t, issuer, to);

const transactionStatus = async (id: string) =>
  (await call(t, "GET", `/v1.0/issuance-transactions/${id}`, { key: t.adminKey })).body.data.status;

describe.skipIf(softHsmMissing !== null)(
  `credential request decryption with a key in a PKCS#11 token (SoftHSM2)${softHsmMissing ? ` [${softHsmMissing}]` : ""}`,
  () => {
    it("makes the request encryption key in the token (derive only, sensitive, not extractable) and decrypts a wallet's encrypted request there", async () => {
      const issuer = await issuerIn("pkcs11", { credentialEncryption: { required: true } });
      const [row] = await encryptionKeyRows(issuer.active.issuerId);
      expect(row).toMatchObject({ provider: "pkcs11", privateKeyCipher: null, state: "current" });
      expect(row!.providerKeyRef).toMatch(/^pkcs11:token=cred-decrypt;id=/);
      expect(tokenKey(row!.providerKeyRef!).privateKeys).toEqual([
        { sign: false, derive: true, sensitive: true, extractable: false },
      ]);
      const published = await publishedEncryptionKey(issuer.active);
      expect(published).toMatchObject({ kid: row!.kid, kty: "EC", crv: "P-256", alg: "ECDH-ES" });
      expect(published.d).toBeUndefined();

      // The wallet encrypts its request and asks for an encrypted response.
      for (const enc of ["A128GCM", "A256GCM"]) {
        const { accessToken: at, transactionId } = await accessToken(issuer);
        const { publicKey, privateKey } = await generateKeyPair("ECDH-ES", { crv: "P-256" });
        const walletJwk = { ...(await exportJWK(publicKey)), alg: "ECDH-ES", kid: "wallet-key" };
        const body = await requestBody(issuer, {
          credential_response_encryption: { jwk: walletJwk, enc },
        });
        const res = await post(issuer, at, await encryptTo(published, body, enc), "application/jwt");
        expect(res.status, res.text).toBe(200);
        const { plaintext } = await compactDecrypt(res.text, privateKey);
        const credential = JSON.parse(new TextDecoder().decode(plaintext)).credentials[0]
          .credential as string;
        // Signed in the token too, verifiable with the published JWKS.
        const jws = credential.split("~")[0]!;
        const jwks = (await fetchJson(wellKnown("jwt-vc-issuer", issuer.active.credentialIssuer))).body.jwks;
        const signer = jwks.keys.find((k: JWK) => k.kid === decodeProtectedHeader(jws).kid);
        await compactVerify(jws, await importJWK(signer, "ES256"));
        expect(await transactionStatus(transactionId)).toBe("completed");
      }
    });

    it("refuses a request encrypted to another key, or not decryptable, as invalid_credential_request; issues nothing", async () => {
      const issuer = await issuerIn("pkcs11", { credentialEncryption: { required: false } });
      const published = await publishedEncryptionKey(issuer.active);
      const { publicKey } = await generateKeyPair("ECDH-ES", { crv: "P-256" });
      const other = { ...(await exportJWK(publicKey)), kid: published.kid };
      const wrong = await sendEncrypted(issuer, other);
      expect(wrong.status).toBe(400);
      expect(JSON.parse(wrong.text).error).toBe("invalid_credential_request");
      expect(await transactionStatus(wrong.transactionId)).toBe("pending");
      // An ephemeral key off the curve never reaches the token.
      const { accessToken: at } = await accessToken(issuer);
      const good = await encryptTo(published, await requestBody(issuer));
      const [header, ...rest] = good.split(".");
      const parsed = JSON.parse(Buffer.from(header!, "base64url").toString());
      parsed.epk.y = parsed.epk.x;
      const offCurve = [Buffer.from(JSON.stringify(parsed)).toString("base64url"), ...rest].join(".");
      const refused = await post(issuer, at, offCurve, "application/jwt");
      expect(refused.status).toBe(400);
      expect(JSON.parse(refused.text).error).toBe("invalid_credential_request");
    });

    it("moves a software issuer's request encryption key into the token by rotation; the replaced key decrypts during the overlap; a replaced token key is destroyed", async () => {
      const issuer = await issuerIn("software", { credentialEncryption: { required: false } });
      const id = issuer.active.issuerId;
      const softwareKey = await publishedEncryptionKey(issuer.active);
      expect((await encryptionKeyRows(id))[0]).toMatchObject({ provider: "software", providerKeyRef: null });

      const moved = await patch(id, { keyCustody: { provider: "pkcs11" } });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      const rotated = await call(t, "POST", `${ISSUERS}/${id}/rotate-credential-encryption-key`, {
        key: t.adminKey,
        body: { overlapSeconds: 3600 },
      });
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      const rows = await encryptionKeyRows(id);
      const inToken = rows.find((r) => r.state === "current")!;
      expect(inToken).toMatchObject({ provider: "pkcs11", privateKeyCipher: null });
      expect(rotated.body.data.credentialEncryption.publicJwk.kid).toBe(inToken.kid);
      expect((await publishedEncryptionKey(issuer.active)).kid).toBe(inToken.kid);

      // Both decrypt: the token's key now, the replaced software key during its overlap.
      expect((await sendEncrypted(issuer)).status).toBe(200);
      expect((await sendEncrypted(issuer, softwareKey)).status).toBe(200);

      // Replaced without overlap, the token's key is destroyed there once the rotation commits.
      const again = await call(t, "POST", `${ISSUERS}/${id}/rotate-credential-encryption-key`, {
        key: t.adminKey,
        body: { overlapSeconds: 0 },
      });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      await expect.poll(() => tokenKey(inToken.providerKeyRef!).objects).toBe(0);
      expect((await sendEncrypted(issuer)).status).toBe(200);

      // Turned off, the last key goes from the token as well.
      const newest = (await encryptionKeyRows(id)).find((r) => r.state === "current")!;
      expect(tokenKey(newest.providerKeyRef!).objects).toBe(2);
      expect((await patch(id, { credentialEncryption: null })).status).toBe(200);
      await expect.poll(() => tokenKey(newest.providerKeyRef!).objects).toBe(0);
      expect(await encryptionKeyRows(id)).toEqual([]);
    });

    it("the sweeper destroys a replaced token key in the token once its overlap has ended", async () => {
      const issuer = await issuerIn("pkcs11", { credentialEncryption: { required: false } });
      const id = issuer.active.issuerId;
      const [first] = await encryptionKeyRows(id);
      const rotated = await call(t, "POST", `${ISSUERS}/${id}/rotate-credential-encryption-key`, {
        key: t.adminKey,
        body: { overlapSeconds: 60 },
      });
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      const inOverlap = await sweepExpired(t.server.deps, { now: new Date(Date.now() + 30_000) });
      expect(inOverlap.credentialEncryptionKeysRetired).toBe(0);
      expect(tokenKey(first!.providerKeyRef!).objects).toBe(2);
      const after = await sweepExpired(t.server.deps, { now: new Date(Date.now() + 120_000) });
      expect(after.credentialEncryptionKeysRetired).toBeGreaterThanOrEqual(1);
      await expect.poll(() => tokenKey(first!.providerKeyRef!).objects).toBe(0);
      expect((await encryptionKeyRows(id)).map((r) => r.state)).toEqual(["current"]);
    });

    it("while the token is unreachable: an encrypted request gets server_error 503 (the transaction stays redeemable), turning encryption on gets 503 KeyCustodyUnavailable and writes nothing; both recover", async () => {
      // The signing key stays software: only the request decryption needs the token.
      const issuer = await issuerIn("software");
      const id = issuer.active.issuerId;
      expect((await patch(id, { keyCustody: { provider: "pkcs11" } })).status).toBe(200);
      const second = await issuerIn("pkcs11");
      const on = await patch(id, { credentialEncryption: { required: false } });
      expect(on.status, JSON.stringify(on.body)).toBe(200);
      expect((await encryptionKeyRows(id))[0]).toMatchObject({ provider: "pkcs11" });
      const published = await publishedEncryptionKey(issuer.active);
      const { accessToken: at, transactionId } = await accessToken(issuer);
      const jwe = await encryptTo(published, await requestBody(issuer));

      hsm.takeAway();
      try {
        const refused = await post(issuer, at, jwe, "application/jwt");
        expect(refused.status, refused.text).toBe(503);
        expect(JSON.parse(refused.text).error).toBe("server_error");
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(refused.headers.get("cache-control")).toBe("no-store");
        expect(await transactionStatus(transactionId)).toBe("pending");
        // A plain request needs no token here (the signing key is software).
        const plain = await post(
          issuer,
          (await accessToken(issuer)).accessToken,
          JSON.stringify(await requestBody(issuer)),
          "application/json",
        );
        expect(plain.status, plain.text).toBe(200);

        const turnOn = await patch(second.active.issuerId, { credentialEncryption: { required: true } });
        expect(turnOn.status, JSON.stringify(turnOn.body)).toBe(503);
        expect(errorCode(turnOn)).toBe("KeyCustodyUnavailable");
        expect(Number(turnOn.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(await encryptionKeyRows(second.active.issuerId)).toEqual([]);
        const unchanged = await call(t, "GET", `${ISSUERS}/${second.active.issuerId}`, { key: t.adminKey });
        expect(unchanged.body.data.credentialEncryption).toBeNull();
      } finally {
        hsm.bringBack();
      }

      // The same encrypted request, once the token is back (after the reconnect pause), is answered.
      await expect
        .poll(async () => (await post(issuer, at, jwe, "application/jwt")).status, {
          timeout: 10_000,
          interval: 500,
        })
        .toBe(200);
      expect(await transactionStatus(transactionId)).toBe("completed");
      const retried = await patch(second.active.issuerId, { credentialEncryption: { required: true } });
      expect(retried.status, JSON.stringify(retried.body)).toBe(200);
      expect((await encryptionKeyRows(second.active.issuerId))[0]).toMatchObject({ provider: "pkcs11" });
    });
  },
);
