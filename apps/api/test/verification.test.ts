import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { newId } from "@cred/core";
import { runVerificationEngine } from "@cred/core/testing";
import {
  createTestPresentation,
  type Es256KeyPair,
  generateEs256KeyPair,
  generateVerifierCertificate,
  importEs256PrivateKey,
  issueSdJwtVc,
  presentWithTestWallet,
  type StatusListBits,
  setStatus,
  signStatusListToken,
  verifyRequestObject,
} from "@cred/oid4vc";
import { type CryptoKey, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, errorCode, startTestServer, type TestServer } from "./harness";

let t: TestServer;
let prisma: TestServer["server"]["database"]["prisma"];

interface TestIssuer {
  issuerId: string;
  credentialIssuer: string;
  kid: string;
  privateKey: CryptoKey;
  vct: string;
  statusListId: string;
}

let issuerA: TestIssuer;
let issuerB: TestIssuer;
let holder: Es256KeyPair;
let n = 0;
const REDIRECT = "https://shop.example.com/checkout/done";

async function createIssuer(key: string): Promise<TestIssuer> {
  const i = ++n;
  const org = await call(t, "POST", "/management/organisations", {
    key,
    body: { reference: `vorg-${i}-${Date.now().toString(36)}`, displayName: `Org ${i}` },
  });
  expect(org.status).toBe(201);
  const issuer = await call(t, "POST", "/management/issuers", {
    key,
    body: {
      organisationReference: org.body.data.reference,
      displayName: `Issuer ${i}`,
      display: [{ locale: "en", name: `Issuer ${i}` }],
    },
  });
  expect(issuer.status).toBe(201);
  const issuerId = issuer.body.data.id as string;
  const config = await call(t, "POST", "/management/credential-configurations", {
    key,
    body: {
      identifier: `pid-${i}-${Date.now().toString(36)}`,
      displayName: "PID",
      issuerId,
      schemaId: "pid-v1",
    },
  });
  expect(config.status).toBe(201);
  const row = await prisma.issuer.findUniqueOrThrow({ where: { id: issuerId } });
  const list = await prisma.statusList.findFirstOrThrow({ where: { issuerId } });
  const privateJwk = JSON.parse(t.server.deps.secretBox.open(row.privateKeyCipher, issuerId)) as JWK;
  return {
    issuerId,
    credentialIssuer: issuer.body.data.credentialIssuer,
    kid: row.signingKid,
    privateKey: await importEs256PrivateKey(privateJwk),
    vct: config.body.data.credentialType,
    statusListId: list.id,
  };
}

const CLAIMS = { given_name: "Erika", family_name: "Mustermann", age_over_18: true, birthdate: "1984-01-26" };
let nextIdx = 1;

interface IssueOptions {
  issuer?: TestIssuer;
  claims?: Record<string, unknown>;
  iat?: number;
  exp?: number;
  holderJwk?: JWK;
  status?: boolean;
}

async function issue(options: IssueOptions = {}) {
  const issuer = options.issuer ?? issuerA;
  const now = Math.floor(Date.now() / 1000);
  const claims = options.claims ?? CLAIMS;
  const idx = nextIdx++;
  const credential = await issueSdJwtVc({
    privateKey: issuer.privateKey,
    kid: issuer.kid,
    iss: issuer.credentialIssuer,
    vct: issuer.vct,
    iat: options.iat ?? now,
    exp: options.exp ?? now + 86_400,
    cnfJwk: options.holderJwk ?? holder.publicJwk,
    ...(options.status === false
      ? {}
      : { status: { idx, uri: `${issuer.credentialIssuer}/status-lists/${issuer.statusListId}` } }),
    claims,
    disclosable: Object.keys(claims).map((k) => [k]),
  });
  return { credential, idx };
}

/** A Credential row as issuance writes it (digest of the issuer-signed JWT), for the legacy submission. */
async function recordCredential(issuer: TestIssuer, credential: string, status?: { idx: number }) {
  const id = newId("cred");
  const configuration = await prisma.credentialConfiguration.findFirstOrThrow({
    where: { issuerId: issuer.issuerId },
  });
  await prisma.credential.create({
    data: {
      id,
      tenantId: t.tenantId,
      environment: "sandbox",
      issuerId: issuer.issuerId,
      configurationId: configuration.id,
      transactionId: newId("itx"),
      status: "issued",
      digest: createHash("sha256").update(credential.split("~")[0]!).digest("base64url"),
      ...(status ? { statusListId: issuer.statusListId, statusIndex: status.idx } : {}),
      issuedAt: new Date(),
      expiresAt: new Date(Date.now() + 86_400_000),
    },
  });
  return id;
}

/** Sets an entry's status directly in its 1 KiB chunk row, as a revocation does. */
async function setRevoked(issuer: TestIssuer, idx: number) {
  const list = await prisma.statusList.findUniqueOrThrow({ where: { id: issuer.statusListId } });
  const chunk = Math.floor((idx * list.bits) / 8 / 1024);
  const where = { listId_chunk: { listId: list.id, chunk } };
  const row = await prisma.statusListChunk.findUnique({ where });
  const length = Math.min(1024, (list.size * list.bits) / 8 - chunk * 1024);
  const bytes = row ? new Uint8Array(row.data) : new Uint8Array(length);
  setStatus(bytes, list.bits as StatusListBits, idx - (chunk * 1024 * 8) / list.bits, 1);
  await prisma.statusListChunk.upsert({
    where,
    create: { listId: list.id, chunk, data: bytes },
    update: { data: bytes },
  });
  await prisma.statusList.update({ where: { id: list.id }, data: { version: { increment: 1 } } });
}

function policyBody(
  identifier: string,
  overrides: Record<string, unknown> = {},
  credential: Record<string, unknown> = {},
) {
  return {
    identifier,
    displayName: identifier,
    purpose: "Age check",
    credentials: [
      {
        id: "pid",
        credentialTypes: [issuerA.vct],
        trustedIssuers: [{ issuerId: issuerA.issuerId }],
        requiredClaims: [["given_name"], ["age_over_18"]],
        optionalClaims: [["family_name"]],
        ...credential,
      },
    ],
    ...overrides,
  };
}

async function createPolicy(body: Record<string, unknown>, key = t.adminKey) {
  const r = await call(t, "POST", "/management/verification-policies", { key, body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
}

async function start(policy: string, key = t.adminKey, extra: Record<string, unknown> = {}) {
  const r = await call(t, "POST", "/v1.0/verifications", { key, body: { policy, ...extra } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as {
    id: string;
    status: string;
    authorizationRequestUri: string;
    requestUri: string;
    expiresAt: string;
  };
}

async function read(id: string, key = t.adminKey) {
  const r = await call(t, "GET", `/v1.0/verification-sessions/${id}`, { key });
  expect(r.status).toBe(200);
  return r.body.data;
}

type WalletOptions = Omit<Parameters<typeof presentWithTestWallet>[0], "authorizationRequestUri" | "fetch">;

async function present(
  session: { authorizationRequestUri: string },
  options: Partial<WalletOptions> & { credential: string | string[] },
) {
  return presentWithTestWallet({
    authorizationRequestUri: session.authorizationRequestUri,
    fetch: (input, init) => fetch(input, init),
    holderPrivateKey: holder.privateJwk,
    ...options,
  });
}

/** Starts a session under `policy`, lets the test wallet answer, returns the session as read afterwards. */
async function verifyWith(
  policy: string,
  options: Partial<WalletOptions> & { credential: string | string[] },
) {
  const session = await start(policy);
  const wallet = await present(session, options);
  return { session: await read(session.id), wallet };
}

const reasonCodes = (s: { result?: { reasons?: { code: string }[] } }) =>
  (s.result?.reasons ?? []).map((r) => r.code);

async function events(sessionId: string, type: string) {
  const rows = await prisma.outboxEvent.findMany({ where: { type } });
  return rows.filter(
    (r) => (r.payload as { verificationSessionId?: string }).verificationSessionId === sessionId,
  );
}

beforeAll(async () => {
  t = await startTestServer();
  prisma = t.server.database.prisma;
  holder = await generateEs256KeyPair();
  issuerA = await createIssuer(t.adminKey);
  issuerB = await createIssuer(t.adminKey);
  await createPolicy(policyBody("pid-jwt", { sameDeviceRedirectUri: REDIRECT }));
  await createPolicy(policyBody("pid-plain", { responseMode: "direct_post" }));
  await createPolicy(policyBody("pid-young", {}, { maxCredentialAgeDays: 1 }));
  await createPolicy(policyBody("pid-nostatus", {}, { checkStatus: false }));
});
afterAll(() => t?.close());

describe("full flows with the test wallet over HTTP", () => {
  it("direct_post.jwt (A128GCM): verified, claim-minimised, same-device redirect with a response code", async () => {
    const { credential } = await issue();
    const session = await start("pid-jwt");
    expect(session.status).toBe("pending");
    expect(session.authorizationRequestUri).toMatch(/^openid4vp:\/\/\?client_id=x509_hash%3A/);
    const wallet = await present(session, { credential, enc: "A128GCM" });
    expect(wallet.status).toBe(200);
    expect(wallet.request.response_mode).toBe("direct_post.jwt");
    expect(wallet.request.response_uri).toBe(`${t.baseUrl}/verifier/responses/${wallet.request.state}`);
    const redirect = (wallet.body as { redirect_uri: string }).redirect_uri;
    expect(redirect).toMatch(new RegExp(`^${REDIRECT}#response_code=[A-Za-z0-9_-]{43}$`));

    const after = await read(session.id);
    expect(after.status).toBe("verified");
    expect(after.result.outcome).toBe("verified");
    expect(after.result.credentials).toHaveLength(1);
    const [vc] = after.result.credentials;
    expect(vc.credentialType).toBe(issuerA.vct);
    expect(vc.issuer).toBe(issuerA.credentialIssuer);
    expect(vc.issuerId).toBe(issuerA.issuerId);
    expect(vc.claims).toEqual({ given_name: "Erika", family_name: "Mustermann", age_over_18: true });
    expect(vc.checks).toEqual({
      issuerSignature: "passed",
      disclosures: "passed",
      validityPeriod: "passed",
      holderBinding: "passed",
      issuerTrusted: "passed",
      credentialAge: "skipped",
      status: "passed",
    });
    expect(await events(session.id, "verification.session.created")).toHaveLength(1);
    const verifiedEvents = await events(session.id, "verification.session.verified");
    expect(verifiedEvents).toHaveLength(1);
    expect(JSON.stringify(verifiedEvents[0]!.payload)).not.toContain("Erika");

    // The response code the redirect carried belongs to this session (Verifications_Get checks it).
    const code = redirect.split("#response_code=")[1]!;
    const ok = await call(t, "GET", `/v1.0/verifications/${session.id}?responseCode=${code}`, {
      key: t.adminKey,
    });
    expect(ok.status).toBe(200);
    const bad = await call(t, "GET", `/v1.0/verifications/${session.id}?responseCode=nope`, {
      key: t.adminKey,
    });
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe("ValidationFailed");
    // The raw presentation and the per-session key are not kept.
    const row = await prisma.verificationSession.findUniqueOrThrow({ where: { id: session.id } });
    expect(row.encryptionKeyCipher).toBeNull();
    expect(JSON.stringify(row)).not.toContain(credential.split("~")[0]!);
    expect(JSON.stringify(row)).not.toContain("Erika");
  });

  it("requireResponseCode: the result only for a read with the redirect's response code", async () => {
    await createPolicy(
      policyBody("pid-code", { sameDeviceRedirectUri: REDIRECT, requireResponseCode: true }),
    );
    const { credential } = await issue();
    const session = await start("pid-code");
    const pending = await call(t, "GET", `/v1.0/verifications/${session.id}`, { key: t.adminKey });
    expect(pending.body.data).not.toHaveProperty("resultWithheld");
    const wallet = await present(session, { credential });
    const code = (wallet.body as { redirect_uri: string }).redirect_uri.split("#response_code=")[1]!;

    const get = (query = "") =>
      call(t, "GET", `/v1.0/verifications/${session.id}${query}`, { key: t.adminKey });
    for (const withheld of [(await get()).body.data, await read(session.id)]) {
      expect(withheld.status).toBe("verified");
      expect(withheld.resultWithheld).toBe(true);
      expect(withheld).not.toHaveProperty("result");
    }
    const shown = await get(`?responseCode=${code}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data.result.credentials[0].claims.given_name).toBe("Erika");
    expect(shown.body.data).not.toHaveProperty("resultWithheld");
    expect(errorCode(await get("?responseCode=nope"))).toBe("ValidationFailed");

    // A session decided through the legacy submission has no code to ask for: its result shows.
    const submitted = await start("pid-code");
    const { credential: again } = await issue();
    const credentialId = await recordCredential(issuerA, again);
    const clientId = new URL(submitted.authorizationRequestUri).searchParams.get("client_id")!;
    const { payload } = await verifyRequestObject(await (await fetch(submitted.requestUri)).text(), {
      clientId,
    });
    const sdJwtVc = await createTestPresentation({
      credential: again,
      disclose: (name) => name === "given_name" || name === "age_over_18",
      holderPrivateKey: holder.privateJwk,
      aud: clientId,
      nonce: String(payload.nonce),
      iat: Math.floor(Date.now() / 1000),
    });
    const decided = await call(t, "POST", `/v1.0/verification-sessions/${submitted.id}/submissions`, {
      key: t.adminKey,
      body: { credentialId, sdJwtVc },
    });
    expect(decided.body.data.status, JSON.stringify(decided.body)).toBe("verified");
    expect((await read(submitted.id)).result.outcome).toBe("verified");

    // A policy without the switch shows the result to any read, as before.
    const plain = await start("pid-jwt");
    await present(plain, { credential: (await issue()).credential });
    expect((await read(plain.id)).result.outcome).toBe("verified");
  });

  it("direct_post.jwt with A256GCM and request_uri_method=post (wallet_nonce echoed)", async () => {
    const { credential } = await issue();
    const session = await start("pid-jwt");
    expect(session.authorizationRequestUri).toContain("request_uri_method=post");
    // Standard base64, as the EUDI reference wallet sends it: echoed exactly.
    const walletNonce = "kxbJ//QQ/qheqcBnVzjZPg==";
    const wallet = await present(session, { credential, enc: "A256GCM", walletNonce });
    expect(wallet.status).toBe(200);
    expect(wallet.request.wallet_nonce).toBe(walletNonce);
    expect((await read(session.id)).status).toBe("verified");
  });

  it("serves the request object: typ, x5c, client_id, DCQL from the policy, client_metadata", async () => {
    const session = await start("pid-jwt");
    const res = await fetch(session.requestUri);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/oauth-authz-req+jwt");
    expect(res.headers.get("x-ms-request-id")).toBeTruthy();
    const clientId = new URL(session.authorizationRequestUri).searchParams.get("client_id")!;
    const { payload, header } = await verifyRequestObject(await res.text(), { clientId });
    expect(header.typ).toBe("oauth-authz-req+jwt");
    expect(payload.response_type).toBe("vp_token");
    expect(String(payload.nonce).length).toBeGreaterThanOrEqual(22);
    const query = payload.dcql_query as any;
    expect(query.credentials[0]).toMatchObject({
      id: "pid",
      format: "dc+sd-jwt",
      meta: { vct_values: [issuerA.vct] },
      require_cryptographic_holder_binding: true,
    });
    expect(query.credentials[0].claim_sets).toHaveLength(2);
    const metadata = payload.client_metadata as any;
    expect(metadata.vp_formats_supported["dc+sd-jwt"]).toBeTruthy();
    expect(metadata.encrypted_response_enc_values_supported).toEqual(["A128GCM", "A256GCM"]);
    expect(metadata.jwks.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ECDH-ES" });
    expect(metadata.jwks.keys[0].d).toBeUndefined();
    // Fresh nonce and state per session.
    const other = await start("pid-jwt");
    expect(other.requestUri).not.toBe(session.requestUri);
  });

  it("direct_post (plain): verified, answers {} without a redirect", async () => {
    const { credential } = await issue();
    const { session, wallet } = await verifyWith("pid-plain", { credential });
    expect(wallet.request.response_mode).toBe("direct_post");
    expect(wallet.status).toBe(200);
    expect(wallet.body).toEqual({});
    expect(session.status).toBe("verified");
  });

  it("a wallet's access_denied rejects the session with the reason", async () => {
    const { session, wallet } = await verifyWith("pid-jwt", {
      credential: (await issue()).credential,
      error: { error: "access_denied", errorDescription: "the holder declined" },
    });
    expect(wallet.status).toBe(200);
    expect(session.status).toBe("rejected");
    expect(session.result.reasons).toEqual([{ code: "access_denied", message: "the holder declined" }]);
    expect(await events(session.id, "verification.session.rejected")).toHaveLength(1);
  });

  it("a decided session refuses a second answer (OAuth error shape)", async () => {
    const { credential } = await issue();
    const session = await start("pid-plain");
    expect((await present(session, { credential })).status).toBe(200);
    const again = await present(session, { credential }).catch((e: Error) => e);
    // The request object is gone once decided (404), so the wallet aborts.
    expect(again).toBeInstanceOf(Error);
    const state = new URL(session.requestUri).pathname.split("/").pop()!;
    const post = await fetch(`${t.baseUrl}/verifier/responses/${state}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ vp_token: "{}", state }).toString(),
    });
    expect(post.status).toBe(400);
    expect(await post.json()).toMatchObject({ error: "invalid_request" });
  });

  it("addresses the request object to the wallet's issuer when the wallet posts its metadata (§5.8)", async () => {
    const session = await start("pid-plain");
    const post = (form: Record<string, string>) =>
      fetch(session.requestUri, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form).toString(),
      }).then(async (r) => JSON.parse(Buffer.from((await r.text()).split(".")[1]!, "base64url").toString()));
    const discovered = await post({
      wallet_metadata: JSON.stringify({ issuer: "https://wallet.example", vp_formats_supported: {} }),
    });
    expect(discovered.aud).toBe("https://wallet.example");
    expect((await post({ wallet_nonce: "n-1" })).aud).toBe("https://self-issued.me/v2");
  });

  it("request_uri POST takes a form only, and a wallet_metadata that is a JSON object (§5.10.1)", async () => {
    const session = await start("pid-plain");
    const post = (init: { body?: string; type?: string }) =>
      fetch(session.requestUri, {
        method: "POST",
        headers: init.type ? { "content-type": init.type } : {},
        ...(init.body !== undefined ? { body: init.body } : {}),
      });
    const form = "application/x-www-form-urlencoded";
    const refused = [
      { body: JSON.stringify({ wallet_nonce: "n-1" }), type: "application/json" },
      { body: "wallet_nonce=n-1", type: "text/plain" },
      {},
      ...["{", "not json", "[]", '"https://wallet.example"', "null", "7"].map((metadata) => ({
        body: new URLSearchParams({ wallet_nonce: "n-1", wallet_metadata: metadata }).toString(),
        type: form,
      })),
    ];
    for (const init of refused) {
      const r = await post(init);
      expect(r.status, JSON.stringify(init)).toBe(400);
      expect(r.headers.get("cache-control")).toBe("no-store");
      expect(await r.json(), JSON.stringify(init)).toEqual({
        error: "invalid_request",
        error_description: expect.any(String),
      });
    }
    // Nothing changed: the session is pending and serves its request object to a well-formed POST.
    expect((await read(session.id)).status).toBe("pending");
    const good = await post({ body: new URLSearchParams({ wallet_metadata: "{}" }).toString(), type: form });
    expect(good.status).toBe(200);
    expect(good.headers.get("content-type")).toContain("application/oauth-authz-req+jwt");
  });

  it("rejects malformed wallet posts with 400 invalid_request and leaves the session pending", async () => {
    const session = await start("pid-plain");
    const state = new URL(session.requestUri).pathname.split("/").pop()!;
    const post = (body: string, type = "application/x-www-form-urlencoded") =>
      fetch(`${t.baseUrl}/verifier/responses/${state}`, {
        method: "POST",
        headers: { "content-type": type },
        body,
      });
    for (const body of [
      "vp_token=notjson",
      "state=abc",
      `vp_token=${encodeURIComponent('{"pid":["x~"]}')}&state=wrong`,
    ]) {
      const r = await post(body);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toBe("invalid_request");
    }
    // Bodies the server cannot even parse answer in the same shape, not the REST envelope.
    for (const [body, type] of [
      ["{", "application/json"],
      ["<a/>", "application/xml"],
    ]) {
      const r = await post(body!, type);
      expect(r.status).toBe(400);
      expect(await r.json()).toEqual({ error: "invalid_request", error_description: expect.any(String) });
    }
    expect((await read(session.id)).status).toBe("pending");
    const unknown = await fetch(`${t.baseUrl}/verifier/requests/${"x".repeat(43)}`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toBe("invalid_request");
  });

  it("trusts an external issuer under an X.509 root (x5c chain), with trusted_authorities aki in the query", async () => {
    const chain = await generateVerifierCertificate({ dnsName: "issuer.example.com" });
    const vct = "https://issuer.example.com/pid";
    await createPolicy({
      identifier: "x5c-pid",
      displayName: "x5c",
      responseMode: "direct_post",
      credentials: [
        {
          id: "pid",
          credentialTypes: [vct],
          trustedIssuers: [{ x5cRoot: chain.caCertificatePem }],
          requiredClaims: [["given_name"]],
        },
      ],
    });
    const now = Math.floor(Date.now() / 1000);
    const credential = await issueSdJwtVc({
      privateKey: await importEs256PrivateKey(chain.privateKeyJwk),
      x5c: chain.x5c,
      iss: "https://issuer.example.com",
      vct,
      iat: now,
      exp: now + 3600,
      cnfJwk: holder.publicJwk,
      claims: { given_name: "Erika" },
      disclosable: [["given_name"]],
    });
    const { session, wallet } = await verifyWith("x5c-pid", { credential });
    expect((wallet.request.dcql_query as any).credentials[0].trusted_authorities[0].type).toBe("aki");
    expect(session.status, JSON.stringify(session.result)).toBe("verified");
    expect(session.result.credentials[0]).toMatchObject({ issuerId: null, claims: { given_name: "Erika" } });

    // Without iss (SD-JWT VC §2.2.2.3: the leaf certificate names the issuer) it is trusted all the same,
    // and reported under the leaf's subject; an iss the leaf does not name is not.
    const issueUnderRoot = (iss: string | undefined) =>
      issueSdJwtVc({
        privateKey: chainKey,
        x5c: chain.x5c,
        ...(iss === undefined ? {} : { iss }),
        vct,
        iat: now,
        exp: now + 3600,
        cnfJwk: holder.publicJwk,
        claims: { given_name: "Erika" },
        disclosable: [["given_name"]],
      });
    const chainKey = await importEs256PrivateKey(chain.privateKeyJwk);
    const withoutIss = await verifyWith("x5c-pid", { credential: await issueUnderRoot(undefined) });
    expect(withoutIss.session.status, JSON.stringify(withoutIss.session.result)).toBe("verified");
    expect(withoutIss.session.result.credentials[0].issuer).toMatch(/CN=/);
    const misnamed = await verifyWith("x5c-pid", {
      credential: await issueUnderRoot("https://other.example.com"),
    });
    expect(misnamed.session.status).toBe("rejected");

    // A chain under another root is not trusted.
    const other = await generateVerifierCertificate({ dnsName: "issuer.example.com" });
    const forged = await issueSdJwtVc({
      privateKey: await importEs256PrivateKey(other.privateKeyJwk),
      x5c: other.x5c,
      iss: "https://issuer.example.com",
      vct,
      iat: now,
      exp: now + 3600,
      cnfJwk: holder.publicJwk,
      claims: { given_name: "Erika" },
      disclosable: [["given_name"]],
    });
    const rejected = await verifyWith("x5c-pid", { credential: forged });
    expect(rejected.session.status).toBe("rejected");
    expect(reasonCodes(rejected.session)).toContain("unknown_issuer_key");
  });
});

describe("engine negatives (one per check)", () => {
  const expectRejected = async (
    policy: string,
    options: Partial<WalletOptions> & { credential: string | string[] },
    code: string,
  ) => {
    const { session, wallet } = await verifyWith(policy, options);
    expect(wallet.status).toBe(200);
    expect(session.status).toBe("rejected");
    expect(reasonCodes(session)).toContain(code);
    expect(session.result.credentials).toEqual([]);
    return session;
  };

  it("bad issuer signature", async () => {
    const { credential } = await issue();
    const [jws, ...rest] = credential.split("~");
    const [h, p, s] = jws!.split(".");
    const flipped = `${s!.slice(0, 10)}${s![10] === "A" ? "B" : "A"}${s!.slice(11)}`;
    await expectRejected(
      "pid-jwt",
      { credential: [`${h}.${p}.${flipped}`, ...rest].join("~") },
      "invalid_issuer_signature",
    );
  });

  it("bad key-binding signature (KB-JWT not signed by the cnf key)", async () => {
    const other = await generateEs256KeyPair();
    await expectRejected(
      "pid-jwt",
      { credential: (await issue()).credential, holderPrivateKey: other.privateJwk },
      "invalid_kb_signature",
    );
  });

  it("wrong aud", async () => {
    await expectRejected(
      "pid-jwt",
      { credential: (await issue()).credential, keyBindingOverrides: { aud: "x509_hash:someone-else" } },
      "kb_audience_mismatch",
    );
  });

  it("wrong nonce", async () => {
    await expectRejected(
      "pid-jwt",
      {
        credential: (await issue()).credential,
        keyBindingOverrides: { nonce: "not-the-request-nonce-0000" },
      },
      "kb_nonce_mismatch",
    );
  });

  it("stale iat", async () => {
    await expectRejected(
      "pid-jwt",
      { credential: (await issue()).credential, now: () => Math.floor(Date.now() / 1000) - 3600 },
      "kb_iat_out_of_window",
    );
  });

  it("wrong sd_hash", async () => {
    await expectRejected(
      "pid-jwt",
      { credential: (await issue()).credential, keyBindingOverrides: { sd_hash: "AAAA" } },
      "kb_sd_hash_mismatch",
    );
  });

  it("missing key binding when the policy requires it", async () => {
    await expectRejected(
      "pid-jwt",
      { credential: (await issue()).credential, withoutKeyBinding: true },
      "key_binding_missing",
    );
  });

  it("tampered disclosure", async () => {
    const { credential } = await issue();
    const parts = credential.split("~");
    const i = parts.findIndex(
      (d, j) => j > 0 && d && JSON.parse(Buffer.from(d, "base64url").toString())[1] === "given_name",
    );
    const [salt] = JSON.parse(Buffer.from(parts[i]!, "base64url").toString());
    parts[i] = Buffer.from(JSON.stringify([salt, "given_name", "Mallory"])).toString("base64url");
    await expectRejected("pid-jwt", { credential: parts.join("~") }, "invalid_disclosure");
  });

  it("revoked (status list bit set)", async () => {
    const { credential, idx } = await issue();
    await setRevoked(issuerA, idx);
    await expectRejected("pid-jwt", { credential }, "credential_revoked");
    // The same credential passes when the policy does not check status.
    const { session } = await verifyWith("pid-nostatus", { credential });
    expect(session.status).toBe("verified");
    expect(session.result.credentials[0].checks.status).toBe("skipped");
  });

  it("revoked through Credentials_Revoke takes effect for the very next verification", async () => {
    const { credential, idx } = await issue();
    const credentialId = await recordCredential(issuerA, credential, { idx });
    const before = await verifyWith("pid-jwt", { credential });
    expect(before.session.status).toBe("verified");
    const revoke = await call(t, "POST", `/v1.0/credentials/${credentialId}/revoke`, { key: t.adminKey });
    expect(revoke.status, JSON.stringify(revoke.body)).toBe(200);
    await expectRejected("pid-jwt", { credential }, "credential_revoked");
  });

  it("expired", async () => {
    const now = Math.floor(Date.now() / 1000);
    const { credential } = await issue({ iat: now - 7200, exp: now - 3600 });
    await expectRejected("pid-jwt", { credential }, "expired");
  });

  it("older than maxCredentialAgeDays", async () => {
    const now = Math.floor(Date.now() / 1000);
    const { credential } = await issue({ iat: now - 3 * 86_400 });
    await expectRejected("pid-young", { credential }, "credential_too_old");
    const fresh = await verifyWith("pid-young", { credential: (await issue()).credential });
    expect(fresh.session.status).toBe("verified");
  });

  it("untrusted issuer (a platform issuer the policy does not list)", async () => {
    const { credential } = await issue({ issuer: { ...issuerB, vct: issuerA.vct } });
    await expectRejected("pid-jwt", { credential }, "unknown_issuer_key");
  });

  it("missing required claim", async () => {
    const { credential } = await issue({ claims: { given_name: "Erika", family_name: "M" } });
    await expectRejected("pid-jwt", { credential }, "missing_required_claims");
  });

  it("over-disclosure never reaches the result", async () => {
    const { session } = await verifyWith("pid-jwt", {
      credential: (await issue()).credential,
      discloseAll: true,
    });
    expect(session.status).toBe("verified");
    expect(session.result.credentials[0].claims).toEqual({
      given_name: "Erika",
      family_name: "Mustermann",
      age_over_18: true,
    });
    expect(JSON.stringify(session)).not.toContain("1984-01-26");
  });
});

describe("reportInvalidPresentationsToWallet (OpenID4VP §8.5)", () => {
  /** The credential with one character of its issuer signature changed. */
  const withBadSignature = (credential: string) => {
    const [jws, ...rest] = credential.split("~");
    const [h, p, sig] = jws!.split(".");
    return [`${h}.${p}.${sig!.slice(0, 10)}${sig![10] === "A" ? "B" : "A"}${sig!.slice(11)}`, ...rest].join(
      "~",
    );
  };

  beforeAll(async () => {
    await createPolicy(
      policyBody("pid-report", { sameDeviceRedirectUri: REDIRECT, reportInvalidPresentationsToWallet: true }),
    );
    await createPolicy(
      policyBody("pid-report-code", {
        sameDeviceRedirectUri: REDIRECT,
        requireResponseCode: true,
        reportInvalidPresentationsToWallet: true,
      }),
    );
  });

  it("is a policy rule: stored when given, false by default, a boolean only", async () => {
    const get = (id: string) =>
      call(t, "GET", `/management/verification-policies/${id}`, { key: t.adminKey });
    expect((await get("pid-report")).body.data.rules.reportInvalidPresentationsToWallet).toBe(true);
    expect((await get("pid-jwt")).body.data.rules.reportInvalidPresentationsToWallet).toBe(false);
    const bad = await call(t, "POST", "/management/verification-policies", {
      key: t.adminKey,
      body: policyBody("pid-report-bad", { reportInvalidPresentationsToWallet: "yes" }),
    });
    expect(bad.status).toBe(400);
    expect(errorCode(bad)).toBe("ValidationFailed");
    expect(JSON.stringify(bad.body.error.details)).toContain("reportInvalidPresentationsToWallet");
  });

  it("answers an integrity or binding failure with 400 invalid_request; the session is rejected as without it", async () => {
    const now = () => Math.floor(Date.now() / 1000);
    const other = await generateEs256KeyPair();
    const cases: [string, (credential: string) => Partial<WalletOptions> & { credential?: string }][] = [
      ["invalid_issuer_signature", (credential) => ({ credential: withBadSignature(credential) })],
      ["invalid_kb_signature", () => ({ holderPrivateKey: other.privateJwk })],
      ["kb_audience_mismatch", () => ({ keyBindingOverrides: { aud: "x509_hash:someone-else" } })],
      ["kb_nonce_mismatch", () => ({ keyBindingOverrides: { nonce: "not-the-request-nonce-0000" } })],
      ["kb_iat_out_of_window", () => ({ now: () => now() - 3600 })],
      ["kb_iat_out_of_window", () => ({ now: () => now() + 3600 })],
      ["kb_sd_hash_mismatch", () => ({ keyBindingOverrides: { sd_hash: "AAAA" } })],
      ["key_binding_missing", () => ({ withoutKeyBinding: true })],
    ];
    for (const [code, options] of cases) {
      const { credential } = await issue();
      for (const policy of ["pid-report", "pid-report-code"]) {
        const { session, wallet } = await verifyWith(policy, { credential, ...options(credential) });
        expect([code, wallet.status], JSON.stringify(wallet.body)).toEqual([code, 400]);
        expect(wallet.body).toEqual({
          error: "invalid_request",
          error_description: expect.stringContaining(code),
        });
        // Decided as under a policy without the switch: rejected, with the reason and the one event.
        expect(session.status).toBe("rejected");
        expect(session.result.credentials).toEqual([]);
        expect(reasonCodes(session)).toContain(code);
        expect(await events(session.id, "verification.session.rejected")).toHaveLength(1);
        // No redirect delivered a response code, so none was issued: the rejection is readable.
        expect(session).not.toHaveProperty("resultWithheld");
        const row = await prisma.verificationSession.findUniqueOrThrow({ where: { id: session.id } });
        expect(row.responseCodeHash).toBeNull();
        // Decided means decided: a second answer is refused as always.
        const state = String(wallet.request.state);
        const again = await fetch(`${t.baseUrl}/verifier/responses/${state}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ error: "access_denied", state }).toString(),
        });
        expect(again.status).toBe(400);
        expect((await read(session.id)).status).toBe("rejected");
      }
    }
    // The same failure under a policy without the switch: 200 and the redirect, as before.
    const { credential } = await issue();
    const { session, wallet } = await verifyWith("pid-jwt", {
      credential,
      keyBindingOverrides: { nonce: "not-the-request-nonce-0000" },
    });
    expect(wallet.status).toBe(200);
    expect((wallet.body as { redirect_uri: string }).redirect_uri).toMatch(/#response_code=/);
    expect(session.status).toBe("rejected");
  });

  it("still answers 200 (and redirects) for a valid presentation, a genuine one the policy refuses, and a wallet's error", async () => {
    const redirected = (wallet: { status: number; body: unknown }) => {
      expect(wallet.status, JSON.stringify(wallet.body)).toBe(200);
      expect((wallet.body as { redirect_uri: string }).redirect_uri).toMatch(
        new RegExp(`^${REDIRECT}#response_code=`),
      );
    };
    const valid = await verifyWith("pid-report", { credential: (await issue()).credential });
    redirected(valid.wallet);
    expect(valid.session.status).toBe("verified");

    const revoked = await issue();
    await setRevoked(issuerA, revoked.idx);
    const unaccepted: [string, string][] = [
      ["credential_revoked", revoked.credential],
      ["missing_required_claims", (await issue({ claims: { given_name: "Erika" } })).credential],
      ["unknown_issuer_key", (await issue({ issuer: { ...issuerB, vct: issuerA.vct } })).credential],
    ];
    for (const [code, credential] of unaccepted) {
      const { session, wallet } = await verifyWith("pid-report", { credential });
      redirected(wallet);
      expect(session.status).toBe("rejected");
      expect(reasonCodes(session)).toContain(code);
    }

    const declined = await verifyWith("pid-report", {
      credential: (await issue()).credential,
      error: { error: "access_denied", errorDescription: "the holder declined" },
    });
    redirected(declined.wallet);
    expect(declined.session.status).toBe("rejected");
  });
});

describe("state machine (spec §3.1)", () => {
  const expire = (id: string) =>
    prisma.verificationSession.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });

  it("pending → read past expiry → expired (persisted once, event once)", async () => {
    const session = await start("pid-jwt");
    await expire(session.id);
    expect((await read(session.id)).status).toBe("expired");
    const viaVerifications = await call(t, "GET", `/v1.0/verifications/${session.id}`, { key: t.adminKey });
    expect(viaVerifications.body.data.status).toBe("expired");
    expect((await prisma.verificationSession.findUniqueOrThrow({ where: { id: session.id } })).status).toBe(
      "expired",
    );
    expect(await events(session.id, "verification.session.expired")).toHaveLength(1);
    // The wallet can no longer fetch the request or answer.
    expect((await fetch(session.requestUri)).status).toBe(404);
  });

  it("pending → cancel → cancelled (200); cancel again → 200 unchanged", async () => {
    const session = await start("pid-jwt");
    const first = await call(t, "POST", `/v1.0/verification-sessions/${session.id}/cancel`, {
      key: t.adminKey,
    });
    expect(first.status).toBe(200);
    expect(first.body.data.status).toBe("cancelled");
    const second = await call(t, "POST", `/v1.0/verification-sessions/${session.id}/cancel`, {
      key: t.adminKey,
    });
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
    expect(await events(session.id, "verification.session.cancelled")).toHaveLength(1);
    expect((await fetch(session.requestUri)).status).toBe(404);
  });

  it.each([
    [
      "verified",
      async () => {
        const s = await start("pid-plain");
        await present(s, { credential: (await issue()).credential });
        return s.id;
      },
    ],
    [
      "rejected",
      async () => {
        const s = await start("pid-plain");
        await present(s, { credential: (await issue()).credential, error: { error: "access_denied" } });
        return s.id;
      },
    ],
    [
      "expired",
      async () => {
        const s = await start("pid-plain");
        await expire(s.id);
        return s.id;
      },
    ],
  ])("%s → cancel → 409, unchanged", async (status, make) => {
    const id = await make();
    const r = await call(t, "POST", `/v1.0/verification-sessions/${id}/cancel`, { key: t.adminKey });
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("InvalidState");
    expect((await read(id)).status).toBe(status);
  });
});

describe("Verifications_Create", () => {
  it("201 at once for a tenant's first verification when it carries an Idempotency-Key", async () => {
    // The verifier identity is not loaded yet for a new tenant; on the embedded database, reading it
    // inside the Idempotency-Key transaction used to wait out that transaction's timeout (15 s, then 500).
    const other = await t.otherTenant();
    const policy = policyBody(
      "first-idem",
      {},
      { trustedIssuers: [{ credentialIssuer: "https://issuer.example" }] },
    );
    const created = await call(t, "POST", "/management/verification-policies", {
      key: other.key,
      body: policy,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const started = Date.now();
    const r = await call(t, "POST", "/v1.0/verifications", {
      key: other.key,
      headers: { "idempotency-key": "first-of-tenant" },
      body: { policy: "first-idem" },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("201 with the session resource; Idempotency-Key replays, other payload → 409", async () => {
    const headers = { "idempotency-key": `k-${Date.now()}` };
    const a = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      headers,
      body: { policy: "pid-jwt" },
    });
    expect(a.status).toBe(201);
    expect(a.body.data).toMatchObject({ status: "pending", policy: "pid-jwt", purpose: "Age check" });
    expect(a.body.data.result).toBeUndefined();
    expect(a.headers.get("x-correlation-id")).toBeTruthy();
    const b = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      headers,
      body: { policy: "pid-jwt" },
    });
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.data.id).toBe(a.body.data.id);
    const c = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      headers,
      body: { policy: "pid-plain" },
    });
    expect(c.status).toBe(409);
    expect(errorCode(c)).toBe("IdempotencyKeyReused");
  });

  it("invocation haip links with haip-vp://, the same parameters; openid (default) with openid4vp://", async () => {
    const plain = await start("pid-jwt", t.adminKey);
    expect(plain.authorizationRequestUri).toMatch(/^openid4vp:\/\/\?client_id=/);
    const haip = await start("pid-jwt", t.adminKey, { invocation: "haip" });
    expect(haip.authorizationRequestUri).toMatch(/^haip-vp:\/\/\?client_id=/);
    const params = (link: string) => [...new URL(link).searchParams.keys()].sort();
    expect(params(haip.authorizationRequestUri)).toEqual(params(plain.authorizationRequestUri));
    expect((await read(haip.id)).authorizationRequestUri).toBe(haip.authorizationRequestUri);
    // A HAIP wallet follows the link as any other.
    const { credential } = await issue();
    expect((await present(haip, { credential })).status).toBe(200);
    expect((await read(haip.id)).status).toBe("verified");
    const bad = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      body: { policy: "pid-jwt", invocation: "haip-vp" },
    });
    expect([bad.status, errorCode(bad)]).toEqual([400, "ValidationFailed"]);
  });

  it("purpose overrides the policy's", async () => {
    const s = await start("pid-jwt", t.adminKey, { purpose: "Entry to the venue" });
    expect((await read(s.id)).purpose).toBe("Entry to the venue");
  });

  it("400 for an unknown policy or an invalid body", async () => {
    const unknown = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      body: { policy: "nope" },
    });
    expect(unknown.status).toBe(400);
    expect(errorCode(unknown)).toBe("UnknownPolicy");
    const invalid = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      body: { policy: "pid-jwt", x: 1 },
    });
    expect(invalid.status).toBe(400);
    expect(errorCode(invalid)).toBe("ValidationFailed");
    const missing = await call(t, "POST", "/v1.0/verifications", { key: t.adminKey, body: {} });
    expect(missing.status).toBe(400);
  });

  it("409 for a suspended policy", async () => {
    await createPolicy(policyBody("to-suspend"));
    const s = await call(t, "POST", "/management/verification-policies/to-suspend/suspend", {
      key: t.adminKey,
    });
    expect(s.status).toBe(200);
    const r = await call(t, "POST", "/v1.0/verifications", {
      key: t.adminKey,
      body: { policy: "to-suspend" },
    });
    expect(r.status).toBe(409);
    expect(errorCode(r)).toBe("PolicySuspended");
  });

  it("401 without a key, 403 without verification.execute; a policy of another tenant is unknown", async () => {
    expect((await call(t, "POST", "/v1.0/verifications", { body: { policy: "pid-jwt" } })).status).toBe(401);
    const readOnly = await t.key({ scopes: ["verification.read"] });
    const r = await call(t, "POST", "/v1.0/verifications", { key: readOnly, body: { policy: "pid-jwt" } });
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe("MissingScope");
    const other = await t.otherTenant();
    const foreign = await call(t, "POST", "/v1.0/verifications", {
      key: other.key,
      body: { policy: "pid-jwt" },
    });
    expect(foreign.status).toBe(400);
    expect(errorCode(foreign)).toBe("UnknownPolicy");
  });
});

describe("Verifications_Get / VerificationSessions_Get", () => {
  it("return the same resource", async () => {
    const s = await start("pid-jwt");
    const a = await call(t, "GET", `/v1.0/verifications/${s.id}`, { key: t.adminKey });
    const b = await call(t, "GET", `/v1.0/verification-sessions/${s.id}`, { key: t.adminKey });
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
    expect(a.body.data).toEqual(s);
  });

  it("404 unknown, cross-tenant and cross-environment; 401; 403 without verification.read", async () => {
    const s = await start("pid-jwt");
    const other = await t.otherTenant();
    const production = await t.key({ environment: "production" });
    const executeOnly = await t.key({ scopes: ["verification.execute"] });
    for (const path of [`/v1.0/verifications/${s.id}`, `/v1.0/verification-sessions/${s.id}`]) {
      for (const key of [other.key, production]) {
        const r = await call(t, "GET", path, { key });
        expect(r.status).toBe(404);
        expect(errorCode(r)).toBe("NotFound");
      }
      expect((await call(t, "GET", path, {})).status).toBe(401);
      const forbidden = await call(t, "GET", path, { key: executeOnly });
      expect(forbidden.status).toBe(403);
    }
    const unknown = await call(t, "GET", "/v1.0/verification-sessions/vs_unknown", { key: t.adminKey });
    expect(unknown.status).toBe(404);
    // However long, an id that names nothing is a 404 (the operations list no 400).
    const long = `/v1.0/verification-sessions/vs_${"x".repeat(80)}`;
    expect((await call(t, "GET", long, { key: t.adminKey })).status).toBe(404);
    expect((await call(t, "POST", `${long}/cancel`, { key: t.adminKey })).status).toBe(404);
  });
});

describe("VerificationSessions_Cancel", () => {
  it("401, 403 (needs verification.execute), 404 cross-tenant", async () => {
    const s = await start("pid-jwt");
    const path = `/v1.0/verification-sessions/${s.id}/cancel`;
    expect((await call(t, "POST", path, {})).status).toBe(401);
    const readOnly = await t.key({ scopes: ["verification.read"] });
    expect((await call(t, "POST", path, { key: readOnly })).status).toBe(403);
    const other = await t.otherTenant();
    expect((await call(t, "POST", path, { key: other.key })).status).toBe(404);
    expect((await read(s.id)).status).toBe("pending");
  });
});

describe("VerificationSessions_Submit (legacy)", () => {
  /** What a server-to-server caller does: read nonce and client_id from the request object, present. */
  async function legacyPresentation(
    session: { authorizationRequestUri: string; requestUri: string },
    credential: string,
    overrides?: Record<string, unknown>,
  ) {
    const clientId = new URL(session.authorizationRequestUri).searchParams.get("client_id")!;
    const { payload } = await verifyRequestObject(await (await fetch(session.requestUri)).text(), {
      clientId,
    });
    const names = new Set(["given_name", "age_over_18", "family_name"]);
    const sdJwtVc = await createTestPresentation({
      credential,
      disclose: (name) => names.has(name),
      holderPrivateKey: holder.privateJwk,
      aud: clientId,
      nonce: String(payload.nonce),
      iat: Math.floor(Date.now() / 1000),
      ...(overrides ? { overrides } : {}),
    });
    return { clientId, sdJwtVc, payload };
  }
  const submit = (id: string, body: unknown, key: string | null = t.adminKey) =>
    call(t, "POST", `/v1.0/verification-sessions/${id}/submissions`, { key, body });

  it("200 verified through the same engine; a second submission → 409", async () => {
    const { credential } = await issue();
    const credentialId = await recordCredential(issuerA, credential);
    const session = await start("pid-jwt");
    const { clientId, sdJwtVc } = await legacyPresentation(session, credential);
    const r = await submit(session.id, { credentialId, sdJwtVc, audience: clientId });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.status).toBe("verified");
    expect(r.body.data.result.credentials[0].claims).toEqual({
      given_name: "Erika",
      family_name: "Mustermann",
      age_over_18: true,
    });
    expect((await read(session.id)).status).toBe("verified");
    const again = await submit(session.id, { credentialId, sdJwtVc });
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe("InvalidState");
    // The wallet cannot answer it either.
    const state = new URL(session.requestUri).pathname.split("/").pop()!;
    const wallet = await fetch(`${t.baseUrl}/verifier/responses/${state}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ response: "a.b.c.d.e", state }).toString(),
    });
    expect(wallet.status).toBe(400);
  });

  it("holds a submission to the request's transaction data like a wallet's answer", async () => {
    const transactionData = [{ type: "https://pay.example/payment", credentialIds: ["pid"] }];
    for (const authorise of [false, true]) {
      const { credential } = await issue();
      const credentialId = await recordCredential(issuerA, credential);
      const session = await start("pid-jwt", t.adminKey, { transactionData });
      const clientId = new URL(session.authorizationRequestUri).searchParams.get("client_id")!;
      const { payload } = await verifyRequestObject(await (await fetch(session.requestUri)).text(), {
        clientId,
      });
      const hashes = (payload.transaction_data as string[]).map((v) =>
        createHash("sha256").update(v).digest("base64url"),
      );
      const { sdJwtVc } = await legacyPresentation(
        session,
        credential,
        authorise ? { transaction_data_hashes: hashes } : undefined,
      );
      const r = await submit(session.id, { credentialId, sdJwtVc, audience: clientId });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data.status).toBe(authorise ? "verified" : "rejected");
      if (!authorise) expect(reasonCodes(r.body.data)).toEqual(["transaction_data_not_authorized"]);
    }
  });

  it("answers the policy credential of a type the presentation names in aka_vcts, not only by vct", async () => {
    await createPolicy({
      identifier: "pid-or-other",
      displayName: "pid-or-other",
      credentials: [
        { id: "other", credentialTypes: [issuerB.vct], trustedIssuers: [{ issuerId: issuerB.issuerId }] },
        {
          id: "pid",
          credentialTypes: [issuerA.vct],
          trustedIssuers: [{ issuerId: issuerA.issuerId }],
          requiredClaims: [["given_name"]],
        },
      ],
      credentialSets: [{ options: [["other"], ["pid"]] }],
    });
    const now = Math.floor(Date.now() / 1000);
    // A derived type whose issuer signed it as also being the policy's pid type (SD-JWT VC aka_vcts).
    const credential = await issueSdJwtVc({
      privateKey: issuerA.privateKey,
      kid: issuerA.kid,
      iss: issuerA.credentialIssuer,
      vct: `${issuerA.vct}/regional`,
      iat: now,
      exp: now + 86_400,
      cnfJwk: holder.publicJwk,
      claims: { ...CLAIMS, aka_vcts: [issuerA.vct] },
      disclosable: Object.keys(CLAIMS).map((k) => [k]),
    });
    const credentialId = await recordCredential(issuerA, credential);
    const session = await start("pid-or-other");
    const { sdJwtVc } = await legacyPresentation(session, credential);
    const r = await submit(session.id, { credentialId, sdJwtVc });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.status, JSON.stringify(r.body.data.result)).toBe("verified");
    expect(r.body.data.result.credentials[0]).toMatchObject({
      credentialQueryId: "pid",
      claims: { given_name: "Erika" },
    });
  });

  it("a failing presentation rejects the session (200, rejected with reasons)", async () => {
    const { credential, idx } = await issue();
    await setRevoked(issuerA, idx);
    const credentialId = await recordCredential(issuerA, credential);
    const session = await start("pid-jwt");
    const { sdJwtVc } = await legacyPresentation(session, credential);
    const r = await submit(session.id, { credentialId, sdJwtVc });
    expect(r.status).toBe(200);
    expect(r.body.data.status).toBe("rejected");
    expect(reasonCodes(r.body.data)).toContain("credential_revoked");
  });

  it("400 when credentialId does not name the presented credential or audience is not the client_id", async () => {
    const { credential } = await issue();
    const credentialId = await recordCredential(issuerA, credential);
    const otherId = await recordCredential(issuerA, (await issue()).credential);
    const session = await start("pid-jwt");
    const { sdJwtVc } = await legacyPresentation(session, credential);
    const wrongCredential = await submit(session.id, { credentialId: otherId, sdJwtVc });
    expect(wrongCredential.status).toBe(400);
    expect(wrongCredential.body.error.details[0].code).toBe("CredentialMismatch");
    const unknownCredential = await submit(session.id, { credentialId: "cred_nope", sdJwtVc });
    expect(unknownCredential.status).toBe(400);
    const wrongAudience = await submit(session.id, { credentialId, sdJwtVc, audience: "x509_hash:other" });
    expect(wrongAudience.status).toBe(400);
    expect(wrongAudience.body.error.details[0].code).toBe("AudienceMismatch");
    const invalid = await submit(session.id, { credentialId });
    expect(invalid.status).toBe(400);
    expect((await read(session.id)).status).toBe("pending");
  });

  it("401, 403, 404 (cross-tenant), 409 on a cancelled session", async () => {
    const { credential } = await issue();
    const credentialId = await recordCredential(issuerA, credential);
    const session = await start("pid-jwt");
    const body = { credentialId, sdJwtVc: credential };
    expect((await submit(session.id, body, null)).status).toBe(401);
    expect((await submit(session.id, body, await t.key({ scopes: ["verification.read"] }))).status).toBe(403);
    expect((await submit(session.id, body, (await t.otherTenant()).key)).status).toBe(404);
    expect((await submit("vs_unknown", body)).status).toBe(404);
    await call(t, "POST", `/v1.0/verification-sessions/${session.id}/cancel`, { key: t.adminKey });
    const cancelled = await submit(session.id, body);
    expect(cancelled.status).toBe(409);
  });
});

describe("external issuers over the network (engine, loopback servers allowed in development mode)", () => {
  let server: http.Server;
  let base: string;
  const routes = new Map<string, { type: string; body: string; status?: number }>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const route = routes.get(req.url ?? "");
      if (!route) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(route.status ?? 200, { "content-type": route.type }).end(route.body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** An engine session for one `pid` credential of type `vct` from these JWKS, its status checked. */
  type Keys = Awaited<ReturnType<typeof generateEs256KeyPair>>;
  /** A credential of `vct` from https://external.example, signed by `keys` under their kid, valid an hour. */
  const externalCredential = (
    keys: Keys,
    vct: string,
    extra: Partial<Parameters<typeof issueSdJwtVc>[0]> = {},
  ) => {
    const now = Math.floor(Date.now() / 1000);
    return issueSdJwtVc({
      privateKey: keys.privateKey,
      kid: keys.publicJwk.kid!,
      iss: "https://external.example",
      vct,
      iat: now,
      exp: now + 3600,
      claims: { given_name: "Erika" },
      disclosable: [["given_name"]],
      ...extra,
    });
  };

  const statusCheckedSession = (vct: string, jwksUris: string[]) => ({
    scope: { tenantId: t.tenantId, environment: "sandbox" as const },
    rules: {
      credentials: [
        {
          id: "pid",
          credentialTypes: [vct],
          trustedIssuers: jwksUris.map((jwksUri) => ({ jwksUri })),
          requiredClaims: [["given_name"]],
          optionalClaims: [],
          holderBindingRequired: false,
          checkStatus: true,
          maxCredentialAgeDays: null,
          acceptExtendedTypes: false,
        },
      ],
      credentialSets: null,
      responseMode: "direct_post" as const,
      sessionLifetimeSeconds: 600,
      clientIdPrefix: "x509_hash" as const,
      sameDeviceRedirectUri: null,
      requireResponseCode: false,
      reportInvalidPresentationsToWallet: false,
      verifierInfo: null,
    },
    clientId: "x509_hash:abc",
    nonce: "n".repeat(43),
  });

  it("a credential signed without kid (SD-JWT VC §3.2 only recommends one) takes a pinned JWKS's only key", async () => {
    const [only, other] = await Promise.all([generateEs256KeyPair(), generateEs256KeyPair()]);
    const { kid: _kid, ...withoutKid } = only.publicJwk;
    // Served with 203: any 2xx is a success for a fetch (Token Status List §8.1 says so for lists).
    routes.set("/jwks-one", {
      type: "application/json",
      body: JSON.stringify({ keys: [withoutKid] }),
      status: 203,
    });
    routes.set("/jwks-two", {
      type: "application/json",
      body: JSON.stringify({ keys: [only.publicJwk, other.publicJwk] }),
    });
    const vct = "https://external.example/nokid";
    const now = Math.floor(Date.now() / 1000);
    const issuerJwt = await new SignJWT({
      iss: "https://external.example",
      vct,
      iat: now,
      exp: now + 3600,
      given_name: "Erika",
    })
      .setProtectedHeader({ alg: "ES256", typ: "dc+sd-jwt" })
      .sign(only.privateKey);
    const sessionFor = (jwksUri: string) => {
      const session = statusCheckedSession(vct, [jwksUri]);
      session.rules.credentials[0]!.checkStatus = false;
      return session;
    };
    const one = await runVerificationEngine(t.server.deps, sessionFor(`${base}/jwks-one`), {
      pid: [`${issuerJwt}~`],
    });
    expect(one.outcome, JSON.stringify(one.reasons)).toBe("verified");
    // Two keys and no kid to choose: none is taken.
    const two = await runVerificationEngine(t.server.deps, sessionFor(`${base}/jwks-two`), {
      pid: [`${issuerJwt}~`],
    });
    expect(two.outcome).toBe("rejected");
  });

  it("discards a failing presentation and decides on the rest (OpenID4VP §8.6), reporting why", async () => {
    const [trusted, stranger] = await Promise.all([generateEs256KeyPair(), generateEs256KeyPair()]);
    routes.set("/jwks-discard", {
      type: "application/json",
      body: JSON.stringify({ keys: [trusted.publicJwk] }),
    });
    const vct = "https://external.example/discard";
    const signedBy = (key: typeof trusted) => externalCredential(key, vct);
    const template = statusCheckedSession(vct, [`${base}/jwks-discard`]);
    const pid = { ...template.rules.credentials[0]!, checkStatus: false };
    const session = {
      ...template,
      rules: {
        ...template.rules,
        credentials: [pid, { ...pid, id: "extra" }],
        // pid is required; extra is welcome but optional.
        credentialSets: [
          { options: [["pid"]], required: true },
          { options: [["extra"]], required: false },
        ],
      },
    };
    const result = await runVerificationEngine(t.server.deps, session, {
      pid: [await signedBy(trusted)],
      extra: [await signedBy(stranger)],
    });
    expect(result.outcome, JSON.stringify(result.reasons)).toBe("verified");
    expect(result.credentials.map((c) => c.credentialQueryId)).toEqual(["pid"]);
    expect(result.reasons?.map((r) => r.code)).toContain("unknown_issuer_key");
    // Without the required one, the rest cannot decide for it.
    const missing = await runVerificationEngine(t.server.deps, session, {
      pid: [await signedBy(stranger)],
      extra: [await signedBy(trusted)],
    });
    expect(missing.outcome).toBe("rejected");
  });

  it("pinned JWKS by kid, remote status list (verified, then revoked after the cache ttl)", async () => {
    const issuerKeys = await generateEs256KeyPair();
    const kid = issuerKeys.publicJwk.kid!;
    routes.set("/jwks", { type: "application/json", body: JSON.stringify({ keys: [issuerKeys.publicJwk] }) });
    const bytes = new Uint8Array(16);
    const statusUri = `${base}/status/1`;
    const publishStatus = async (ttl: number) =>
      routes.set("/status/1", {
        type: "application/statuslist+jwt",
        body: await signStatusListToken({
          privateKey: issuerKeys.privateKey,
          kid,
          sub: statusUri,
          iat: Math.floor(Date.now() / 1000),
          ttl,
          bits: 1,
          bytes,
        }),
      });
    await publishStatus(1);
    const vct = "https://external.example/pid";
    const credential = await externalCredential(issuerKeys, vct, {
      status: { idx: 5, uri: statusUri },
      claims: { given_name: "Erika", secret: "x" },
      disclosable: [["given_name"], ["secret"]],
    });
    const session = statusCheckedSession(vct, [`${base}/jwks`]);
    const presentation = `${credential}`;
    const ok = await runVerificationEngine(t.server.deps, session, { pid: [presentation] });
    expect(ok.outcome, JSON.stringify(ok.reasons)).toBe("verified");
    expect(ok.credentials[0]).toMatchObject({ issuerId: null, claims: { given_name: "Erika" } });
    expect(ok.credentials[0]!.checks.status).toBe("passed");

    bytes[0] = 0b0010_0000; // idx 5 revoked
    await publishStatus(1);
    await new Promise((r) => setTimeout(r, 1100));
    const revoked = await runVerificationEngine(t.server.deps, session, { pid: [presentation] });
    expect(revoked.outcome).toBe("rejected");
    expect(revoked.reasons?.map((r) => r.code)).toContain("credential_revoked");

    // A key that is not in the pinned JWKS is unknown.
    const stranger = await generateEs256KeyPair();
    const foreign = await externalCredential(stranger, vct);
    const unknown = await runVerificationEngine(t.server.deps, session, { pid: [foreign] });
    expect(unknown.reasons?.map((r) => r.code)).toContain("unknown_issuer_key");
  });

  it("a remote status list verified for one issuer is not reused for another issuer's credential naming it", async () => {
    // Two trusted issuers with JWKS of their own; A publishes a list, B's credential points at it.
    const [a, b] = await Promise.all([generateEs256KeyPair(), generateEs256KeyPair()]);
    routes.set("/jwks-a", { type: "application/json", body: JSON.stringify({ keys: [a.publicJwk] }) });
    routes.set("/jwks-b", { type: "application/json", body: JSON.stringify({ keys: [b.publicJwk] }) });
    const statusUri = `${base}/status/shared`;
    routes.set("/status/shared", {
      type: "application/statuslist+jwt",
      body: await signStatusListToken({
        privateKey: a.privateKey,
        kid: a.publicJwk.kid!,
        sub: statusUri,
        iat: Math.floor(Date.now() / 1000),
        ttl: 300,
        bits: 1,
        bytes: new Uint8Array(16),
      }),
    });
    const vct = "https://external.example/shared-list";
    const issue = (keys: typeof a) => externalCredential(keys, vct, { status: { idx: 5, uri: statusUri } });
    const session = statusCheckedSession(vct, [`${base}/jwks-a`, `${base}/jwks-b`]);
    const fromA = await runVerificationEngine(t.server.deps, session, { pid: [await issue(a)] });
    expect(fromA.outcome, JSON.stringify(fromA.reasons)).toBe("verified");
    // The list is cached now, but it is not signed by a key of B's: B's credential gets no status from it.
    const fromB = await runVerificationEngine(t.server.deps, session, { pid: [await issue(b)] });
    expect(fromB.outcome).toBe("rejected");
    expect(fromB.reasons?.map((r) => r.code)).toContain("status_unavailable");
    // A's credential still uses the cached list (the list is gone from the network now).
    routes.delete("/status/shared");
    const againA = await runVerificationEngine(t.server.deps, session, { pid: [await issue(a)] });
    expect(againA.outcome, JSON.stringify(againA.reasons)).toBe("verified");
  });

  it("external issuer by identifier: keys from /.well-known/jwt-vc-issuer (path insertion), iss must match", async () => {
    const issuerKeys = await generateEs256KeyPair();
    const kid = issuerKeys.publicJwk.kid!;
    const iss = `${base}/tenants/acme`;
    routes.set("/.well-known/jwt-vc-issuer/tenants/acme", {
      type: "application/json",
      body: JSON.stringify({ issuer: iss, jwks: { keys: [issuerKeys.publicJwk] } }),
    });
    const vct = "https://external.example/badge";
    const now = Math.floor(Date.now() / 1000);
    const issue = (issuer: string) =>
      issueSdJwtVc({
        privateKey: issuerKeys.privateKey,
        kid,
        iss: issuer,
        vct,
        iat: now,
        exp: now + 3600,
        claims: { given_name: "Erika", secret: "x" },
        disclosable: [["given_name"], ["secret"]],
      });
    // Through the API a policy takes an https identifier (no configuration of this type needed) …
    const policy = await call(t, "POST", "/management/verification-policies", {
      key: t.adminKey,
      body: {
        identifier: "external-by-metadata",
        displayName: "External by metadata",
        credentials: [
          {
            id: "badge",
            credentialTypes: [vct],
            trustedIssuers: [{ credentialIssuer: "https://issuer.example.com/tenants/acme" }],
            requiredClaims: [["given_name"]],
            holderBindingRequired: false,
            checkStatus: false,
          },
        ],
        responseMode: "direct_post",
      },
    });
    expect(policy.status).toBe(201);
    // … and the engine resolves one served on loopback here (development mode).
    const rules = {
      ...policy.body.data.rules,
      credentials: [
        { ...policy.body.data.rules.credentials[0], trustedIssuers: [{ credentialIssuer: iss }] },
      ],
    };
    const session = {
      scope: { tenantId: t.tenantId, environment: "sandbox" as const },
      rules,
      clientId: "x509_hash:abc",
      nonce: "n".repeat(43),
    };
    const ok = await runVerificationEngine(t.server.deps, session, { badge: [await issue(iss)] });
    expect(ok.outcome, JSON.stringify(ok.reasons)).toBe("verified");
    expect(ok.credentials[0]!.claims).toEqual({ given_name: "Erika" });
    // Signed by the same key but claiming another issuer: not the trusted issuer.
    const other = await runVerificationEngine(t.server.deps, session, {
      badge: [await issue(`${base}/tenants/other`)],
    });
    expect(other.outcome).toBe("rejected");
    // Metadata that names another issuer is ignored.
    const impostor = `${base}/tenants/impostor`;
    routes.set("/.well-known/jwt-vc-issuer/tenants/impostor", {
      type: "application/json",
      body: JSON.stringify({ issuer: iss, jwks: { keys: [issuerKeys.publicJwk] } }),
    });
    const mismatched = await runVerificationEngine(
      t.server.deps,
      {
        ...session,
        rules: {
          ...session.rules,
          credentials: [
            { ...session.rules.credentials[0], trustedIssuers: [{ credentialIssuer: impostor }] },
          ],
        },
      },
      { badge: [await issue(impostor)] },
    );
    expect(mismatched.outcome).toBe("rejected");
  });

  it("refuses JWKS URLs on private addresses that are not allow-listed", async () => {
    const { outboundGet } = await import("@cred/core/testing");
    await expect(
      outboundGet({ developmentMode: false, webhookAllowedHosts: [] }, "http://127.0.0.1:1/jwks", {
        accept: "application/json",
        maxBytes: 1000,
      }),
    ).rejects.toThrow(/not allowed/);
    await expect(
      outboundGet({ developmentMode: false, webhookAllowedHosts: [] }, "https://10.0.0.1/jwks", {
        accept: "application/json",
        maxBytes: 1000,
      }),
    ).rejects.toThrow(/not allowed/);
    routes.set("/big", { type: "application/json", body: "x".repeat(5000) });
    await expect(
      outboundGet(t.server.deps.config, `${base}/big`, { accept: "application/json", maxBytes: 1000 }),
    ).rejects.toThrow(/too large/);
  });

  it("decodes a gzipped response and bounds the decoded size (a small gzip bomb is too large)", async () => {
    const { outboundGet } = await import("@cred/core/testing");
    let acceptEncoding: string | undefined;
    const bodies: Record<string, Buffer> = {
      "/small": gzipSync(JSON.stringify({ keys: [] })),
      "/bomb": gzipSync(Buffer.alloc(200_000, 0x20)),
      "/garbage": Buffer.from("not gzip at all"),
      // Decodes to nothing, but 20 kB arrive: the bytes as sent are bounded too.
      "/empties": Buffer.concat(Array.from({ length: 1000 }, () => gzipSync(Buffer.alloc(0)))),
    };
    const gz = http.createServer((req, res) => {
      acceptEncoding = req.headers["accept-encoding"];
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      // Chunked (no Content-Length), so only the bytes as they arrive can be counted.
      res.write(bodies[req.url ?? ""]);
      res.end();
    });
    await new Promise<void>((resolve) => gz.listen(0, "127.0.0.1", resolve));
    const at = (path: string) => `http://127.0.0.1:${(gz.address() as AddressInfo).port}${path}`;
    const options = { accept: "application/json", maxBytes: 10_000 };
    try {
      expect(JSON.parse(await outboundGet(t.server.deps.config, at("/small"), options))).toEqual({
        keys: [],
      });
      expect(acceptEncoding).toBe("gzip");
      expect(bodies["/bomb"]!.length).toBeLessThan(options.maxBytes);
      await expect(outboundGet(t.server.deps.config, at("/bomb"), options)).rejects.toThrow(/too large/);
      await expect(outboundGet(t.server.deps.config, at("/garbage"), options)).rejects.toThrow(/decompress/);
      await expect(outboundGet(t.server.deps.config, at("/empties"), options)).rejects.toThrow(/too large/);
    } finally {
      gz.closeAllConnections();
      await new Promise<void>((resolve) => gz.close(() => resolve()));
    }
  });

  it("gives up on a body that trickles past the deadline, though every byte comes within the socket timeout", async () => {
    const { outboundGet } = await import("@cred/core/testing");
    const slow = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      const timer = setInterval(() => res.write(" "), 100);
      res.on("close", () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    try {
      const started = Date.now();
      await expect(
        outboundGet(t.server.deps.config, `http://127.0.0.1:${(slow.address() as AddressInfo).port}/jwks`, {
          accept: "application/json",
          maxBytes: 1_000_000,
          timeoutMs: 500,
        }),
      ).rejects.toThrow(/timed out/);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });
});

describe("verifier_info (OpenID4VP §5.1)", () => {
  const registration = {
    format: "registration_cert",
    data: "eyJhbGciOiJFUzI1NiIsInR5cCI6InJjLXJwK2p3dCJ9.eyJzdWIiOiJzaG9wIn0.c2ln",
    credentialIds: ["pid"],
  };
  const policy = { format: "urn:example:privacy-policy", data: { uri: "https://shop.example.com/privacy" } };

  it("sends the policy's attestations about the verifier in the request object", async () => {
    await createPolicy(policyBody("pid-attested", { verifierInfo: [registration, policy] }));
    const session = await start("pid-attested");
    const clientId = new URL(session.authorizationRequestUri).searchParams.get("client_id")!;
    const { payload } = await verifyRequestObject(await (await fetch(session.requestUri)).text(), {
      clientId,
    });
    expect(payload.verifier_info).toEqual([
      { format: registration.format, data: registration.data, credential_ids: ["pid"] },
      policy,
    ]);
    const stored = await call(t, "GET", "/management/verification-policies/pid-attested", {
      key: t.adminKey,
    });
    expect(stored.body.data.rules.verifierInfo).toEqual([registration, policy]);
    // A policy without it sends none.
    const plain = await start("pid-plain");
    const plainId = new URL(plain.authorizationRequestUri).searchParams.get("client_id")!;
    const plainObject = await verifyRequestObject(await (await fetch(plain.requestUri)).text(), {
      clientId: plainId,
    });
    expect(plainObject.payload.verifier_info).toBeUndefined();
  });

  it("400 for an entry naming no credential of the policy, without format, or too large", async () => {
    for (const verifierInfo of [
      [{ ...registration, credentialIds: ["nope"] }],
      [{ data: "x" }],
      [{ format: "big", data: "x".repeat(16_385) }],
      [1, 2, 3].map((n) => ({ format: `f${n}`, data: "x".repeat(12_000) })),
      [{ ...registration, credentialIds: ["pid", "pid"] }],
      [],
    ]) {
      const r = await call(t, "POST", "/management/verification-policies", {
        key: t.adminKey,
        body: policyBody(`pid-attested-bad-${Math.random().toString(36).slice(2, 8)}`, { verifierInfo }),
      });
      expect([r.status, errorCode(r)], JSON.stringify(verifierInfo).slice(0, 80)).toEqual([
        400,
        "ValidationFailed",
      ]);
    }
  });
});

describe("transaction data (OpenID4VP §5.1, §8.4, Appendix B.3.3)", () => {
  const payment = {
    type: "https://pay.example/payment",
    credentialIds: ["pid"],
    fields: { amount: "42.00", currency: "EUR", payee: "Acme Shop" },
  };

  it("sends it in the request object and verifies the hash the wallet signs in the key binding JWT", async () => {
    const session = await start("pid-plain", t.adminKey, { transactionData: [payment] });
    expect((await read(session.id)).transactionData).toEqual([payment]);
    const wallet = await present(session, { credential: (await issue()).credential });
    const sent = wallet.request.transaction_data as string[];
    expect(sent).toHaveLength(1);
    expect(JSON.parse(Buffer.from(sent[0]!, "base64url").toString("utf8"))).toEqual({
      ...payment.fields,
      type: payment.type,
      credential_ids: ["pid"],
    });
    const decided = await read(session.id);
    expect(decided.status, JSON.stringify(decided.result)).toBe("verified");
    expect(decided.result.credentials[0].checks.transactionData).toBe("passed");
  });

  it("rejects, with no claims in the result, a presentation that does not authorise it, authorises something else, or with another hash alg", async () => {
    const hash = (value: string) => createHash("sha256").update(value).digest("base64url");
    // What the request sends for `payment`: the hash the wallet must sign.
    const sent = Buffer.from(
      JSON.stringify({ ...payment.fields, type: payment.type, credential_ids: payment.credentialIds }),
    ).toString("base64url");
    for (const [overrides, code] of [
      [{ transaction_data_hashes: undefined }, "transaction_data_not_authorized"],
      [{ transaction_data_hashes: [hash("something else")] }, "transaction_data_mismatch"],
      [
        { transaction_data_hashes: [hash(sent), hash(sent)], transaction_data_hashes_alg: "sha-512" },
        "transaction_data_hash_alg",
      ],
    ] as const) {
      const session = await start("pid-plain", t.adminKey, { transactionData: [payment] });
      await present(session, { credential: (await issue()).credential, keyBindingOverrides: overrides });
      const decided = await read(session.id);
      expect(decided.status).toBe("rejected");
      expect(reasonCodes(decided)).toContain(code);
      expect(decided.result.credentials).toEqual([]);
    }
  });

  it("discards a presentation whose key binding JWT authorises transaction data the request did not carry", async () => {
    const session = await start("pid-plain");
    await present(session, {
      credential: (await issue()).credential,
      keyBindingOverrides: {
        transaction_data_hashes: [createHash("sha256").update("x").digest("base64url")],
      },
    });
    const decided = await read(session.id);
    expect(decided.status).toBe("rejected");
    expect(reasonCodes(decided)).toContain("transaction_data_mismatch");
  });

  describe("with a policy of two credentials", () => {
    const hash = (value: string) => createHash("sha256").update(value).digest("base64url");
    const encoded = (item: { type: string; credentialIds: string[]; fields?: Record<string, unknown> }) =>
      Buffer.from(
        JSON.stringify({ ...item.fields, type: item.type, credential_ids: item.credentialIds }),
      ).toString("base64url");
    let credentials: string[];

    beforeAll(async () => {
      await createPolicy({
        identifier: "pid-and-other",
        displayName: "pid-and-other",
        credentials: [
          { id: "pid", credentialTypes: [issuerA.vct], trustedIssuers: [{ issuerId: issuerA.issuerId }] },
          { id: "other", credentialTypes: [issuerB.vct], trustedIssuers: [{ issuerId: issuerB.issuerId }] },
        ],
      });
      credentials = [(await issue()).credential, (await issue({ issuer: issuerB })).credential];
    });

    async function decide(
      item: typeof payment,
      keyBindingOverridesFor?: Record<string, Record<string, unknown>>,
    ) {
      const session = await start("pid-and-other", t.adminKey, { transactionData: [item] });
      await present(session, {
        credential: credentials,
        ...(keyBindingOverridesFor ? { keyBindingOverridesFor } : {}),
      });
      return read(session.id);
    }

    it("verifies an item naming both credentials when one of them authorises it", async () => {
      const decided = await decide({ ...payment, credentialIds: ["pid", "other"] });
      expect(decided.status, JSON.stringify(decided.result)).toBe("verified");
      expect(decided.result.credentials).toHaveLength(2);
    });

    it("rejects an item authorised by both credentials (the wallet must use one)", async () => {
      const item = { ...payment, credentialIds: ["pid", "other"] };
      const decided = await decide(item, { other: { transaction_data_hashes: [hash(encoded(item))] } });
      expect(decided.status).toBe("rejected");
      expect(reasonCodes(decided)).toContain("transaction_data_authorized_twice");
      expect(decided.result.credentials).toEqual([]);
    });

    it("rejects a hash under a credential the item does not name", async () => {
      const item = { ...payment, credentialIds: ["other"] };
      const decided = await decide(item, {
        pid: { transaction_data_hashes: [hash(encoded(item))] },
        other: { transaction_data_hashes: undefined },
      });
      expect(decided.status).toBe("rejected");
      expect(reasonCodes(decided)).toContain("transaction_data_mismatch");
      expect(decided.result.credentials).toEqual([]);
    });
  });

  it("400 for items naming no credential of the policy, one without holder binding, or reserved fields", async () => {
    await createPolicy(policyBody("pid-unbound", {}, { holderBindingRequired: false }));
    const attempts: [string, Record<string, unknown>][] = [
      ["pid-plain", { ...payment, credentialIds: ["nope"] }],
      ["pid-unbound", payment],
      ["pid-plain", { ...payment, fields: { credential_ids: ["x"] } }],
      ["pid-plain", { ...payment, fields: { transaction_data_hashes_alg: ["sha-512"] } }],
      ["pid-plain", { ...payment, credentialIds: [] }],
      ["pid-plain", { type: "", credentialIds: ["pid"] }],
    ];
    for (const [policy, item] of attempts) {
      const r = await call(t, "POST", "/v1.0/verifications", {
        key: t.adminKey,
        body: { policy, transactionData: [item] },
      });
      expect([r.status, errorCode(r)], JSON.stringify(item)).toEqual([400, "ValidationFailed"]);
    }
  });
});
