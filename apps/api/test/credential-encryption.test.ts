// Encrypted credential requests and responses (OpenID4VCI 1.0 §10): the issuer's setting, its metadata,
// and the credential endpoint with a wallet that encrypts with jose, an implementation apart from ours.

import { Caches, sweepExpired } from "@cred/core";
import { applyCredentialEncryptionSettings } from "@cred/core/testing";
import { CompactEncrypt, compactDecrypt, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, createTransaction } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import {
  fetchJson,
  holderKey,
  nonce,
  proof,
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

const setEncryption = (value: { required: boolean } | null) =>
  call(t, "PATCH", `/management/issuers/${issuer.issuerId}`, {
    key: t.adminKey,
    body: { credentialEncryption: value },
  });

const issuerMetadata = async () =>
  (await fetchJson(wellKnown("openid-credential-issuer", issuer.credentialIssuer))).body;

/** A redeemed offer: its transaction and an access token. */
async function accessToken() {
  const created = await createTransaction(t, t.adminKey, issuer);
  const offer = await resolveOffer(created.credentialOffer);
  const grant = offer.grants["urn:ietf:params:oauth:grant-type:pre-authorized_code"];
  const res = await token(endpoints.token, {
    grant_type: "urn:ietf:params:oauth:grant-type:pre-authorized_code",
    "pre-authorized_code": grant["pre-authorized_code"],
  });
  expect(res.status).toBe(200);
  return { transactionId: created.id, accessToken: res.body.access_token as string };
}

async function requestBody(extra: Record<string, unknown> = {}) {
  const jwt = await proof(await holderKey(), issuer.credentialIssuer, await nonce(endpoints.nonce));
  return { credential_configuration_id: issuer.configuration, proofs: { jwt: [jwt] }, ...extra };
}

async function walletKey() {
  const { publicKey, privateKey } = await generateKeyPair("ECDH-ES", { crv: "P-256" });
  return { jwk: { ...(await exportJWK(publicKey)), alg: "ECDH-ES", kid: "wallet-key" }, privateKey };
}

async function encryptTo(issuerJwk: JWK, claims: unknown, enc = "A128GCM") {
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: "ECDH-ES", enc, kid: issuerJwk.kid })
    .encrypt(await importJWK(issuerJwk, "ECDH-ES"));
}

async function post(accessToken: string, body: string, contentType: string) {
  const res = await fetch(endpoints.credential, {
    method: "POST",
    headers: { "content-type": contentType, authorization: `Bearer ${accessToken}` },
    body,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const transactionStatus = async (id: string) =>
  (await call(t, "GET", `/v1.0/issuance-transactions/${id}`, { key: t.adminKey })).body.data.status;

describe("credential request and response encryption", () => {
  it("is not offered by default: no metadata, and an application/jwt request is refused", async () => {
    const metadata = await issuerMetadata();
    expect(metadata.credential_request_encryption).toBeUndefined();
    expect(metadata.credential_response_encryption).toBeUndefined();
    const { accessToken: at, transactionId } = await accessToken();
    const res = await post(at, "a.b.c.d.e", "application/jwt");
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toBe("invalid_encryption_parameters");
    const plain = await post(
      at,
      JSON.stringify(await requestBody({ credential_response_encryption: { jwk: {}, enc: "A128GCM" } })),
      "application/json",
    );
    expect(JSON.parse(plain.text).error).toBe("invalid_encryption_parameters");
    expect(await transactionStatus(transactionId)).toBe("pending");
  });

  it("turns on with a published ECDH-ES key, whose private half never shows", async () => {
    const res = await setEncryption({ required: false });
    expect(res.status).toBe(200);
    const setting = res.body.data.credentialEncryption;
    expect(setting).toMatchObject({
      required: false,
      publicJwk: { kty: "EC", crv: "P-256", alg: "ECDH-ES" },
    });
    expect(typeof setting.publicJwk.kid).toBe("string");
    expect(setting.publicJwk.d).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain('"d"');
    const metadata = await issuerMetadata();
    expect(metadata.credential_request_encryption).toEqual({
      jwks: { keys: [setting.publicJwk] },
      enc_values_supported: ["A128GCM", "A256GCM"],
      encryption_required: false,
    });
    expect(metadata.credential_response_encryption).toEqual({
      alg_values_supported: ["ECDH-ES"],
      enc_values_supported: ["A128GCM", "A256GCM"],
      encryption_required: false,
    });
    // Changing `required` keeps the key; the GET shows the same.
    const required = await setEncryption({ required: true });
    expect(required.body.data.credentialEncryption.publicJwk).toEqual(setting.publicJwk);
    const got = await call(t, "GET", `/management/issuers/${issuer.issuerId}`, { key: t.adminKey });
    expect(got.body.data.credentialEncryption).toEqual({
      required: true,
      publicJwk: setting.publicJwk,
      previousKey: null,
    });
    await setEncryption({ required: false });
  });

  it("issues into an encrypted response to an encrypted request, with A128GCM and A256GCM", async () => {
    const issuerJwk = (await issuerMetadata()).credential_request_encryption.jwks.keys[0];
    for (const enc of ["A128GCM", "A256GCM"]) {
      const { accessToken: at, transactionId } = await accessToken();
      const wallet = await walletKey();
      const body = await requestBody({ credential_response_encryption: { jwk: wallet.jwk, enc } });
      const res = await post(at, await encryptTo(issuerJwk, body, enc), "application/jwt");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/jwt/);
      expect(res.headers.get("cache-control")).toBe("no-store");
      const { plaintext, protectedHeader } = await compactDecrypt(res.text, wallet.privateKey);
      expect(protectedHeader).toMatchObject({ alg: "ECDH-ES", enc, kid: "wallet-key" });
      const response = JSON.parse(new TextDecoder().decode(plaintext));
      expect(response.credentials).toHaveLength(1);
      expect(response.credentials[0].credential).toMatch(/^ey[^~]+~/);
      expect(typeof response.notification_id).toBe("string");
      expect(await transactionStatus(transactionId)).toBe("completed");
    }
  });

  it("takes an encrypted request without a response key (plain response) and a plain request", async () => {
    const issuerJwk = (await issuerMetadata()).credential_request_encryption.jwks.keys[0];
    const first = await accessToken();
    const encrypted = await post(
      first.accessToken,
      await encryptTo(issuerJwk, await requestBody()),
      "application/jwt",
    );
    expect(encrypted.status).toBe(200);
    expect(JSON.parse(encrypted.text).credentials).toHaveLength(1);
    const second = await accessToken();
    const plain = await post(second.accessToken, JSON.stringify(await requestBody()), "application/json");
    expect(plain.status).toBe(200);
  });

  it("refuses a response key in a plain request, and keeps the transaction for a proper retry", async () => {
    const issuerJwk = (await issuerMetadata()).credential_request_encryption.jwks.keys[0];
    const { accessToken: at, transactionId } = await accessToken();
    const wallet = await walletKey();
    const exposed = await requestBody({
      credential_response_encryption: { jwk: wallet.jwk, enc: "A128GCM" },
    });
    const refused = await post(at, JSON.stringify(exposed), "application/json");
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toMatchObject({ error: "invalid_encryption_parameters" });
    expect(await transactionStatus(transactionId)).toBe("pending");
    const body = await requestBody({ credential_response_encryption: { jwk: wallet.jwk, enc: "A128GCM" } });
    const retried = await post(at, await encryptTo(issuerJwk, body), "application/jwt");
    expect(retried.status).toBe(200);
  });

  it("refuses bad encryption parameters and undecryptable requests, issuing nothing", async () => {
    const issuerJwk = (await issuerMetadata()).credential_request_encryption.jwks.keys[0];
    const { accessToken: at, transactionId } = await accessToken();
    const wallet = await walletKey();
    const cases: Array<[string, string, string]> = [
      [
        "A192GCM",
        await encryptTo(
          issuerJwk,
          await requestBody({ credential_response_encryption: { jwk: wallet.jwk, enc: "A192GCM" } }),
        ),
        "invalid_encryption_parameters",
      ],
      [
        "no alg on the response key",
        await encryptTo(
          issuerJwk,
          await requestBody({
            credential_response_encryption: { jwk: { ...wallet.jwk, alg: undefined }, enc: "A128GCM" },
          }),
        ),
        "invalid_encryption_parameters",
      ],
      ["not a JWE", "not-a-jwe", "invalid_credential_request"],
      [
        "another key's JWE",
        // Encrypted to the wallet's own key, while naming the issuer's.
        await encryptTo({ ...wallet.jwk, kid: issuerJwk.kid }, await requestBody()),
        "invalid_credential_request",
      ],
    ];
    for (const [label, body, code] of cases) {
      const res = await post(at, body, "application/jwt");
      expect(res.status, label).toBe(400);
      expect(JSON.parse(res.text).error, label).toBe(code);
    }
    expect(await transactionStatus(transactionId)).toBe("pending");
  });

  it("checks the access token before it decrypts anything", async () => {
    const res = await post("not-a-token", "a.b.c.d.e", "application/jwt");
    expect(res.status).toBe(401);
  });

  it("when required, refuses plain requests and requests without a response key", async () => {
    await setEncryption({ required: true });
    const metadata = await issuerMetadata();
    expect(metadata.credential_request_encryption.encryption_required).toBe(true);
    expect(metadata.credential_response_encryption.encryption_required).toBe(true);
    const issuerJwk = metadata.credential_request_encryption.jwks.keys[0];
    const { accessToken: at } = await accessToken();
    const plain = await post(at, JSON.stringify(await requestBody()), "application/json");
    expect(JSON.parse(plain.text).error).toBe("invalid_encryption_parameters");
    const noResponseKey = await post(at, await encryptTo(issuerJwk, await requestBody()), "application/jwt");
    expect(JSON.parse(noResponseKey.text).error).toBe("invalid_encryption_parameters");
    const wallet = await walletKey();
    const body = await requestBody({ credential_response_encryption: { jwk: wallet.jwk, enc: "A256GCM" } });
    const ok = await post(at, await encryptTo(issuerJwk, body), "application/jwt");
    expect(ok.status).toBe(200);
  });

  it("turns off (the key is discarded) and on again with a new key; the endpoint follows at once", async () => {
    const before = (await issuerMetadata()).credential_request_encryption.jwks.keys[0];
    const off = await setEncryption(null);
    expect(off.status).toBe(200);
    expect(off.body.data.credentialEncryption).toBeNull();
    expect((await issuerMetadata()).credential_request_encryption).toBeUndefined();
    const whileOff = await accessToken();
    const refused = await post(
      whileOff.accessToken,
      await encryptTo(before, await requestBody()),
      "application/jwt",
    );
    expect(JSON.parse(refused.text).error).toBe("invalid_encryption_parameters");
    const on = await setEncryption({ required: false });
    const after = on.body.data.credentialEncryption.publicJwk;
    expect(after.kid).not.toBe(before.kid);
    const old = await post(
      whileOff.accessToken,
      await encryptTo(before, await requestBody()),
      "application/jwt",
    );
    expect(JSON.parse(old.text).error).toBe("invalid_encryption_parameters");
    const fresh = await post(
      whileOff.accessToken,
      await encryptTo(after, await requestBody()),
      "application/jwt",
    );
    expect(fresh.status).toBe(200);
    await setEncryption(null);
  });

  it("rotates the key: the new one is published, the replaced one still decrypts for the overlap", async () => {
    const rotate = (body: Record<string, unknown> = {}, key = t.adminKey) =>
      call(t, "POST", `/management/issuers/${issuer.issuerId}/rotate-credential-encryption-key`, {
        key,
        body,
      });
    const off = await rotate();
    expect([off.status, errorCode(off)]).toEqual([409, "InvalidState"]);
    const first = (await setEncryption({ required: false })).body.data.credentialEncryption.publicJwk;
    try {
      const rotated = await rotate({ overlapSeconds: 3600 });
      expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
      const second = rotated.body.data.credentialEncryption.publicJwk;
      expect(second.kid).not.toBe(first.kid);
      expect(rotated.body.data.credentialEncryption.previousKey).toMatchObject({ publicJwk: first });
      expect((await issuerMetadata()).credential_request_encryption.jwks.keys).toEqual([second]);
      const { accessToken: at } = await accessToken();
      const toFirst = await post(at, await encryptTo(first, await requestBody()), "application/jwt");
      expect(toFirst.status, toFirst.text).toBe(200);
      const { accessToken: at2 } = await accessToken();
      const toSecond = await post(at2, await encryptTo(second, await requestBody()), "application/jwt");
      expect(toSecond.status).toBe(200);
      // A JWE without kid is tried with each key: one to the replaced key still decrypts.
      const { accessToken: at4 } = await accessToken();
      const withoutKid = await new CompactEncrypt(
        new TextEncoder().encode(JSON.stringify(await requestBody())),
      )
        .setProtectedHeader({ alg: "ECDH-ES", enc: "A128GCM" })
        .encrypt(await importJWK(first, "ECDH-ES"));
      expect((await post(at4, withoutKid, "application/jwt")).status).toBe(200);
      // Changing `required` keeps both keys.
      const kept = await setEncryption({ required: false });
      expect(kept.body.data.credentialEncryption.previousKey).toMatchObject({ publicJwk: first });
      // Without overlap the replaced key stops at once (and the one replaced before is dropped).
      const again = await rotate({ overlapSeconds: 0 });
      expect(again.body.data.credentialEncryption.previousKey).toBeNull();
      const { accessToken: at3 } = await accessToken();
      for (const old of [first, second]) {
        const refused = await post(at3, await encryptTo(old, await requestBody()), "application/jwt");
        expect(JSON.parse(refused.text).error).toBe("invalid_encryption_parameters");
      }
      expect((await rotate({ overlapSeconds: 8 * 86_400 })).status).toBe(400);
      const reader = await t.key({ scopes: ["issuers.read"] });
      expect((await rotate({}, reader)).status).toBe(403);
      const other = await t.otherTenant();
      expect((await rotate({}, other.key)).status).toBe(404);
    } finally {
      await setEncryption(null);
    }
  });

  it("clears a replaced key from the issuer row once its overlap is over (sweeper)", async () => {
    const issuerRow = () =>
      t.server.database.prisma.issuer.findUniqueOrThrow({
        where: { id: issuer.issuerId },
        include: { keys: { where: { purpose: "credential_request_encryption" } } },
      });
    const keyCipher = async (state: string) =>
      (await issuerRow()).keys.find((key) => key.state === state)?.privateKeyCipher ?? null;
    await setEncryption({ required: false });
    try {
      const rotated = await call(
        t,
        "POST",
        `/management/issuers/${issuer.issuerId}/rotate-credential-encryption-key`,
        { key: t.adminKey, body: { overlapSeconds: 3600 } },
      );
      expect(rotated.status).toBe(200);
      const current = rotated.body.data.credentialEncryption.publicJwk;
      const { updatedAt } = await issuerRow();
      const inOverlap = await sweepExpired(t.server.deps, { now: new Date(Date.now() + 1_800_000) });
      expect(inOverlap.credentialEncryptionKeysRetired).toBe(0);
      expect(await keyCipher("retired")).not.toBeNull();

      const after = await sweepExpired(t.server.deps, { now: new Date(Date.now() + 7_200_000) });
      expect(after.credentialEncryptionKeysRetired).toBe(1);
      const row = await issuerRow();
      expect(row.keys.filter((key) => key.state === "retired")).toEqual([]);
      expect(row.updatedAt).toEqual(updatedAt);
      expect(await keyCipher("current")).not.toBeNull();
      // The current key is untouched and still decrypts.
      const { accessToken: at } = await accessToken();
      const res = await post(at, await encryptTo(current, await requestBody()), "application/jwt");
      expect(res.status, res.text).toBe(200);
    } finally {
      await setEncryption(null);
    }
  });

  it("takes a key another process just made, though this one still caches the issuer row", async () => {
    // This process caches the issuer for 2 s from this request on.
    const { accessToken: at } = await accessToken();
    expect((await post(at, JSON.stringify(await requestBody()), "application/json")).status).toBe(200);
    // Another process turns encryption on: the row changes behind this process's cache.
    const prisma = t.server.database.prisma;
    const row = await prisma.issuer.findUniqueOrThrow({ where: { id: issuer.issuerId } });
    // Its own caches: this process's are not told.
    const otherProcess = {
      secretBox: t.server.deps.secretBox,
      keyCustody: t.server.deps.keyCustody,
      caches: new Caches(),
    };
    await t.server.deps.database.root.transaction(async (tx) => {
      const settings = { required: false };
      const scope = { issuerId: row.id, tenantId: row.tenantId, environment: row.environment as "sandbox" };
      await applyCredentialEncryptionSettings(tx, otherProcess, scope, null, settings);
      await tx.prisma.issuer.update({ where: { id: row.id }, data: { credentialEncryption: settings } });
    });
    try {
      const key = await prisma.issuerKey.findFirstOrThrow({
        where: { issuerId: row.id, purpose: "credential_request_encryption", state: "current" },
      });
      const publicJwk = key.publicJwk as JWK;
      const { accessToken: next } = await accessToken();
      const res = await post(next, await encryptTo(publicJwk, await requestBody()), "application/jwt");
      expect(res.status, res.text).toBe(200);
    } finally {
      await setEncryption(null);
    }
  });

  it("encrypts to a response key whose coordinate is padded, as some wallets send it", async () => {
    await setEncryption({ required: false });
    try {
      const issuerJwk = (await issuerMetadata()).credential_request_encryption.jwks.keys[0];
      const { accessToken: at } = await accessToken();
      const wallet = await walletKey();
      const padded = { ...wallet.jwk, x: `${wallet.jwk.x}=` };
      const body = await requestBody({ credential_response_encryption: { jwk: padded, enc: "A128GCM" } });
      const res = await post(at, await encryptTo(issuerJwk, body), "application/jwt");
      expect(res.status).toBe(200);
      const { plaintext } = await compactDecrypt(res.text, wallet.privateKey);
      expect(JSON.parse(new TextDecoder().decode(plaintext)).credentials).toHaveLength(1);
    } finally {
      await setEncryption(null);
    }
  });

  it("leaves other endpoints treating application/jwt as any type they do not take", async () => {
    const send = async (path: string, type: string) => {
      const res = await fetch(new URL(path, t.baseUrl), {
        method: "POST",
        headers: { "content-type": type },
        body: "a.b.c.d.e",
      });
      return [res.status, await res.text()];
    };
    for (const path of [
      `/issuers/${issuer.issuerId}/notification`,
      `/issuers/${issuer.issuerId}/token`,
      "/verifier/requests/anything",
      "/v1.0/issuance-transactions",
    ]) {
      const [status, body] = await send(path, "application/jwt");
      const [otherStatus] = await send(path, "application/x-unknown");
      expect([path, status], String(body)).toEqual([path, otherStatus]);
      expect(status, path).not.toBe(200);
    }
  });

  it("is set at creation, and validated", async () => {
    const orgs = await call(t, "GET", "/management/organisations", { key: t.adminKey });
    const organisationReference = orgs.body.data[0].reference;
    const created = await call(t, "POST", "/management/issuers", {
      key: t.adminKey,
      body: {
        organisationReference,
        displayName: "Encrypting issuer",
        credentialEncryption: { required: true },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.credentialEncryption).toMatchObject({
      required: true,
      publicJwk: { alg: "ECDH-ES" },
    });
    for (const value of [{ required: "yes" }, { required: true, zip: "DEF" }, {}]) {
      const bad = await call(t, "PATCH", `/management/issuers/${issuer.issuerId}`, {
        key: t.adminKey,
        body: { credentialEncryption: value },
      });
      expect(bad.status).toBe(400);
      expect(errorCode(bad)).toBe("ValidationFailed");
    }
  });
});
