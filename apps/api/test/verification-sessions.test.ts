import { createHash } from "node:crypto";
import { createTestPresentation, type Es256KeyPair, issueSdJwtVc, verifyRequestObject } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLAIMS, type TestIssuer, verifierFixture } from "./fixtures/verifier";
import { call, errorCode, type TestServer } from "./harness";

/** Verifications_Create, _Get, VerificationSessions_Get, _Cancel and _Submit (legacy), and the session state machine. */

let t: TestServer;
let prisma: TestServer["server"]["database"]["prisma"];
let issuerA: TestIssuer;
let issuerB: TestIssuer;
let holder: Es256KeyPair;

const {
  setUp,
  issue,
  recordCredential,
  setRevoked,
  policyBody,
  createPolicy,
  start,
  read,
  present,
  reasonCodes,
  events,
} = verifierFixture();

beforeAll(async () => {
  ({ t, prisma, issuerA, issuerB, holder } = await setUp());
});
afterAll(() => t?.close());

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
