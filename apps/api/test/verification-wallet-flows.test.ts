import {
  createTestPresentation,
  type Es256KeyPair,
  generateVerifierCertificate,
  importEs256PrivateKey,
  issueSdJwtVc,
  verifyRequestObject,
} from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REDIRECT, type TestIssuer, verifierFixture } from "./fixtures/verifier";
import { call, errorCode, type TestServer } from "./harness";

/** Verification end to end with the test wallet over HTTP: response modes, the request object, wallet posts. */

let t: TestServer;
let prisma: TestServer["server"]["database"]["prisma"];
let issuerA: TestIssuer;
let holder: Es256KeyPair;

const {
  setUp,
  issue,
  recordCredential,
  policyBody,
  createPolicy,
  start,
  read,
  present,
  verifyWith,
  reasonCodes,
  events,
} = verifierFixture();

beforeAll(async () => {
  ({ t, prisma, issuerA, holder } = await setUp());
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
      typeMetadata: "passed",
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
    // Its chain names another authority than the query's trusted_authorities: refused before any key lookup.
    expect(reasonCodes(rejected.session)).toContain("untrusted_authority");
  });
});
