import {
  createTestCertificateAuthority as certificateAuthority,
  requestedNames,
  type TestCertificateAuthority,
} from "@cred/oid4vc/test-ca";
import { x509 } from "@cred/oid4vc/x509";
import { decodeJwt, decodeProtectedHeader, importX509, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, issueCredential, policyTrusting, presentTo } from "./fixtures";
import { type CallResult, call, errorCode, startTestServer, type TestServer } from "./harness";
import { fetchJson, wellKnown } from "./wallet-client";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t?.close());

const DAY = 86_400_000;
const ISSUERS = "/management/issuers";

const csrOf = async (issuerId: string, key = t.adminKey) =>
  call(t, "GET", `${ISSUERS}/${issuerId}/certificate-signing-request`, { key });
const setCertificate = (issuerId: string, body: Record<string, unknown>, key = t.adminKey) =>
  call(t, "PUT", `${ISSUERS}/${issuerId}/signing-certificate`, { key, body });
const removeCertificate = (issuerId: string, key = t.adminKey) =>
  call(t, "DELETE", `${ISSUERS}/${issuerId}/signing-certificate`, { key });
const readIssuer = async (issuerId: string) =>
  (await call(t, "GET", `${ISSUERS}/${issuerId}`, { key: t.adminKey })).body.data;

async function certifiedChain(ca: TestCertificateAuthority, issuerId: string) {
  const csr = await csrOf(issuerId);
  expect(csr.status, JSON.stringify(csr.body)).toBe(200);
  return ca.certify(csr.body.data.certificateSigningRequestPem);
}

const issuerJws = (credential: string) => credential.split("~")[0] as string;
const derOf = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, "");

async function statusListToken(credential: string) {
  const { status } = decodeJwt(issuerJws(credential)) as { status: { status_list: { uri: string } } };
  return (await fetch(status.status_list.uri)).text();
}

const statusListHeader = async (credential: string) =>
  decodeProtectedHeader(await statusListToken(credential));

async function currentJwk(active: ActiveIssuer) {
  const md = await fetchJson(wellKnown("jwt-vc-issuer", active.credentialIssuer));
  return md.body.jwks.keys[0] as Record<string, unknown>;
}

/** The issuer metadata for a wallet that asks for it signed (OpenID4VCI §12.2.3): its type and body. */
async function signedMetadata(active: ActiveIssuer, accept = "application/jwt") {
  const res = await fetch(wellKnown("openid-credential-issuer", active.credentialIssuer), {
    headers: { accept },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("vary")).toMatch(/accept/i);
  return { type: res.headers.get("content-type") ?? "", body: await res.text() };
}

function expectError(r: CallResult, status: number, code: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(errorCode(r)).toBe(code);
}

describe("Issuers_GetCertificateSigningRequest", () => {
  it("is a request for the current key, signed with it, naming the issuer and its identifier", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const issuer = await readIssuer(active.issuerId);
    const r = await csrOf(active.issuerId);
    expect(r.status).toBe(200);
    expect(r.body.data.signingKid).toBe(issuer.signingKey.kid);
    const csr = new x509.Pkcs10CertificateRequest(r.body.data.certificateSigningRequestPem);
    expect(await csr.verify()).toBe(true);
    const jwk = await crypto.subtle.exportKey("jwk", await csr.publicKey.export());
    expect({ x: jwk.x, y: jwk.y }).toEqual({
      x: issuer.signingKey.publicJwk.x,
      y: issuer.signingKey.publicJwk.y,
    });
    expect(csr.subject).toMatch(new RegExp(`^CN=${issuer.displayName}, O=Org \\d+$`));
    expect(requestedNames(csr)).toEqual([{ type: "url", value: active.credentialIssuer }]);
  });

  it("404 unknown or foreign; 401; 403 without issuers.read", async () => {
    const active = await activeIssuer(t, t.adminKey);
    expectError(await csrOf("iss_unknown"), 404, "NotFound");
    expectError(await csrOf(active.issuerId, (await t.otherTenant()).key), 404, "NotFound");
    expectError(await csrOf(active.issuerId, await t.key({ environment: "production" })), 404, "NotFound");
    const path = `${ISSUERS}/${active.issuerId}/certificate-signing-request`;
    expectError(await call(t, "GET", path, {}), 401, "Unauthenticated");
    expectError(
      await csrOf(active.issuerId, await t.key({ scopes: ["webhooks.read"] })),
      403,
      "MissingScope",
    );
  });
});

describe("Issuers_SetSigningCertificate and Issuers_DeleteSigningCertificate", () => {
  it("credentials, status list tokens and the JWKS carry x5c; a verifier trusting only the CA accepts them", async () => {
    const ca = await certificateAuthority();
    const active = await activeIssuer(t, t.adminKey);
    const { leafPem, chainPem } = await certifiedChain(ca, active.issuerId);
    const set = await setCertificate(active.issuerId, { certificateChainPem: chainPem });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data.signingCertificate).toMatchObject({
      certificateChainPem: expect.stringContaining("BEGIN CERTIFICATE"),
      subject: expect.stringContaining("CN=Issuer"),
      issuer: "CN=Test Issuing CA",
      x5cLength: 1, // the trailing root stays out of x5c (HAIP)
      inUse: true,
    });
    expect(await readIssuer(active.issuerId)).toEqual(set.body.data);

    const issued = await issueCredential(t, t.adminKey, active);
    const header = decodeProtectedHeader(issuerJws(issued.credential));
    expect(header).toMatchObject({ kid: set.body.data.signingKey.kid, x5c: [derOf(leafPem)] });
    await expect(
      jwtVerify(issuerJws(issued.credential), await importX509(leafPem, "ES256")),
    ).resolves.toBeDefined();
    expect((await statusListHeader(issued.credential)).x5c).toEqual([derOf(leafPem)]);
    expect((await currentJwk(active)).x5c).toEqual([derOf(leafPem)]);
    // Signed issuer metadata (§12.2.3) carries the chain too (HAIP §4.1), and only while there is one.
    const metadataJwt = await signedMetadata(active);
    expect(metadataJwt.type).toMatch(/^application\/jwt/);
    expect(decodeProtectedHeader(metadataJwt.body)).toMatchObject({
      alg: "ES256",
      typ: "openidvci-issuer-metadata+jwt",
      kid: set.body.data.signingKey.kid,
      x5c: [derOf(leafPem)],
    });
    const { payload } = await jwtVerify(metadataJwt.body, await importX509(leafPem, "ES256"), {
      typ: "openidvci-issuer-metadata+jwt",
      subject: active.credentialIssuer,
    });
    const plainMetadata = await fetchJson(wellKnown("openid-credential-issuer", active.credentialIssuer));
    expect(payload).toMatchObject({ ...plainMetadata.body, sub: active.credentialIssuer });
    expect(payload.exp! - payload.iat!).toBe(86_400);
    // JSON wins ties and wildcards; a higher weight for application/jwt gets the JWT.
    for (const accept of [
      "application/json, application/jwt",
      "*/*",
      "application/jwt;q=0.5, application/json",
      "application/jwt;q=0.5, */*",
      "application/jwt;q=0.5, application/*",
      "application/jwt;q=0, */*;q=0.1",
    ])
      expect((await signedMetadata(active, accept)).type, accept).toMatch(/^application\/json/);
    for (const accept of [
      "application/json;q=0.2, application/jwt",
      "application/jwt; charset=utf-8, */*;q=0.5",
    ])
      expect((await signedMetadata(active, accept)).type, accept).toMatch(/^application\/jwt/);

    // A verifier in another tenant, trusting only the CA: the credential and its status check out.
    const verifier = (await t.otherTenant()).key;
    const policy = `x5c-root-${active.issuerId}`;
    await policyTrusting(t, verifier, policy, active, [{ x5cRoot: ca.rootPem }]);
    const verified = await presentTo(t, verifier, policy, issued);
    expect(verified.status, JSON.stringify(verified.result)).toBe("verified");
    expect(verified.result).toMatchObject({
      credentials: [{ issuerId: null, checks: { status: "passed" } }],
    });
    // Trusted through x5c, it is checked against its status list like an external credential (the
    // list's token, verified with the chain), and a revocation counts at once.
    const revoked = await call(t, "POST", `/v1.0/credentials/${issued.credentialId}/revoke`, {
      key: t.adminKey,
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    const afterRevocation = await presentTo(t, verifier, policy, issued);
    expect(afterRevocation.status).toBe("rejected");
    expect(afterRevocation.result.reasons?.map((r) => r.code)).toContain("credential_revoked");

    const removed = await removeCertificate(active.issuerId);
    expect(removed.status).toBe(200);
    expect(removed.body.data.signingCertificate).toBeNull();
    const plain = await issueCredential(t, t.adminKey, active);
    expect(decodeProtectedHeader(issuerJws(plain.credential)).x5c).toBeUndefined();
    expect((await statusListHeader(plain.credential)).x5c).toBeUndefined();
    expect((await currentJwk(active)).x5c).toBeUndefined();
    expect((await signedMetadata(active)).type).toMatch(/^application\/json/);
    expect((await presentTo(t, verifier, policy, plain)).status).toBe("rejected");
    const again = await removeCertificate(active.issuerId); // nothing left to remove: nothing changes
    expect(again.status).toBe(200);
    expect(again.body.data.updatedAt).toBe(removed.body.data.updatedAt);
  });

  it("a key rotation removes the chain, which certified the replaced key", async () => {
    const ca = await certificateAuthority();
    const active = await activeIssuer(t, t.adminKey);
    const { chainPem } = await certifiedChain(ca, active.issuerId);
    expect((await setCertificate(active.issuerId, { certificateChainPem: chainPem })).status).toBe(200);
    const rotated = await call(t, "POST", `${ISSUERS}/${active.issuerId}/rotate-signing-key`, {
      key: t.adminKey,
      body: {},
    });
    expect(rotated.body.data.signingCertificate).toBeNull();
    const issued = await issueCredential(t, t.adminKey, active);
    expect(decodeProtectedHeader(issuerJws(issued.credential)).x5c).toBeUndefined();
    expect((await statusListHeader(issued.credential)).x5c).toBeUndefined();
    const stale = await setCertificate(active.issuerId, { certificateChainPem: chainPem });
    expectError(stale, 400, "InvalidCertificate");
    expect(stale.body.error.details[0].message).toMatch(/not for the issuer's current signing key/);
    const renewed = await certifiedChain(ca, active.issuerId);
    expect((await setCertificate(active.issuerId, { certificateChainPem: renewed.chainPem })).status).toBe(
      200,
    );
  });

  it("goes out without x5c once the chain has expired; a status list token with x5c expires with it", async () => {
    const ca = await certificateAuthority();
    const active = await activeIssuer(t, t.adminKey);
    const csr = await csrOf(active.issuerId);
    const notAfter = new Date(Date.now() + 3_000);
    const { chainPem } = await ca.certify(csr.body.data.certificateSigningRequestPem, { notAfter });
    expect((await setCertificate(active.issuerId, { certificateChainPem: chainPem })).status).toBe(200);
    const before = await issueCredential(t, t.adminKey, active);
    expect(decodeProtectedHeader(issuerJws(before.credential)).x5c).toHaveLength(1);
    const token = await statusListToken(before.credential);
    expect(decodeProtectedHeader(token).x5c).toHaveLength(1);
    expect(decodeJwt(token).exp).toBeLessThanOrEqual(Math.floor(notAfter.getTime() / 1000));

    await new Promise((resolve) => setTimeout(resolve, notAfter.getTime() - Date.now() + 500));
    expect((await readIssuer(active.issuerId)).signingCertificate.inUse).toBe(false);
    const after = await issueCredential(t, t.adminKey, active);
    expect(decodeProtectedHeader(issuerJws(after.credential)).x5c).toBeUndefined();
    expect((await currentJwk(active)).x5c).toBeUndefined();
    expect(decodeProtectedHeader(await statusListToken(after.credential)).x5c).toBeUndefined();
    // Signed issuer metadata is served with a chain only: without one, JSON.
    expect((await signedMetadata(active)).type).toMatch(/^application\/json/);
  });

  it("400 InvalidCertificate for a chain it cannot use, naming each problem; the issuer is unchanged", async () => {
    const ca = await certificateAuthority();
    const active = await activeIssuer(t, t.adminKey);
    const other = await activeIssuer(t, t.adminKey);
    const csr = (await csrOf(active.issuerId)).body.data.certificateSigningRequestPem;
    const problems = async (certificateChainPem: string) => {
      const r = await setCertificate(active.issuerId, { certificateChainPem });
      expectError(r, 400, "InvalidCertificate");
      for (const detail of r.body.error.details) expect(detail.target).toBe("certificateChainPem");
      return r.body.error.details.map((d: { message: string }) => d.message).join(" | ");
    };
    const good = await ca.certify(csr);

    expect(await problems((await certifiedChain(ca, other.issuerId)).chainPem)).toMatch(
      /current signing key/,
    );
    const expired = await ca.certify(csr, {
      notBefore: new Date(Date.now() - 2 * DAY),
      notAfter: new Date(Date.now() - DAY),
    });
    expect(await problems(expired.chainPem)).toMatch(/expired/);
    expect(
      await problems((await ca.certify(csr, { notBefore: new Date(Date.now() + DAY) })).chainPem),
    ).toMatch(/not yet valid/);
    const elsewhere = await ca.certify(csr, { sans: [{ type: "dns", value: "elsewhere.example" }] });
    expect(await problems(elsewhere.chainPem)).toMatch(/must name .+ as a URI subjectAltName/);
    const byHost = await ca.certify(csr, {
      sans: [{ type: "dns", value: new URL(active.credentialIssuer).hostname }],
    });
    expect(await problems(byHost.chainPem)).toMatch(/must name .+ as a URI subjectAltName/);
    expect(await problems((await ca.certify(csr, { ca: true })).chainPem)).toMatch(/must not be a CA/);
    expect(await problems(`${ca.rootPem}\n${good.leafPem}`)).toMatch(/not issued by certificate 1/);
    const strangers = await certificateAuthority("CN=Other CA");
    expect(await problems(`${good.leafPem}\n${strangers.rootPem}`)).toMatch(/not issued by certificate 1/);
    expect(await problems(Array(6).fill(good.leafPem).join("\n"))).toMatch(/at most 5/);
    expect(await problems("not a certificate")).toMatch(/no PEM certificate/);
    expect(await problems("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----")).toMatch(
      /unparsable/,
    );

    expectError(await setCertificate(active.issuerId, {}), 400, "ValidationFailed");
    const extra = { certificateChainPem: good.chainPem, privateKeyPem: "x" };
    expectError(await setCertificate(active.issuerId, extra), 400, "ValidationFailed");
    expect((await readIssuer(active.issuerId)).signingCertificate).toBeNull();
  });

  it("404 unknown, foreign or bound to another issuer; 401; 403 without issuers.manage", async () => {
    const ca = await certificateAuthority();
    const active = await activeIssuer(t, t.adminKey);
    const other = await activeIssuer(t, t.adminKey);
    const body = { certificateChainPem: (await certifiedChain(ca, active.issuerId)).chainPem };
    const otherTenant = (await t.otherTenant()).key;
    const production = await t.key({ environment: "production" });
    const boundElsewhere = await t.key({ issuerId: other.issuerId });
    const readOnly = await t.key({ scopes: ["issuers.read"] });
    expectError(await setCertificate("iss_unknown", body), 404, "NotFound");
    expectError(await removeCertificate("iss_unknown"), 404, "NotFound");
    for (const key of [otherTenant, production, boundElsewhere]) {
      expectError(await setCertificate(active.issuerId, body, key), 404, "NotFound");
      expectError(await removeCertificate(active.issuerId, key), 404, "NotFound");
    }
    const path = `${ISSUERS}/${active.issuerId}/signing-certificate`;
    expectError(await call(t, "PUT", path, { body }), 401, "Unauthenticated");
    expectError(await call(t, "DELETE", path, {}), 401, "Unauthenticated");
    expectError(await setCertificate(active.issuerId, body, readOnly), 403, "MissingScope");
    expectError(await removeCertificate(active.issuerId, readOnly), 403, "MissingScope");
    expect((await readIssuer(active.issuerId)).signingCertificate).toBeNull();
    // An issuer-bound key acts for its own issuer.
    const bound = await t.key({ issuerId: active.issuerId });
    expect((await setCertificate(active.issuerId, body, bound)).status).toBe(200);
  });
});

describe("Issuers_PrepareSigningKey and Issuers_DiscardNextSigningKey", () => {
  const prepare = (issuerId: string, key = t.adminKey) =>
    call(t, "POST", `${ISSUERS}/${issuerId}/next-signing-key`, { key });
  const discard = (issuerId: string, key = t.adminKey) =>
    call(t, "DELETE", `${ISSUERS}/${issuerId}/next-signing-key`, { key });
  const jwksKids = async (active: ActiveIssuer) =>
    (await fetchJson(wellKnown("jwt-vc-issuer", active.credentialIssuer))).body.jwks.keys.map(
      (k: { kid: string }) => k.kid,
    );

  it("a prepared key brings its chain into the rotation, so x5c has no gap, and old credentials keep their status", async () => {
    const ca = await certificateAuthority();
    const active = await activeIssuer(t, t.adminKey);
    const first = await certifiedChain(ca, active.issuerId);
    expect((await setCertificate(active.issuerId, { certificateChainPem: first.chainPem })).status).toBe(200);
    const before = await issueCredential(t, t.adminKey, active);

    const prepared = await prepare(active.issuerId);
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    const next = prepared.body.data.nextSigningKey;
    expect(next).toMatchObject({ kid: expect.any(String), alg: "ES256", signingCertificate: null });
    expect(next.publicJwk.d).toBeUndefined();
    expect((await prepare(active.issuerId)).body.data.nextSigningKey.kid).toBe(next.kid); // kept, not replaced
    const currentKid = prepared.body.data.signingKey.kid;
    expect(await jwksKids(active)).toEqual([currentKid, next.kid]); // published ahead of use

    const csr = await call(t, "GET", `${ISSUERS}/${active.issuerId}/certificate-signing-request?key=next`, {
      key: t.adminKey,
    });
    expect(csr.body.data.signingKid).toBe(next.kid);
    const second = await ca.certify(csr.body.data.certificateSigningRequestPem);
    const wrongKey = await setCertificate(active.issuerId, {
      key: "next",
      certificateChainPem: first.chainPem,
    });
    expectError(wrongKey, 400, "InvalidCertificate");
    const set = await setCertificate(active.issuerId, { key: "next", certificateChainPem: second.chainPem });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data.nextSigningKey.signingCertificate).toMatchObject({ x5cLength: 1, inUse: true });
    expect(set.body.data.signingCertificate.certificateChainPem).toBe(first.chainPem); // current untouched
    const published = (await fetchJson(wellKnown("jwt-vc-issuer", active.credentialIssuer))).body.jwks.keys;
    expect(published[1]).toMatchObject({ kid: next.kid, x5c: [derOf(second.leafPem)] });
    // Removing and setting the next key's chain again works like the current key's.
    const removedNext = await call(
      t,
      "DELETE",
      `${ISSUERS}/${active.issuerId}/signing-certificate?key=next`,
      {
        key: t.adminKey,
      },
    );
    expect(removedNext.body.data.nextSigningKey.signingCertificate).toBeNull();
    expect(removedNext.body.data.signingCertificate).not.toBeNull();
    expect(
      (await setCertificate(active.issuerId, { key: "next", certificateChainPem: second.chainPem })).status,
    ).toBe(200);

    const rotated = await call(t, "POST", `${ISSUERS}/${active.issuerId}/rotate-signing-key`, {
      key: t.adminKey,
      body: {},
    });
    expect(rotated.body.data.signingKey.kid).toBe(next.kid);
    expect(rotated.body.data.signingCertificate.certificateChainPem).toBe(second.chainPem);
    expect(rotated.body.data.nextSigningKey).toBeNull();
    expect(rotated.body.data.previousSigningKeys.map((k: { kid: string }) => k.kid)).toEqual([currentKid]);
    const after = await issueCredential(t, t.adminKey, active);
    expect(decodeProtectedHeader(issuerJws(after.credential))).toMatchObject({
      kid: next.kid,
      x5c: [derOf(second.leafPem)],
    });
    expect((await statusListHeader(before.credential)).x5c).toEqual([derOf(second.leafPem)]);

    // A verifier trusting the CA checks both, the older one's status through the list the new key signs.
    const policy = `x5c-next-${active.issuerId}`;
    await policyTrusting(t, t.adminKey, policy, active, [{ x5cRoot: ca.rootPem }]);
    for (const issued of [before, after]) {
      const session = await presentTo(t, t.adminKey, policy, issued);
      expect(session.status, JSON.stringify(session.result)).toBe("verified");
    }
  });

  it("discards a prepared key (it leaves the JWKS); 409 for a next key that is not there", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const nextPath = `${ISSUERS}/${active.issuerId}/certificate-signing-request?key=next`;
    expectError(await call(t, "GET", nextPath, { key: t.adminKey }), 409, "InvalidState");
    const ca = await certificateAuthority();
    const chain = await certifiedChain(ca, active.issuerId);
    expectError(
      await setCertificate(active.issuerId, { key: "next", certificateChainPem: chain.chainPem }),
      409,
      "InvalidState",
    );
    const next = (await prepare(active.issuerId)).body.data.nextSigningKey;
    const discarded = await discard(active.issuerId);
    expect(discarded.status).toBe(200);
    expect(discarded.body.data.nextSigningKey).toBeNull();
    expect(await jwksKids(active)).not.toContain(next.kid);
    expect((await discard(active.issuerId)).status).toBe(200); // nothing left: unchanged
    // Rotating without a prepared key makes a fresh one, as before.
    const rotated = await call(t, "POST", `${ISSUERS}/${active.issuerId}/rotate-signing-key`, {
      key: t.adminKey,
      body: {},
    });
    expect(rotated.body.data.signingKey.kid).not.toBe(next.kid);
  });

  it("404 unknown or foreign; 401; 403 without issuers.manage", async () => {
    const active = await activeIssuer(t, t.adminKey);
    const otherTenant = (await t.otherTenant()).key;
    const readOnly = await t.key({ scopes: ["issuers.read"] });
    for (const op of [prepare, discard]) {
      expectError(await op("iss_unknown"), 404, "NotFound");
      expectError(await op(active.issuerId, otherTenant), 404, "NotFound");
      expectError(await op(active.issuerId, readOnly), 403, "MissingScope");
    }
    const path = `${ISSUERS}/${active.issuerId}/next-signing-key`;
    expectError(await call(t, "POST", path, {}), 401, "Unauthenticated");
    expectError(await call(t, "DELETE", path, {}), 401, "Unauthenticated");
    expect((await readIssuer(active.issuerId)).nextSigningKey).toBeNull();
  });
});
