import { randomBytes } from "node:crypto";
import { presentWithTestWallet } from "@cred/oid4vc";
import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, policyTrusting, VALID_CLAIMS } from "./fixtures";
import { startSecondProcess } from "./fixtures/second-process";
import { call, startTestServer, type TestServer } from "./harness";
import { describeOnPostgres } from "./skip-reasons";
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
/** The longest another process may act on a replaced key (the 2 s ttl of issuer-caches.ts and configuration-caches.ts, and of the platform key cache). */
const PROPAGATION_MS = 2_000;

/**
 * Two API processes on one PostgreSQL database, as a deployment runs them: `a` in this process, `b` a
 * child running main.ts with the same public base URL and master key. A wallet request is sent to b by
 * swapping a's origin for b's in the URLs the metadata names.
 */
describeOnPostgres("two API processes on one database", () => {
  const masterKey = randomBytes(32);
  let a: TestServer;
  let b: Awaited<ReturnType<typeof startSecondProcess>> | undefined;
  let bOrigin: string;
  const viaB = (url: string) => url.replace(a.baseUrl, bOrigin);

  beforeAll(async () => {
    a = await startTestServer({ masterKey });
    b = await startSecondProcess(a, masterKey);
    bOrigin = b.origin;
  }, 90_000);

  afterAll(async () => {
    b?.stop();
    await a?.close();
  });

  /** An offer made through a, redeemed entirely at b; returns the credential and its holder. */
  async function issueAtB(issuer: ActiveIssuer) {
    const created = await call(a, "POST", "/v1.0/issuance-transactions", {
      key: a.adminKey,
      body: {
        credentialConfiguration: issuer.configuration,
        issuerId: issuer.issuerId,
        claims: VALID_CLAIMS,
      },
    });
    const offer = await resolveOffer(created.body.data.credentialOffer);
    const metadata = (await fetchJson(viaB(wellKnown("openid-credential-issuer", issuer.credentialIssuer))))
      .body;
    const as = (await fetchJson(viaB(wellKnown("oauth-authorization-server", issuer.credentialIssuer)))).body;
    const tokenRes = await token(viaB(as.token_endpoint), {
      grant_type: PRE_AUTH,
      "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
    });
    const holder = await holderKey();
    const c = await nonce(viaB(metadata.nonce_endpoint));
    const res = await requestCredential(viaB(metadata.credential_endpoint), tokenRes.body.access_token, {
      credential_configuration_id: issuer.configuration,
      proofs: { jwt: [await proof(holder, issuer.credentialIssuer, c)] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { credential: res.body.credentials[0].credential as string, holder };
  }

  async function verifyAtB(policy: string, issued: Awaited<ReturnType<typeof issueAtB>>) {
    const session = await call({ baseUrl: bOrigin }, "POST", "/v1.0/verifications", {
      key: a.adminKey,
      body: { policy },
    });
    await presentWithTestWallet({
      authorizationRequestUri: session.body.data.authorizationRequestUri.replaceAll(
        encodeURIComponent(a.baseUrl),
        encodeURIComponent(bOrigin),
      ),
      fetch: (input, init) => fetch(viaB(String(input)), init),
      holderPrivateKey: issued.holder.privateJwk,
      credential: issued.credential,
    });
    const read = await call(
      { baseUrl: bOrigin },
      "GET",
      `/v1.0/verification-sessions/${session.body.data.id}`,
      {
        key: a.adminKey,
      },
    );
    return read.body.data.status as string;
  }

  it(`a signing key rotated in one process reaches the other within ${PROPAGATION_MS} ms`, async () => {
    const issuer = await activeIssuer(a, a.adminKey);
    const policy = `multi-${issuer.issuerId}`;
    await policyTrusting(a, a.adminKey, policy, issuer);
    // b has the issuer, its key and its platform key cached.
    const before = await issueAtB(issuer);
    const oldKid = decodeProtectedHeader(before.credential).kid;
    expect(await verifyAtB(policy, before)).toBe("verified");

    const rotated = await call(a, "POST", `/management/issuers/${issuer.issuerId}/rotate-signing-key`, {
      key: a.adminKey,
      body: { replacedKey: "withdraw" },
    });
    expect(rotated.status).toBe(200);
    const newKid = rotated.body.data.signingKey.kid;
    expect(newKid).not.toBe(oldKid);
    await new Promise((r) => setTimeout(r, PROPAGATION_MS + 200));

    const jwks = await fetchJson(viaB(wellKnown("jwt-vc-issuer", issuer.credentialIssuer)));
    expect(jwks.body.jwks.keys.map((k: { kid: string }) => k.kid)).toEqual([newKid]);
    const after = await issueAtB(issuer);
    expect(decodeProtectedHeader(after.credential).kid).toBe(newKid);
    expect(await verifyAtB(policy, before)).toBe("rejected");
    expect(await verifyAtB(policy, after)).toBe("verified");
  }, 60_000);

  it(`a configuration's new active version reaches the other process within ${PROPAGATION_MS} ms`, async () => {
    const issuer = await activeIssuer(a, a.adminKey);
    const create = (claims: Record<string, unknown>) =>
      call({ baseUrl: bOrigin }, "POST", "/v1.0/issuance-transactions", {
        key: a.adminKey,
        body: { credentialConfiguration: issuer.configuration, issuerId: issuer.issuerId, claims },
      });
    // b has the configuration (version 1) cached.
    expect((await create(VALID_CLAIMS)).status).toBe(201);
    const current = await call(a, "GET", `/management/credential-configurations/${issuer.configuration}`, {
      key: a.adminKey,
    });
    const versioned = await call(
      a,
      "POST",
      `/management/credential-configurations/${issuer.configuration}/versions`,
      {
        key: a.adminKey,
        body: { claims: [...current.body.data.claims, { path: ["level"], type: "string", required: true }] },
      },
    );
    expect(versioned.status).toBe(201);
    await new Promise((r) => setTimeout(r, PROPAGATION_MS + 200));
    const refused = await create(VALID_CLAIMS);
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect((await create({ ...VALID_CLAIMS, level: "gold" })).status).toBe(201);
  });
});
