// Verifier certificate extensions (VerifierCertificates_Get / _Upload) and the x509_san_dns client
// identifier prefix, over HTTP against a real server whose public base URL is http://localhost:<port>
// (a dNSName must be a DNS name, so the leaf names `localhost` and the response_uri host matches it).
import { execFileSync } from "node:child_process";
import { createPrivateKey, type webcrypto, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  createTestPresentation,
  generateVerifierCertificate,
  type Jwk,
  presentWithTestWallet,
  type VerifierCertificate,
  verifyRequestObject,
  x509HashClientId,
} from "@cred/oid4vc";
import { setGlobalConfig } from "@openid4vc/oauth2";
import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, VALID_CLAIMS } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { oid4vpTsWallet, presentWithOid4vpTs, resolveWithOid4vpTs } from "./oid4vp-ts-wallet";
import { redeemOffer } from "./wallet-client";

const PATH = "/management/verifier-certificate";

let t: TestServer;
let publicBase: string;
let issuer: ActiveIssuer;
let credential: string;
let holderKey: webcrypto.CryptoKey;

const wallet = oid4vpTsWallet();

const pkcs8Pem = (jwk: Jwk) =>
  createPrivateKey({ key: jwk as never, format: "jwk" }).export({ type: "pkcs8", format: "pem" }) as string;

async function createPolicy(identifier: string, overrides: Record<string, unknown> = {}, key = t.adminKey) {
  const r = await call(t, "POST", "/management/verification-policies", {
    key,
    body: {
      identifier,
      displayName: identifier,
      credentials: [
        {
          id: "employee",
          credentialTypes: [issuer.credentialType],
          trustedIssuers: [{ issuerId: issuer.issuerId }],
          requiredClaims: [["given_name"], ["family_name"]],
        },
      ],
      ...overrides,
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

interface Session {
  id: string;
  status: string;
  authorizationRequestUri: string;
  requestUri: string;
}

async function start(policy: string, key = t.adminKey): Promise<Session> {
  const r = await call(t, "POST", "/v1.0/verifications", { key, body: { policy } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

async function status(id: string) {
  const r = await call(t, "GET", `/v1.0/verification-sessions/${id}`, { key: t.adminKey });
  expect(r.status).toBe(200);
  return r.body.data;
}

const clientIdOf = (s: Session) => new URL(s.authorizationRequestUri).searchParams.get("client_id")!;

function testWallet(session: Session, extra: Partial<Parameters<typeof presentWithTestWallet>[0]> = {}) {
  return presentWithTestWallet({
    authorizationRequestUri: session.authorizationRequestUri,
    fetch: (input, init) => fetch(input, init),
    holderPrivateKey: holderKey,
    credential,
    ...extra,
  });
}

/** oid4vc-ts resolves and answers the request unchanged; returns the resolved client. */
async function oid4vcTsWallet(session: Session) {
  const resolved = await resolveWithOid4vpTs(wallet, session.authorizationRequestUri);
  const submitted = await presentWithOid4vpTs(wallet, resolved, { credential, holderKey });
  expect(submitted.response.status).toBe(200);
  return resolved;
}

beforeAll(async () => {
  setGlobalConfig({ allowInsecureUrls: true });
  t = await startTestServer();
  // Wallet-facing URLs on http://localhost:<port> (resolves to 127.0.0.1, where the server listens).
  publicBase = t.baseUrl.replace("127.0.0.1", "localhost");
  t.server.deps.config.publicBaseUrl = publicBase;
  issuer = await activeIssuer(t, t.adminKey);
  const tx = await call(t, "POST", "/v1.0/issuance-transactions", {
    key: t.adminKey,
    body: { credentialConfiguration: issuer.configuration, issuerId: issuer.issuerId, claims: VALID_CLAIMS },
  });
  expect(tx.status).toBe(201);
  const flow = await redeemOffer(tx.body.data.credentialOffer);
  credential = flow.credentialRes.body.credentials[0].credential;
  holderKey = flow.keys[0]!.privateKey;
  await createPolicy("san-jwt", { clientIdPrefix: "x509_san_dns" });
  await createPolicy("san-plain", { clientIdPrefix: "x509_san_dns", responseMode: "direct_post" });
  await createPolicy("hash-jwt");
  await createPolicy("hash-plain", { responseMode: "direct_post" });
});
afterAll(() => t?.close());

describe("policy rule clientIdPrefix", () => {
  it("defaults to x509_hash, stores x509_san_dns, refuses anything else", async () => {
    const hash = await call(t, "GET", "/management/verification-policies/hash-jwt", { key: t.adminKey });
    expect(hash.body.data.rules.clientIdPrefix).toBe("x509_hash");
    const san = await call(t, "GET", "/management/verification-policies/san-jwt", { key: t.adminKey });
    expect(san.body.data.rules.clientIdPrefix).toBe("x509_san_dns");
    const bad = await call(t, "POST", "/management/verification-policies", {
      key: t.adminKey,
      body: {
        identifier: "bad-prefix",
        displayName: "Bad",
        clientIdPrefix: "redirect_uri",
        credentials: [
          {
            id: "e",
            credentialTypes: [issuer.credentialType],
            trustedIssuers: [{ issuerId: issuer.issuerId }],
          },
        ],
      },
    });
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe("ValidationFailed");
    expect(JSON.stringify(bad.body.error.details)).toContain("clientIdPrefix");
  });
});

describe("generated certificate (first use)", () => {
  it("VerifierCertificates_Get generates one whose dNSName is the public host", async () => {
    const r = await call(t, "GET", PATH, { key: t.adminKey });
    expect(r.status).toBe(200);
    const c = r.body.data;
    expect(c).toMatchObject({
      uploaded: false,
      dnsName: "localhost",
      dnsNames: ["localhost"],
      subject: "CN=localhost",
      issuer: "CN=localhost verifier CA",
      x509SanDnsUsable: true,
      warnings: [],
      clientIds: { x509SanDns: "x509_san_dns:localhost" },
    });
    const pems = c.certificateChainPem.match(/-----BEGIN CERTIFICATE-----/g);
    expect(pems).toHaveLength(2);
    const leaf = new X509Certificate(c.certificateChainPem.split(/(?<=-----END CERTIFICATE-----)/)[0]);
    expect(c.clientIds.x509Hash).toBe(x509HashClientId(leaf.raw));
    expect(new Date(c.notBefore).getTime()).toBeLessThan(Date.now());
    expect(new Date(c.notAfter).getTime()).toBeGreaterThan(Date.now() + 300 * 86_400_000);
    expect(JSON.stringify(r.body)).not.toMatch(/PRIVATE KEY|"d":/);
    // Stable: the same certificate on the next read.
    const again = await call(t, "GET", PATH, { key: t.adminKey });
    expect(again.body.data.clientIds).toEqual(c.clientIds);
    // Sessions use it: an x509_hash session carries its hash.
    expect(clientIdOf(await start("hash-jwt"))).toBe(c.clientIds.x509Hash);
  });

  it("x509_san_dns with the test wallet (direct_post.jwt): client_id, request object and KB-JWT aud", async () => {
    const session = await start("san-jwt");
    expect(clientIdOf(session)).toBe("x509_san_dns:localhost");
    expect(session.authorizationRequestUri).toMatch(/^openid4vp:\/\/\?client_id=x509_san_dns%3Alocalhost&/);
    const res = await fetch(session.requestUri);
    const { payload } = await verifyRequestObject(await res.text(), { clientId: "x509_san_dns:localhost" });
    expect(payload.client_id).toBe("x509_san_dns:localhost");
    expect(new URL(String(payload.response_uri)).hostname).toBe("localhost");

    const answered = await testWallet(session);
    expect(answered.status).toBe(200);
    const after = await status(session.id);
    expect(after.status).toBe("verified");
    expect(after.result.credentials[0].claims).toEqual({ given_name: "Erika", family_name: "Mustermann" });
  });

  it("x509_san_dns: a KB-JWT addressed to the x509_hash client id is rejected (aud = full client_id)", async () => {
    const hashId = (await call(t, "GET", PATH, { key: t.adminKey })).body.data.clientIds.x509Hash;
    const session = await start("san-plain");
    await testWallet(session, { keyBindingOverrides: { aud: hashId } });
    const after = await status(session.id);
    expect(after.status).toBe("rejected");
    expect(after.result.reasons.map((r: { code: string }) => r.code)).toContain("kb_audience_mismatch");
  });

  it.each(["san-jwt", "san-plain"])("x509_san_dns with the oid4vc-ts wallet (%s)", async (policy) => {
    const session = await start(policy);
    const { client, request } = await oid4vcTsWallet(session);
    expect(client.prefix).toBe("x509_san_dns");
    expect(client.identifier).toBe("localhost");
    expect(request.client_id).toBe("x509_san_dns:localhost");
    expect((await status(session.id)).status).toBe("verified");
  });
});

describe("VerifierCertificates_Upload: refused uploads", () => {
  let good: VerifierCertificate;
  let other: VerifierCertificate;
  let tmp: string;
  beforeAll(async () => {
    good = await generateVerifierCertificate({ dnsName: "localhost" });
    other = await generateVerifierCertificate({ dnsName: "localhost" });
    tmp = mkdtempSync(path.join(tmpdir(), "vcert-"));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  async function refused(body: unknown, target: string, message: RegExp) {
    const r = await call(t, "PUT", PATH, { key: t.adminKey, body });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(errorCode(r)).toBe("InvalidCertificate");
    const details = r.body.error.details as { code: string; target: string; message: string }[];
    expect(
      details.some((d) => d.target === target && message.test(d.message)),
      JSON.stringify(details),
    ).toBe(true);
  }

  it("key of another certificate → 400 (privateKeyPem)", async () => {
    await refused(
      { certificateChainPem: good.certificateChainPem, privateKeyPem: pkcs8Pem(other.privateKeyJwk) },
      "privateKeyPem",
      /does not match/,
    );
  });

  it("leaf without a dNSName SAN → 400", async () => {
    const key = path.join(tmp, "k.pem");
    const cert = path.join(tmp, "c.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-subj",
        "/CN=no-san",
        "-days",
        "1",
        "-addext",
        "basicConstraints=critical,CA:FALSE",
        "-keyout",
        key,
        "-out",
        cert,
      ],
      { stdio: "ignore" },
    );
    await refused(
      { certificateChainPem: readFileSync(cert, "utf8"), privateKeyPem: readFileSync(key, "utf8") },
      "certificateChainPem",
      /no dNSName/,
    );
  });

  it("expired leaf → 400", async () => {
    const expired = await generateVerifierCertificate({
      dnsName: "localhost",
      now: new Date(Date.now() - 10 * 86_400_000),
      validityDays: 2,
    });
    await refused(
      { certificateChainPem: expired.certificateChainPem, privateKeyPem: pkcs8Pem(expired.privateKeyJwk) },
      "certificateChainPem",
      /expired/,
    );
  });

  it("CA before the leaf → 400 (chain order)", async () => {
    await refused(
      {
        certificateChainPem: `${good.caCertificatePem}\n${good.leafCertificatePem}`,
        privateKeyPem: pkcs8Pem(good.privateKeyJwk),
      },
      "certificateChainPem",
      /.+/,
    );
  });

  it("garbage → 400", async () => {
    await refused(
      { certificateChainPem: "not a certificate", privateKeyPem: pkcs8Pem(good.privateKeyJwk) },
      "certificateChainPem",
      /no PEM certificate/,
    );
    await refused(
      {
        certificateChainPem: "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----",
        privateKeyPem: pkcs8Pem(good.privateKeyJwk),
      },
      "certificateChainPem",
      /unparsable certificate/,
    );
    await refused(
      { certificateChainPem: good.certificateChainPem, privateKeyPem: "-----BEGIN PRIVATE KEY-----\nxx" },
      "privateKeyPem",
      /unparsable private key/,
    );
    // Both wrong: one detail for each.
    const both = await call(t, "PUT", PATH, {
      key: t.adminKey,
      body: { certificateChainPem: "not a certificate", privateKeyPem: "x" },
    });
    expect(both.status).toBe(400);
    expect(errorCode(both)).toBe("InvalidCertificate");
    expect(both.body.error.details.map((d: { target: string }) => d.target).sort()).toEqual([
      "certificateChainPem",
      "privateKeyPem",
    ]);
  });

  it("missing or unknown fields → 400 ValidationFailed; nothing changed", async () => {
    const before = (await call(t, "GET", PATH, { key: t.adminKey })).body.data;
    const missing = await call(t, "PUT", PATH, {
      key: t.adminKey,
      body: { certificateChainPem: good.certificateChainPem },
    });
    expect(missing.status).toBe(400);
    expect(errorCode(missing)).toBe("ValidationFailed");
    const extra = await call(t, "PUT", PATH, {
      key: t.adminKey,
      body: { certificateChainPem: good.certificateChainPem, privateKeyPem: "x", caKey: "y" },
    });
    expect(extra.status).toBe(400);
    const after = (await call(t, "GET", PATH, { key: t.adminKey })).body.data;
    expect(after).toEqual(before);
    expect(after.uploaded).toBe(false);
  });
});

describe("security", () => {
  it("401 without a key, 403 without the scope", async () => {
    const anon = await call(t, "GET", PATH, { key: null });
    expect(anon.status).toBe(401);
    expect(errorCode(anon)).toBe("Unauthenticated");
    const anonPut = await call(t, "PUT", PATH, {
      key: null,
      body: { certificateChainPem: "x", privateKeyPem: "y" },
    });
    expect(anonPut.status).toBe(401);

    const reader = await t.key({ scopes: ["verification-policies.read"] });
    expect((await call(t, "GET", PATH, { key: reader })).status).toBe(200);
    const put = await call(t, "PUT", PATH, {
      key: reader,
      body: { certificateChainPem: "x", privateKeyPem: "y" },
    });
    expect(put.status).toBe(403);
    expect(errorCode(put)).toBe("MissingScope");
    const stranger = await t.key({ scopes: ["verification.read", "verification.execute"] });
    const get = await call(t, "GET", PATH, { key: stranger });
    expect(get.status).toBe(403);
    expect(errorCode(get)).toBe("MissingScope");
  });

  it("per tenant and environment: another tenant's upload does not touch ours; its sessions are 404 to us", async () => {
    const ours = (await call(t, "GET", PATH, { key: t.adminKey })).body.data;
    const other = await t.otherTenant();
    const theirs = (await call(t, "GET", PATH, { key: other.key })).body.data;
    expect(theirs.clientIds.x509Hash).not.toBe(ours.clientIds.x509Hash);
    const production = await t.key({ environment: "production" });
    const prod = (await call(t, "GET", PATH, { key: production })).body.data;
    expect(prod.clientIds.x509Hash).not.toBe(ours.clientIds.x509Hash);

    const chain = await generateVerifierCertificate({ dnsName: "localhost" });
    const up = await call(t, "PUT", PATH, {
      key: other.key,
      body: { certificateChainPem: chain.certificateChainPem, privateKeyPem: pkcs8Pem(chain.privateKeyJwk) },
    });
    expect(up.status).toBe(200);
    expect(up.body.data.clientIds.x509Hash).toBe(chain.clientIds.x509Hash);
    expect((await call(t, "GET", PATH, { key: t.adminKey })).body.data).toEqual(ours);
    expect(clientIdOf(await start("hash-jwt"))).toBe(ours.clientIds.x509Hash);

    const session = await start("san-jwt");
    const peek = await call(t, "GET", `/v1.0/verification-sessions/${session.id}`, { key: other.key });
    expect(peek.status).toBe(404);
  });
});

describe("VerifierCertificates_Upload: an uploaded chain replaces the generated one", () => {
  let uploaded: VerifierCertificate;
  let oldHash: string;
  let pendingHash: Session;
  let pendingSan: Session;
  let fetchedHash: { session: Session; request: Record<string, unknown> };

  beforeAll(async () => {
    oldHash = (await call(t, "GET", PATH, { key: t.adminKey })).body.data.clientIds.x509Hash;
    // Sessions created before the upload: never fetched (x509_hash, x509_san_dns), and one whose request
    // object a wallet fetched before the upload and answers afterwards.
    pendingHash = await start("hash-jwt");
    pendingSan = await start("san-jwt");
    const session = await start("hash-plain");
    const jwt = await (await fetch(session.requestUri)).text();
    fetchedHash = { session, request: (await verifyRequestObject(jwt, { clientId: oldHash })).payload };

    uploaded = await generateVerifierCertificate({ dnsName: "localhost", organisationName: "Uploaded Ltd" });
    const r = await call(t, "PUT", PATH, {
      key: await t.key({ scopes: ["verification-policies.manage"] }),
      body: {
        certificateChainPem: uploaded.certificateChainPem,
        privateKeyPem: pkcs8Pem(uploaded.privateKeyJwk),
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({
      uploaded: true,
      dnsName: "localhost",
      subject: "CN=localhost, O=Uploaded Ltd",
      x509SanDnsUsable: true,
      clientIds: { x509Hash: uploaded.clientIds.x509Hash, x509SanDns: "x509_san_dns:localhost" },
      notAfter: uploaded.notAfter.toISOString(),
    });
    expect(JSON.stringify(r.body)).not.toMatch(/PRIVATE KEY|"d":/);
    const read = await call(t, "GET", PATH, { key: t.adminKey });
    expect(read.body.data).toEqual(r.body.data);
  });

  it("new x509_hash sessions use the uploaded leaf (test wallet, chain anchored at the uploaded CA)", async () => {
    const session = await start("hash-jwt");
    expect(clientIdOf(session)).toBe(uploaded.clientIds.x509Hash);
    const jwt = await (await fetch(session.requestUri)).text();
    expect((decodeProtectedHeader(jwt) as { x5c: string[] }).x5c).toEqual([uploaded.leafDer]);
    const answered = await testWallet(session, { trustedRootsPem: [uploaded.caCertificatePem] });
    expect(answered.status).toBe(200);
    expect((await status(session.id)).status).toBe("verified");
  });

  it("new x509_san_dns sessions are signed with the uploaded chain (oid4vc-ts wallet)", async () => {
    const session = await start("san-jwt");
    const jwt = await (await fetch(session.requestUri)).text();
    expect((decodeProtectedHeader(jwt) as { x5c: string[] }).x5c).toEqual([uploaded.leafDer]);
    const { request } = await oid4vcTsWallet(session);
    expect(request.client_id).toBe("x509_san_dns:localhost");
    expect((await status(session.id)).status).toBe("verified");
  });

  it("pending x509_hash sessions: request object refused with a clear wallet error", async () => {
    expect(clientIdOf(pendingHash)).toBe(oldHash);
    for (const init of [{}, { method: "POST", body: new URLSearchParams({ wallet_nonce: "n" }) }]) {
      const res = await fetch(pendingHash.requestUri, init);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: string; error_description: string };
      expect(body.error).toBe("invalid_request");
      expect(body.error_description).toMatch(/verifier certificate was replaced/);
    }
    await expect(testWallet(pendingHash)).rejects.toThrow(/400/);
    expect((await status(pendingHash.id)).status).toBe("pending");
  });

  it("pending x509_san_dns sessions keep working: same client_id, new chain", async () => {
    expect(clientIdOf(pendingSan)).toBe("x509_san_dns:localhost");
    const answered = await testWallet(pendingSan, { trustedRootsPem: [uploaded.caCertificatePem] });
    expect(answered.status).toBe(200);
    expect((await status(pendingSan.id)).status).toBe("verified");
  });

  it("a request object fetched before the upload can still be answered (aud = the session's client_id)", async () => {
    const { session, request } = fetchedHash;
    const presentation = await createTestPresentation({
      credential,
      disclose: (name) => name === "given_name" || name === "family_name",
      holderPrivateKey: holderKey,
      aud: oldHash,
      nonce: String(request.nonce),
      iat: Math.floor(Date.now() / 1000),
    });
    const res = await fetch(String(request.response_uri), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        vp_token: JSON.stringify({ employee: [presentation] }),
        state: String(request.state),
      }),
    });
    expect(res.status).toBe(200);
    expect((await status(session.id)).status).toBe("verified");
  });

  it("a certificate for another host: uploaded with a warning; x509_san_dns → 409, x509_hash still works", async () => {
    const foreign = await generateVerifierCertificate({ dnsName: "verifier.example.com" });
    const r = await call(t, "PUT", PATH, {
      key: t.adminKey,
      body: {
        certificateChainPem: foreign.certificateChainPem,
        privateKeyPem: pkcs8Pem(foreign.privateKeyJwk),
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      dnsName: "verifier.example.com",
      x509SanDnsUsable: false,
      clientIds: { x509SanDns: "x509_san_dns:verifier.example.com" },
    });
    expect(r.body.data.warnings.join(" ")).toMatch(/localhost/);

    const refused = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      body: { policy: "san-jwt" },
    });
    expect(refused.status).toBe(409);
    expect(errorCode(refused)).toBe("VerifierCertificateMismatch");
    expect(refused.body.error.message).toMatch(/localhost/);

    const session = await start("hash-plain");
    expect(clientIdOf(session)).toBe(foreign.clientIds.x509Hash);
    expect((await testWallet(session)).status).toBe(200);
    expect((await status(session.id)).status).toBe("verified");
  });
});
