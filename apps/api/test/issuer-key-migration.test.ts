// The issuer_keys migration moves each issuer's keys out of the Issuer row's columns into IssuerKey rows:
// a database left at the migration before, with an issuer holding every kind of key, is upgraded by a
// server start, and the server then signs and publishes exactly what the columns held.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SCOPES } from "@cred/contracts/scopes";
import { createApiKey, SecretBox } from "@cred/core";
import { applyMigrations, listMigrations, openDatabase } from "@cred/db";
import {
  createIssuerCertificateRequest,
  generateEs256KeyPair,
  generateResponseEncryptionKey,
  parseIssuerCertificateChain,
} from "@cred/oid4vc";
import { createTestCertificateAuthority } from "@cred/oid4vc/test-ca";
import { decodeProtectedHeader, importJWK, type JWK, jwtVerify } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "../src/server";
import { call, freshPostgresDatabase } from "./harness";

const PUBLIC_BASE_URL = "http://issuer.test";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const all = listMigrations();
const MIGRATION = all.find((name) => name.endsWith("_issuer_keys"))!;
const BEFORE = all.slice(0, all.indexOf(MIGRATION));

/** Where the database lives: a PGlite directory, or a fresh PostgreSQL database with TEST_POSTGRES_URL. */
async function databaseLocation() {
  const adminUrl = process.env.TEST_POSTGRES_URL;
  const pg = adminUrl ? await freshPostgresDatabase(adminUrl) : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "issuer-key-migration-"));
  cleanups.push(async () => {
    await pg?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { databaseUrl: pg?.url, dataDir };
}

async function certify(
  ca: Awaited<ReturnType<typeof createTestCertificateAuthority>>,
  key: Awaited<ReturnType<typeof generateEs256KeyPair>>,
  credentialIssuer: string,
) {
  const csr = await createIssuerCertificateRequest({
    privateJwk: key.privateJwk,
    commonName: "Migrated issuer",
    credentialIssuer,
  });
  const { chainPem } = await ca.certify(csr);
  const parsed = parseIssuerCertificateChain({
    certificateChainPem: chainPem,
    publicJwk: key.publicJwk,
    credentialIssuer,
  });
  return {
    chainPem: parsed.chainPem,
    x5c: parsed.x5c,
    notBefore: parsed.notBefore.toISOString(),
    notAfter: parsed.notAfter.toISOString(),
  };
}

describe(`migration ${MIGRATION}`, () => {
  it("moves current, next and replaced signing keys, their chains and the request encryption keys into IssuerKey rows; the server signs and publishes as before", async () => {
    expect(BEFORE.length).toBeGreaterThan(0);
    const location = await databaseLocation();
    const masterKey = randomBytes(32);
    const secretBox = new SecretBox(masterKey, []);

    // The database as the version before left it.
    const old = openDatabase(location);
    await applyMigrations(old.adapterFactory, { only: BEFORE });
    // Written as that version's schema had it (today's bootstrap writes columns added later).
    const tenantId = "ten_migrated";
    await old.prisma.$executeRawUnsafe(
      `INSERT INTO "Tenant" ("id","name") VALUES ($1,'Migrated tenant')`,
      tenantId,
    );
    const issuerId = "iss_migrated";
    const credentialIssuer = `${PUBLIC_BASE_URL}/issuers/${issuerId}`;
    const ca = await createTestCertificateAuthority();
    const current = await generateEs256KeyPair();
    const next = await generateEs256KeyPair();
    const retiredNewer = await generateEs256KeyPair();
    const retiredOlder = await generateEs256KeyPair();
    const currentChain = await certify(ca, current, credentialIssuer);
    const nextChain = await certify(ca, next, credentialIssuer);
    const encryption = generateResponseEncryptionKey();
    const previousEncryption = generateResponseEncryptionKey();
    const encryptionContext = `${issuerId}/credential-encryption`;
    const acceptedUntil = new Date(Date.now() + 3_600_000).toISOString();
    const previousSigningKeys = [
      {
        kid: retiredNewer.publicJwk.kid,
        publicJwk: retiredNewer.publicJwk,
        retiredAt: "2026-02-01T00:00:00.000Z",
      },
      {
        kid: retiredOlder.publicJwk.kid,
        publicJwk: retiredOlder.publicJwk,
        retiredAt: "2026-01-01T00:00:00.000Z",
      },
    ];
    const sealedCurrent = secretBox.seal(JSON.stringify(current.privateJwk), issuerId);
    const sealedNext = secretBox.seal(JSON.stringify(next.privateJwk), issuerId);
    const sealedEncryption = secretBox.seal(JSON.stringify(encryption.privateJwk), encryptionContext);
    const sealedPrevious = secretBox.seal(JSON.stringify(previousEncryption.privateJwk), encryptionContext);
    await old.prisma.$executeRawUnsafe(
      `INSERT INTO "Organisation" ("id","tenantId","environment","reference","displayName","updatedAt")
       VALUES ('org_migrated',$1,'sandbox','migrated-org','Org',now())`,
      tenantId,
    );
    await old.prisma.$executeRawUnsafe(
      `INSERT INTO "Issuer" ("id","tenantId","environment","organisationId","displayName","status","signingKid",
         "publicJwk","privateKeyCipher","previousSigningKeys","signingCertificate","nextSigningKey",
         "nextPrivateKeyCipher","credentialEncryption","credentialEncryptionKeyCipher",
         "previousCredentialEncryption","previousCredentialEncryptionKeyCipher","activatedAt","updatedAt")
       VALUES ($1,$2,'sandbox','org_migrated','Migrated issuer','active',$3,$4::jsonb,$5,$6::jsonb,$7::jsonb,
         $8::jsonb,$9,$10::jsonb,$11,$12::jsonb,$13,now(),now())`,
      issuerId,
      tenantId,
      current.publicJwk.kid,
      JSON.stringify(current.publicJwk),
      sealedCurrent,
      JSON.stringify(previousSigningKeys),
      JSON.stringify(currentChain),
      JSON.stringify({
        kid: next.publicJwk.kid,
        publicJwk: next.publicJwk,
        preparedAt: "2026-03-01T00:00:00.000Z",
        signingCertificate: nextChain,
      }),
      sealedNext,
      JSON.stringify({ required: true, publicJwk: encryption.publicJwk }),
      sealedEncryption,
      JSON.stringify({ publicJwk: previousEncryption.publicJwk, acceptedUntil }),
      sealedPrevious,
    );
    await old.prisma.$executeRawUnsafe(
      `INSERT INTO "StatusList" ("id","tenantId","environment","issuerId","bits","size","updatedAt")
       VALUES ('sl_migrated',$1,'sandbox',$2,1,1024,now())`,
      tenantId,
      issuerId,
    );
    await old.close();

    // A server start applies the migration.
    const server = await createServer({
      ...location,
      masterKey,
      publicBaseUrl: PUBLIC_BASE_URL,
      developmentMode: true,
      logLevel: "silent",
      rateLimit: { points: 100_000, durationSeconds: 1 },
      webhookAllowedHosts: ["127.0.0.1"],
    });
    cleanups.push(() => server.close());
    await server.app.listen({ host: "127.0.0.1", port: 0 });
    const t = { baseUrl: `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}` };
    const boot = {
      apiKey: (
        await createApiKey(
          server.database.root,
          { tenantId, environment: "sandbox" },
          { name: "migration test", scopes: [...SCOPES] },
        )
      ).key,
    };

    // The rows.
    const keys = await server.database.prisma.issuerKey.findMany({ where: { issuerId } });
    const byKid = new Map(keys.map((key) => [key.kid, key]));
    expect(keys).toHaveLength(6);
    expect(byKid.get(current.publicJwk.kid!)).toMatchObject({
      tenantId,
      environment: "sandbox",
      purpose: "credential_signing",
      state: "current",
      publicJwk: current.publicJwk,
      privateKeyCipher: sealedCurrent,
      provider: "software",
      providerKeyRef: null,
      chainPem: currentChain.chainPem,
      x5c: currentChain.x5c,
      notBefore: new Date(currentChain.notBefore),
      notAfter: new Date(currentChain.notAfter),
    });
    expect(byKid.get(next.publicJwk.kid!)).toMatchObject({
      purpose: "credential_signing",
      state: "next",
      privateKeyCipher: sealedNext,
      chainPem: nextChain.chainPem,
      x5c: nextChain.x5c,
      preparedAt: new Date("2026-03-01T00:00:00.000Z"),
    });
    for (const [key, retiredAt] of [
      [retiredNewer, "2026-02-01T00:00:00.000Z"],
      [retiredOlder, "2026-01-01T00:00:00.000Z"],
    ] as const) {
      expect(byKid.get(key.publicJwk.kid!)).toMatchObject({
        purpose: "credential_signing",
        state: "retired",
        publicJwk: key.publicJwk,
        privateKeyCipher: null,
        chainPem: null,
        retiredAt: new Date(retiredAt),
      });
    }
    const encryptionKid = (encryption.publicJwk as { kid: string }).kid;
    const previousKid = (previousEncryption.publicJwk as { kid: string }).kid;
    expect(byKid.get(encryptionKid)).toMatchObject({
      purpose: "credential_request_encryption",
      state: "current",
      privateKeyCipher: sealedEncryption,
    });
    expect(byKid.get(previousKid)).toMatchObject({
      purpose: "credential_request_encryption",
      state: "retired",
      privateKeyCipher: sealedPrevious,
      acceptedUntil: new Date(acceptedUntil),
    });
    const [issuerRow] = await server.database.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
      `SELECT * FROM "Issuer" WHERE "id" = $1`,
      issuerId,
    );
    expect(issuerRow!.credentialEncryption).toEqual({ required: true });
    for (const dropped of [
      "signingKid",
      "privateKeyCipher",
      "nextSigningKey",
      "previousCredentialEncryption",
    ])
      expect(Object.keys(issuerRow!)).not.toContain(dropped);

    // The issuer resource shows what the columns held.
    const read = await call(t, "GET", `/management/issuers/${issuerId}`, { key: boot.apiKey });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const issuer = read.body.data;
    expect(issuer.signingKey).toEqual({
      kid: current.publicJwk.kid,
      alg: "ES256",
      publicJwk: current.publicJwk,
    });
    expect(issuer.signingCertificate).toMatchObject({
      certificateChainPem: currentChain.chainPem,
      notBefore: currentChain.notBefore,
      notAfter: currentChain.notAfter,
      x5cLength: currentChain.x5c.length,
      inUse: true,
    });
    expect(issuer.previousSigningKeys).toEqual(previousSigningKeys.map((key) => ({ ...key, alg: "ES256" })));
    expect(issuer.nextSigningKey).toMatchObject({
      kid: next.publicJwk.kid,
      publicJwk: next.publicJwk,
      preparedAt: "2026-03-01T00:00:00.000Z",
      signingCertificate: { certificateChainPem: nextChain.chainPem },
    });
    expect(issuer.credentialEncryption).toEqual({
      required: true,
      publicJwk: encryption.publicJwk,
      previousKey: { publicJwk: previousEncryption.publicJwk, acceptedUntil },
    });
    const readiness = await call(t, "GET", `/management/issuers/${issuerId}/readiness`, { key: boot.apiKey });
    expect(readiness.body.data.items.find((item: { id: string }) => item.id === "signing-key").status).toBe(
      "satisfied",
    );

    // The JWKS: current key with its chain, the prepared next key with its own, the replaced keys.
    const jwtVcIssuer = await call(t, "GET", `/.well-known/jwt-vc-issuer/issuers/${issuerId}`);
    expect(jwtVcIssuer.status).toBe(200);
    expect(jwtVcIssuer.body.jwks.keys).toEqual([
      { ...current.publicJwk, x5c: currentChain.x5c },
      { ...next.publicJwk, x5c: nextChain.x5c },
      retiredNewer.publicJwk,
      retiredOlder.publicJwk,
    ]);
    const metadata = await call(t, "GET", `/.well-known/openid-credential-issuer/issuers/${issuerId}`);
    expect(metadata.status).toBe(200);
    expect(metadata.body.credential_request_encryption.jwks.keys).toEqual([
      expect.objectContaining({ kid: encryptionKid }),
    ]);

    // A status list token is signed with the migrated key and carries the migrated chain.
    const list = await fetch(`${t.baseUrl}/issuers/${issuerId}/status-lists/sl_migrated`);
    expect(list.status).toBe(200);
    const token = await list.text();
    expect(decodeProtectedHeader(token)).toMatchObject({ kid: current.publicJwk.kid, x5c: currentChain.x5c });
    await jwtVerify(token, await importJWK(current.publicJwk as JWK, "ES256"));
  }, 120_000);
});
