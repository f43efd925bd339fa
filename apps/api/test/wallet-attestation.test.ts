// Wallet attestation as OAuth client authentication (OpenID4VCI Appendix E, attest_jwt_client_auth) at
// the PAR and token endpoints of an issuer that trusts a wallet provider's CA, as HAIP has issuers do.
import { randomBytes } from "node:crypto";
import { createDpopProof, generateEs256KeyPair, pkceChallengeOf, signEs256Jwt } from "@cred/oid4vc";
import { createTestCertificateAuthority } from "@cred/oid4vc/test-ca";
import { x509 } from "@cred/oid4vc/x509";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, createTransaction } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { fetchJson, resolveOffer, wellKnown } from "./wallet-client";
import {
  attestationPop,
  statusListServer,
  WALLET_CLIENT_ID as WALLET,
  walletProvider,
} from "./wallet-provider";

const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const PRE_AUTH = "urn:ietf:params:oauth:grant-type:pre-authorized_code";
type Key = Awaited<ReturnType<typeof generateEs256KeyPair>>;

let t: TestServer;
let issuer: ActiveIssuer;
let as: Record<string, any>;
let provider: Awaited<ReturnType<typeof walletProvider>>;
let stranger: Awaited<ReturnType<typeof walletProvider>>;

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
  provider = await walletProvider("Trusted Wallet Provider");
  stranger = await walletProvider("Unknown Wallet Provider");
  as = (await fetchJson(wellKnown("oauth-authorization-server", issuer.credentialIssuer))).body;
});
afterAll(() => t?.close());

const issuerPath = () => `/management/issuers/${issuer.issuerId}`;
const setAttestation = (walletAttestation: unknown) =>
  call(t, "PATCH", issuerPath(), { key: t.adminKey, body: { walletAttestation } });

async function preAuthorizedCode() {
  const created = await createTransaction(t, t.adminKey, issuer);
  const offer = await resolveOffer(created.credentialOffer);
  return offer.grants[PRE_AUTH]["pre-authorized_code"] as string;
}

async function tokenRequest(headers: Record<string, string>, body?: Record<string, string>) {
  return fetchJson(as.token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(
      body ?? { grant_type: PRE_AUTH, "pre-authorized_code": await preAuthorizedCode() },
    ).toString(),
  });
}

async function attested(instance: Key, attestation?: string) {
  return {
    "oauth-client-attestation": attestation ?? (await provider.attest(instance)),
    "oauth-client-attestation-pop": await attestationPop(instance, issuer.credentialIssuer),
  };
}

function expectInvalidClient(r: Awaited<ReturnType<typeof fetchJson>>, error = "invalid_client") {
  expect(r.status, JSON.stringify(r.body)).toBe(401);
  expect(r.body.error).toBe(error);
  expect(r.headers.get("cache-control")).toBe("no-store");
}

describe("wallet attestation settings", () => {
  it("starts with none; takes trusted CA roots, refuses what is not a CA certificate, and clears with null", async () => {
    const read = await call(t, "GET", issuerPath(), { key: t.adminKey });
    expect(read.body.data.walletAttestation).toBeNull();
    const notPem = await setAttestation({ trustedRoots: ["nope"] });
    expect([notPem.status, errorCode(notPem)]).toEqual([400, "ValidationFailed"]);
    // A leaf certificate is no trust anchor.
    const { leafPem } = await (await createTestCertificateAuthority()).certify(
      (
        await x509.Pkcs10CertificateRequestGenerator.create({
          name: "CN=leaf",
          keys: await globalThis.crypto.subtle.generateKey(ES256, true, ["sign", "verify"]),
          signingAlgorithm: ES256,
          extensions: [new x509.SubjectAlternativeNameExtension([{ type: "dns", value: "leaf.example" }])],
        })
      ).toString("pem"),
    );
    const leaf = await setAttestation({ trustedRoots: [leafPem] });
    expect([leaf.status, errorCode(leaf)]).toEqual([400, "ValidationFailed"]);
    expect(errorCode(await setAttestation({ trustedRoots: [] }))).toBe("ValidationFailed");

    const set = await setAttestation({ trustedRoots: [provider.rootPem] });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data.walletAttestation).toEqual({
      trustedRoots: [provider.rootPem],
      required: false,
      requireChallenge: false,
    });
    const cleared = await setAttestation(null);
    expect(cleared.body.data.walletAttestation).toBeNull();
  });

  it("is announced in the authorization server metadata: optional, then required", async () => {
    const metadata = async () =>
      (await fetchJson(wellKnown("oauth-authorization-server", issuer.credentialIssuer))).body;
    expect((await metadata()).token_endpoint_auth_methods_supported).toEqual(["none"]);
    await setAttestation({ trustedRoots: [provider.rootPem] });
    expect(await metadata()).toMatchObject({
      token_endpoint_auth_methods_supported: [
        "attest_jwt_client_auth",
        "attest_jwt_client_auth_dpop",
        "none",
      ],
      client_attestation_signing_alg_values_supported: ["ES256"],
      client_attestation_pop_signing_alg_values_supported: ["ES256"],
      "pre-authorized_grant_anonymous_access_supported": true,
    });
    await setAttestation({ trustedRoots: [provider.rootPem], required: true });
    expect(await metadata()).toMatchObject({
      token_endpoint_auth_methods_supported: ["attest_jwt_client_auth", "attest_jwt_client_auth_dpop"],
      "pre-authorized_grant_anonymous_access_supported": false,
    });
    await setAttestation(null);
  });

  it("is ignored by an issuer that trusts no wallet provider", async () => {
    const instance = await generateEs256KeyPair();
    const r = await tokenRequest(await attested(instance, await stranger.attest(instance)));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });
});

describe("wallet attestation at the token endpoint", () => {
  beforeAll(async () => {
    expect((await setAttestation({ trustedRoots: [provider.rootPem] })).status).toBe(200);
  });
  afterAll(async () => {
    await setAttestation(null);
  });

  it("optional: treats an attestation from a provider it does not trust as no attestation; required: refuses it", async () => {
    const instance = await generateEs256KeyPair();
    for (const untrusted of [
      await stranger.attest(instance),
      await provider.attest(instance, { x5c: [] }),
      await provider.attest(instance, { x5c: provider.chains.rootOnly }),
    ]) {
      const r = await tokenRequest(await attested(instance, untrusted));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    expect((await setAttestation({ trustedRoots: [provider.rootPem], required: true })).status).toBe(200);
    try {
      expectInvalidClient(await tokenRequest(await attested(instance, await stranger.attest(instance))));
    } finally {
      await setAttestation({ trustedRoots: [provider.rootPem] });
    }
  });

  it("checks an attestation's status: refuses one its provider revoked, or whose status cannot be checked", async () => {
    // A ttl of 3 s: the two requests after it expires must both fall inside the next one, also under load.
    const lists = await statusListServer(provider.attester, { ttlSeconds: 3 });
    const forged = await statusListServer(stranger.attester);
    try {
      const uri = lists.list("wallets");
      const instance = await generateEs256KeyPair();
      const withStatus = (status: { idx: number; uri: string }) => provider.attest(instance, { status });
      const valid = await tokenRequest(await attested(instance, await withStatus({ idx: 3, uri })));
      expect(valid.status, JSON.stringify(valid.body)).toBe(200);
      expect(lists.fetches()).toBe(1);

      lists.set(uri, 3, 1);
      await new Promise((resolve) => setTimeout(resolve, 3100)); // past the list's ttl
      // Refused even while attestation is optional: a revoked attestation is no anonymous wallet.
      const revoked = await tokenRequest(await attested(instance, await withStatus({ idx: 3, uri })));
      expectInvalidClient(revoked);
      expect(revoked.body.error_description).toMatch(/wallet attestation has been revoked/);
      const other = await tokenRequest(await attested(instance, await withStatus({ idx: 4, uri })));
      expect(other.status, JSON.stringify(other.body)).toBe(200);
      expect(lists.fetches()).toBe(2); // the verified list is cached for its ttl

      // The other provider is trusted too, but a list it signed does not speak for this provider's wallets.
      expect((await setAttestation({ trustedRoots: [provider.rootPem, stranger.rootPem] })).status).toBe(200);
      const missing = `${lists.base}/lists/none`;
      const cases: [string, RegExp][] = [
        [missing, /cannot be checked: its status list could not be fetched/],
        [forged.list("wallets"), /not signed under the attester's root/],
        [uri, /beyond the end of its status list/],
      ];
      for (const [listUri, reason] of cases) {
        const idx = listUri === uri ? 128 : 0;
        const r = await tokenRequest(await attested(instance, await withStatus({ idx, uri: listUri })));
        expectInvalidClient(r);
        expect(r.body.error_description, listUri).toMatch(reason);
      }
      // A list that failed is not fetched again for a while: many wallets, one fetch.
      const before = lists.fetches();
      await tokenRequest(await attested(instance, await withStatus({ idx: 0, uri: missing })));
      expect(lists.fetches()).toBe(before);
      const malformed = await tokenRequest(await attested(instance, await withStatus({ idx: -1, uri })));
      expectInvalidClient(malformed);
      expect(malformed.body.error_description).toMatch(/status claim is malformed/);
    } finally {
      await setAttestation({ trustedRoots: [provider.rootPem] });
      await lists.close();
      await forged.close();
    }
  });

  it("takes a chain that ends with the root itself, and a PoP whose aud lists this issuer among others", async () => {
    const instance = await generateEs256KeyPair();
    const withRoot = await provider.attest(instance, { x5c: provider.chains.withRoot });
    const popWithAudiences = await signEs256Jwt(
      { alg: "ES256", typ: "oauth-client-attestation-pop+jwt" },
      {
        aud: ["https://other.example", issuer.credentialIssuer],
        jti: randomBytes(16).toString("base64url"),
        iat: Math.floor(Date.now() / 1000),
      },
      instance.privateKey,
    );
    const r = await tokenRequest({
      "oauth-client-attestation": withRoot,
      "oauth-client-attestation-pop": popWithAudiences,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  it("binds a code pushed by an attested wallet to that wallet instance", async () => {
    const instance = await generateEs256KeyPair();
    const created = await createTransaction(t, t.adminKey, issuer, { grant: "authorizationCode" });
    const offer = await resolveOffer(created.credentialOffer);
    const verifier = randomBytes(32).toString("base64url");
    const redirectUri = "https://wallet.example.org/cb";
    const pushed = await fetchJson(as.pushed_authorization_request_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...(await attested(instance)) },
      body: new URLSearchParams({
        response_type: "code",
        client_id: WALLET,
        redirect_uri: redirectUri,
        code_challenge: pkceChallengeOf(verifier),
        code_challenge_method: "S256",
        issuer_state: offer.grants.authorization_code.issuer_state,
      }).toString(),
    });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);
    const authorized = await fetch(
      `${as.authorization_endpoint}?${new URLSearchParams({ client_id: WALLET, request_uri: pushed.body.request_uri })}`,
      { redirect: "manual" },
    );
    const code = new URL(authorized.headers.get("location") as string).searchParams.get("code") as string;
    const body = {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: WALLET,
    };
    // Attestation is optional at this issuer, but the code came from an attested instance.
    expectInvalidClient(await tokenRequest({}, body));
    const sibling = await generateEs256KeyPair();
    expectInvalidClient(await tokenRequest(await attested(sibling), body));
    const same = await tokenRequest(await attested(instance), body);
    expect(same.status, JSON.stringify(same.body)).toBe(200);
  });

  it("accepts an attestation with its PoP, and the same PoP only once", async () => {
    const instance = await generateEs256KeyPair();
    const headers = await attested(instance);
    const first = await tokenRequest(headers);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expectInvalidClient(await tokenRequest(headers));
  });

  it("accepts the DPoP proof by the attested key as the PoP (combined mode), and no other key's", async () => {
    const instance = await generateEs256KeyPair();
    const attestation = await provider.attest(instance);
    const combined = await tokenRequest({
      "oauth-client-attestation": attestation,
      dpop: await createDpopProof({ ...instance, method: "POST", url: as.token_endpoint }),
    });
    expect(combined.status, JSON.stringify(combined.body)).toBe(200);
    expect(combined.body.token_type).toBe("DPoP");
    const other = await generateEs256KeyPair();
    expectInvalidClient(
      await tokenRequest({
        "oauth-client-attestation": attestation,
        dpop: await createDpopProof({ ...other, method: "POST", url: as.token_endpoint }),
      }),
    );
    expectInvalidClient(await tokenRequest({ "oauth-client-attestation": attestation }));
  });

  it("refuses attestations that cannot authenticate the wallet, each with 401", async () => {
    const instance = await generateEs256KeyPair();
    const other = await generateEs256KeyPair();
    const audience = issuer.credentialIssuer;
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, Record<string, string>, string?][] = [
      [
        "a forgery: the attester's x5c, signed by another key",
        await attested(instance, await provider.attest(instance, { signWith: other.privateKey })),
      ],
      ["another typ", await attested(instance, await provider.attest(instance, { typ: "JWT" }))],
      [
        "a private key in cnf.jwk",
        await attested(instance, await provider.attest(instance, { leakPrivateKey: true })),
      ],
      [
        "an expired attestation",
        await attested(instance, await provider.attest(instance, { exp: now - 3600 })),
        "invalid_client_attestation",
      ],
      [
        "a PoP by another key",
        {
          "oauth-client-attestation": await provider.attest(instance),
          "oauth-client-attestation-pop": await attestationPop(other, audience),
        },
      ],
      [
        "a PoP for another server",
        {
          "oauth-client-attestation": await provider.attest(instance),
          "oauth-client-attestation-pop": await attestationPop(instance, "https://elsewhere.example"),
        },
      ],
      [
        "an old PoP",
        {
          "oauth-client-attestation": await provider.attest(instance),
          "oauth-client-attestation-pop": await attestationPop(instance, audience, { iat: now - 3600 }),
        },
      ],
      [
        "a PoP of another typ",
        {
          "oauth-client-attestation": await provider.attest(instance),
          "oauth-client-attestation-pop": await attestationPop(instance, audience, { typ: "JWT" }),
        },
      ],
      [
        "a PoP without attestation",
        { "oauth-client-attestation-pop": await attestationPop(instance, audience) },
      ],
      ["garbage", { "oauth-client-attestation": "a.b.c", "oauth-client-attestation-pop": "d.e.f" }],
    ];
    for (const [label, headers, error] of cases) {
      const r = await tokenRequest(headers);
      expect([label, r.status, r.body.error]).toEqual([label, 401, error ?? "invalid_client"]);
    }
    const wrongClient = await tokenRequest(await attested(instance), {
      grant_type: PRE_AUTH,
      "pre-authorized_code": await preAuthorizedCode(),
      client_id: "https://another-wallet.example",
    });
    expectInvalidClient(wrongClient);
  });

  it("required: refuses an anonymous wallet at the token and PAR endpoints, and takes an attested one", async () => {
    expect((await setAttestation({ trustedRoots: [provider.rootPem], required: true })).status).toBe(200);
    try {
      expectInvalidClient(await tokenRequest({}));
      const created = await createTransaction(t, t.adminKey, issuer, { grant: "authorizationCode" });
      const offer = await resolveOffer(created.credentialOffer);
      const verifier = randomBytes(32).toString("base64url");
      const parBody = {
        response_type: "code",
        client_id: WALLET,
        redirect_uri: "https://wallet.example.org/cb",
        code_challenge: pkceChallengeOf(verifier),
        code_challenge_method: "S256",
        issuer_state: offer.grants.authorization_code.issuer_state,
      };
      const par = async (headers: Record<string, string>, body: Record<string, string> = parBody) =>
        fetchJson(as.pushed_authorization_request_endpoint, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
          body: new URLSearchParams(body).toString(),
        });
      expectInvalidClient(await par({}));
      const instance = await generateEs256KeyPair();
      expectInvalidClient(await par(await attested(instance), { ...parBody, client_id: "someone-else" }));
      // An expired attestation is invalid (not merely stale) at the PAR endpoint too.
      const expired = await provider.attest(instance, { exp: Math.floor(Date.now() / 1000) - 3600 });
      expectInvalidClient(await par(await attested(instance, expired)), "invalid_client_attestation");
      const pushed = await par(await attested(instance));
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);
      const authorized = await fetch(
        `${as.authorization_endpoint}?${new URLSearchParams({ client_id: WALLET, request_uri: pushed.body.request_uri })}`,
        { redirect: "manual" },
      );
      const code = new URL(authorized.headers.get("location") as string).searchParams.get("code") as string;
      // The attested client need not repeat its client_id: the attestation's sub names it.
      const token = await tokenRequest(await attested(instance), {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: parBody.redirect_uri,
      });
      expect(token.status, JSON.stringify(token.body)).toBe(200);
    } finally {
      await setAttestation({ trustedRoots: [provider.rootPem] });
    }
  });
});

describe("attestation challenges (requireChallenge)", () => {
  const withChallenges = () => ({ trustedRoots: [provider.rootPem], requireChallenge: true });
  beforeAll(async () => {
    expect((await setAttestation(withChallenges())).status).toBe(200);
  });
  afterAll(async () => {
    await setAttestation(null);
  });

  const challengeEndpoint = () => `${issuer.credentialIssuer}/challenge`;
  async function challenge(endpoint = challengeEndpoint()) {
    const r = await fetchJson(endpoint, { method: "POST" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.attestation_challenge as string;
  }
  const withPop = async (instance: Key, challengeValue?: string) => ({
    "oauth-client-attestation": await provider.attest(instance),
    "oauth-client-attestation-pop": await attestationPop(instance, issuer.credentialIssuer, {
      ...(challengeValue !== undefined ? { challenge: challengeValue } : {}),
    }),
  });

  it("announces the challenge endpoint, which hands out uncacheable challenges", async () => {
    const metadata = (await fetchJson(wellKnown("oauth-authorization-server", issuer.credentialIssuer))).body;
    expect(metadata.challenge_endpoint).toBe(challengeEndpoint());
    const r = await fetchJson(challengeEndpoint(), { method: "POST" });
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body.attestation_challenge).toMatch(/^[A-Za-z0-9_-]{30}$/);
    expect((await setAttestation({ trustedRoots: [provider.rootPem] })).status).toBe(200);
    try {
      const without = (await fetchJson(wellKnown("oauth-authorization-server", issuer.credentialIssuer)))
        .body;
      expect(without.challenge_endpoint).toBeUndefined();
      expect((await fetchJson(challengeEndpoint(), { method: "POST" })).status).toBe(404);
    } finally {
      await setAttestation(withChallenges());
    }
  });

  it("refuses a PoP without a challenge with use_attestation_challenge and a fresh one, then takes it", async () => {
    const instance = await generateEs256KeyPair();
    const refused = await tokenRequest(await withPop(instance));
    expect([refused.status, refused.body.error]).toEqual([400, "use_attestation_challenge"]);
    const offered = refused.headers.get("oauth-client-attestation-challenge") as string;
    expect(offered).toMatch(/^[A-Za-z0-9_-]{30}$/);
    const accepted = await tokenRequest(await withPop(instance, offered));
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    // Every answer brings the next challenge; one from the endpoint serves as well.
    expect(accepted.headers.get("oauth-client-attestation-challenge")).toMatch(/^[A-Za-z0-9_-]{30}$/);
    expect((await tokenRequest(await withPop(instance, await challenge()))).status).toBe(200);
  });

  it("refuses a made-up challenge, and one of another issuer", async () => {
    const instance = await generateEs256KeyPair();
    const madeUp = await tokenRequest(await withPop(instance, "A".repeat(30)));
    expect([madeUp.status, madeUp.body.error]).toEqual([400, "use_attestation_challenge"]);
    const other = await activeIssuer(t, t.adminKey);
    const otherPath = `/management/issuers/${other.issuerId}`;
    await call(t, "PATCH", otherPath, { key: t.adminKey, body: { walletAttestation: withChallenges() } });
    const foreign = await challenge(`${other.credentialIssuer}/challenge`);
    const refused = await tokenRequest(await withPop(instance, foreign));
    expect([refused.status, refused.body.error]).toEqual([400, "use_attestation_challenge"]);
  });

  it("takes the challenge as the DPoP proof's nonce when the proof is the PoP (combined mode)", async () => {
    const instance = await generateEs256KeyPair();
    const attestation = await provider.attest(instance);
    const proofWith = async (nonce?: string) =>
      createDpopProof({ ...instance, method: "POST", url: as.token_endpoint, ...(nonce ? { nonce } : {}) });
    const combined = async (nonce?: string) =>
      tokenRequest({ "oauth-client-attestation": attestation, dpop: await proofWith(nonce) });
    const refused = await combined();
    expect([refused.status, refused.body.error]).toEqual([400, "use_attestation_challenge"]);
    const accepted = await combined(refused.headers.get("oauth-client-attestation-challenge") as string);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect((await combined(await challenge())).status).toBe(200);
    const madeUp = await combined("x".repeat(30));
    expect([madeUp.status, madeUp.body.error]).toEqual([400, "use_attestation_challenge"]);
  });

  it("while attestation is optional, asks no challenge of a wallet whose provider it does not trust", async () => {
    const instance = await generateEs256KeyPair();
    const attestation = await stranger.attest(instance);
    const withOwnPop = await tokenRequest({
      "oauth-client-attestation": attestation,
      "oauth-client-attestation-pop": await attestationPop(instance, issuer.credentialIssuer),
    });
    expect(withOwnPop.status, JSON.stringify(withOwnPop.body)).toBe(200);
    const combined = await tokenRequest({
      "oauth-client-attestation": attestation,
      dpop: await createDpopProof({ ...instance, method: "POST", url: as.token_endpoint }),
    });
    expect(combined.status, JSON.stringify(combined.body)).toBe(200);
  });

  it("asks for a challenge at the PAR endpoint too", async () => {
    const created = await createTransaction(t, t.adminKey, issuer, { grant: "authorizationCode" });
    const offer = await resolveOffer(created.credentialOffer);
    const body = new URLSearchParams({
      response_type: "code",
      client_id: WALLET,
      redirect_uri: "https://wallet.example.org/cb",
      code_challenge: pkceChallengeOf(randomBytes(32).toString("base64url")),
      code_challenge_method: "S256",
      issuer_state: offer.grants.authorization_code.issuer_state,
    }).toString();
    const par = async (headers: Record<string, string>) =>
      fetchJson(as.pushed_authorization_request_endpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body,
      });
    const instance = await generateEs256KeyPair();
    const refused = await par(await withPop(instance));
    expect([refused.status, refused.body.error]).toEqual([400, "use_attestation_challenge"]);
    const pushed = await par(
      await withPop(instance, refused.headers.get("oauth-client-attestation-challenge") as string),
    );
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);
    expect(pushed.headers.get("oauth-client-attestation-challenge")).toMatch(/^[A-Za-z0-9_-]{30}$/);
  });
});
