// Key attestations (OpenID4VCI Appendix D) at the credential endpoint of an issuer that trusts a key
// attester: in a jwt proof's key_attestation header, or as the attestation proof type.
import { decodeJwtUnverified, generateEs256KeyPair, signEs256Jwt } from "@cred/oid4vc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActiveIssuer, activeIssuer, createTransaction } from "./fixtures";
import { call, errorCode, startTestServer, type TestServer } from "./harness";
import { fetchJson, nonce, resolveOffer, token, wellKnown } from "./wallet-client";
import { statusListServer, walletProvider } from "./wallet-provider";

type Key = Awaited<ReturnType<typeof generateEs256KeyPair>>;
const PRE_AUTH = "urn:ietf:params:oauth:grant-type:pre-authorized_code";

let t: TestServer;
let issuer: ActiveIssuer;
let metadata: Record<string, any>;
let attester: Awaited<ReturnType<typeof walletProvider>>;
let stranger: Awaited<ReturnType<typeof walletProvider>>;

beforeAll(async () => {
  t = await startTestServer();
  issuer = await activeIssuer(t, t.adminKey);
  attester = await walletProvider("Key Attester");
  stranger = await walletProvider("Unknown Key Attester");
  metadata = (await fetchJson(wellKnown("openid-credential-issuer", issuer.credentialIssuer))).body;
});
afterAll(() => t?.close());

const setKeyAttestation = (keyAttestation: unknown) =>
  call(t, "PATCH", `/management/issuers/${issuer.issuerId}`, { key: t.adminKey, body: { keyAttestation } });

/** An access token for a fresh offer, and a fresh c_nonce. */
async function tokenAndNonce() {
  const created = await createTransaction(t, t.adminKey, issuer);
  const offer = await resolveOffer(created.credentialOffer);
  const issued = await token(`${issuer.credentialIssuer}/token`, {
    grant_type: PRE_AUTH,
    "pre-authorized_code": offer.grants[PRE_AUTH]["pre-authorized_code"],
  });
  return { accessToken: issued.body.access_token as string, cNonce: await nonce(metadata.nonce_endpoint) };
}

function proofWith(key: Key, cNonce: string, keyAttestation?: string) {
  const { kty, crv, x, y } = key.publicJwk;
  return signEs256Jwt(
    {
      alg: "ES256",
      typ: "openid4vci-proof+jwt",
      jwk: { kty, crv, x, y },
      ...(keyAttestation ? { key_attestation: keyAttestation } : {}),
    },
    { aud: issuer.credentialIssuer, iat: Math.floor(Date.now() / 1000), nonce: cNonce },
    key.privateKey,
  );
}

function credentialRequest(accessToken: string, proofs: Record<string, string[]>) {
  return fetchJson(metadata.credential_endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ credential_configuration_id: issuer.configuration, proofs }),
  });
}

const cnfX = (credential: string) =>
  (decodeJwtUnverified(credential.split("~")[0]!).payload as { cnf: { jwk: { x: string } } }).cnf.jwk.x;

describe("key attestation settings and metadata", () => {
  it("reads none by default: no attestation proof type, and a key_attestation header is not read", async () => {
    const proofTypes =
      metadata.credential_configurations_supported[issuer.configuration].proof_types_supported;
    expect(Object.keys(proofTypes)).toEqual(["jwt"]);
    const key = await generateEs256KeyPair();
    const { accessToken, cNonce } = await tokenAndNonce();
    const ignored = await credentialRequest(accessToken, {
      jwt: [await proofWith(key, cNonce, "not.an.attestation")],
    });
    expect(ignored.status, JSON.stringify(ignored.body)).toBe(200);
    const again = await tokenAndNonce();
    const attestationType = await credentialRequest(again.accessToken, {
      attestation: [await attester.attestKeys([key], { nonce: again.cNonce })],
    });
    expect([attestationType.status, attestationType.body.error]).toEqual([400, "invalid_proof"]);
  });

  it("takes trusted roots and accepted levels, refuses a leaf as root, and announces a requirement", async () => {
    const bad = await setKeyAttestation({ trustedRoots: ["nope"] });
    expect([bad.status, errorCode(bad)]).toEqual([400, "ValidationFailed"]);
    const set = await setKeyAttestation({
      trustedRoots: [attester.rootPem],
      required: true,
      keyStorage: ["iso_18045_high", "iso_18045_moderate"],
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.data.keyAttestation).toEqual({
      trustedRoots: [attester.rootPem],
      required: true,
      keyStorage: ["iso_18045_high", "iso_18045_moderate"],
    });
    const read = (await fetchJson(wellKnown("openid-credential-issuer", issuer.credentialIssuer))).body;
    const required = { key_storage: ["iso_18045_high", "iso_18045_moderate"] };
    expect(read.credential_configurations_supported[issuer.configuration].proof_types_supported).toEqual({
      jwt: { proof_signing_alg_values_supported: ["ES256"], key_attestations_required: required },
      attestation: { proof_signing_alg_values_supported: ["ES256"], key_attestations_required: required },
    });
    await setKeyAttestation(null);
  });
});

describe("optional key attestations", () => {
  beforeAll(async () => {
    const set = await setKeyAttestation({ trustedRoots: [attester.rootPem], keyStorage: ["iso_18045_high"] });
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    await setKeyAttestation(null);
  });

  it("issues for the proof key alone when the attestation is not one it accepts, and refuses a forged one", async () => {
    const [key, other] = [await generateEs256KeyPair(), await generateEs256KeyPair()];
    for (const make of [
      (n: string) => stranger.attestKeys([key, other], { nonce: n }),
      (n: string) => attester.attestKeys([key, other], { nonce: n, keyStorage: ["iso_18045_basic"] }),
    ]) {
      const { accessToken, cNonce } = await tokenAndNonce();
      const r = await credentialRequest(accessToken, {
        jwt: [await proofWith(key, cNonce, await make(cNonce))],
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.credentials.map((c: { credential: string }) => cnfX(c.credential))).toEqual([
        key.publicJwk.x,
      ]);
    }
    const { accessToken, cNonce } = await tokenAndNonce();
    const genuine = await attester.attestKeys([key], { nonce: cNonce, keyStorage: ["iso_18045_high"] });
    const [head, body] = genuine.split(".");
    const tampered = `${head}.${body}.${"A".repeat(86)}`;
    const r = await credentialRequest(accessToken, { jwt: [await proofWith(key, cNonce, tampered)] });
    expect([r.status, r.body.error]).toEqual([400, "invalid_proof"]);
  });

  it("checks an attestation's status: refuses one its attester revoked even while attestations are optional", async () => {
    const lists = await statusListServer(attester.attester);
    try {
      const uri = lists.list("keys");
      const [key, other] = [await generateEs256KeyPair(), await generateEs256KeyPair()];
      const attest = (cNonce: string) =>
        attester.attestKeys([key, other], {
          nonce: cNonce,
          keyStorage: ["iso_18045_high"],
          status: { idx: 5, uri },
        });
      const before = await tokenAndNonce();
      const valid = await credentialRequest(before.accessToken, {
        jwt: [await proofWith(key, before.cNonce, await attest(before.cNonce))],
      });
      expect(valid.status, JSON.stringify(valid.body)).toBe(200);
      expect(valid.body.credentials).toHaveLength(2);

      lists.set(uri, 5, 1);
      await new Promise((resolve) => setTimeout(resolve, 1100)); // the list's ttl is 1 s
      const after = await tokenAndNonce();
      const revoked = await credentialRequest(after.accessToken, {
        jwt: [await proofWith(key, after.cNonce, await attest(after.cNonce))],
      });
      expect([revoked.status, revoked.body.error]).toEqual([400, "invalid_proof"]);
      expect(revoked.body.error_description).toMatch(/key attestation has been revoked/);
      const asProof = await tokenAndNonce();
      const attestationProof = await credentialRequest(asProof.accessToken, {
        attestation: [await attest(asProof.cNonce)],
      });
      expect([attestationProof.status, attestationProof.body.error]).toEqual([400, "invalid_proof"]);
      expect(attestationProof.body.error_description).toMatch(/key attestation has been revoked/);
      // A list that cannot be fetched leaves the status unknown: refused too.
      const unknown = await tokenAndNonce();
      const unreachable = await attester.attestKeys([key], {
        nonce: unknown.cNonce,
        keyStorage: ["iso_18045_high"],
        status: { idx: 0, uri: `${lists.base}/lists/none` },
      });
      const refused = await credentialRequest(unknown.accessToken, {
        jwt: [await proofWith(key, unknown.cNonce, unreachable)],
      });
      expect([refused.status, refused.body.error]).toEqual([400, "invalid_proof"]);
      expect(refused.body.error_description).toMatch(/status that cannot be checked/);
    } finally {
      await lists.close();
    }
  });

  it("refuses an attested key that is no P-256 point", async () => {
    const key = await generateEs256KeyPair();
    const { accessToken, cNonce } = await tokenAndNonce();
    const bogus = { ...key, publicJwk: { ...key.publicJwk, y: key.publicJwk.x } };
    const attestation = await attester.attestKeys([key, bogus as Key], {
      nonce: cNonce,
      keyStorage: ["iso_18045_high"],
    });
    const r = await credentialRequest(accessToken, { jwt: [await proofWith(key, cNonce, attestation)] });
    expect([r.status, r.body.error]).toEqual([400, "invalid_proof"]);
  });
});

describe("key attestations at the credential endpoint", () => {
  beforeAll(async () => {
    const set = await setKeyAttestation({
      trustedRoots: [attester.rootPem],
      required: true,
      keyStorage: ["iso_18045_high", "iso_18045_moderate"],
    });
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    await setKeyAttestation(null);
  });

  it("issues one credential per attested key for a jwt proof with a key attestation", async () => {
    const [proofKey, other] = [await generateEs256KeyPair(), await generateEs256KeyPair()];
    const { accessToken, cNonce } = await tokenAndNonce();
    const attestation = await attester.attestKeys([proofKey, other], { nonce: cNonce });
    const r = await credentialRequest(accessToken, { jwt: [await proofWith(proofKey, cNonce, attestation)] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.credentials.map((c: { credential: string }) => cnfX(c.credential)).sort()).toEqual(
      [proofKey.publicJwk.x, other.publicJwk.x].sort(),
    );
  });

  it("issues for the keys of an attestation proof, and spends its c_nonce", async () => {
    const keys = [await generateEs256KeyPair(), await generateEs256KeyPair(), await generateEs256KeyPair()];
    const { accessToken, cNonce } = await tokenAndNonce();
    const attestation = await attester.attestKeys(keys, { nonce: cNonce, exp: null });
    const r = await credentialRequest(accessToken, { attestation: [attestation] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.credentials).toHaveLength(3);
    const replay = await tokenAndNonce();
    const spent = await credentialRequest(replay.accessToken, { attestation: [attestation] });
    expect([spent.status, spent.body.error]).toEqual([400, "invalid_nonce"]);
  });

  it("refuses proofs whose key attestation is missing, untrusted or unacceptable, with invalid_proof", async () => {
    const key = await generateEs256KeyPair();
    const other = await generateEs256KeyPair();
    const cases: [string, (cNonce: string) => Promise<Record<string, string[]>>][] = [
      ["no key attestation", async (n) => ({ jwt: [await proofWith(key, n)] })],
      [
        "an unknown attester",
        async (n) => ({ jwt: [await proofWith(key, n, await stranger.attestKeys([key], { nonce: n }))] }),
      ],
      [
        "a key storage not accepted",
        async (n) => ({
          jwt: [
            await proofWith(
              key,
              n,
              await attester.attestKeys([key], { nonce: n, keyStorage: ["iso_18045_basic"] }),
            ),
          ],
        }),
      ],
      [
        "no exp in a jwt proof's attestation",
        async (n) => ({
          jwt: [await proofWith(key, n, await attester.attestKeys([key], { nonce: n, exp: null }))],
        }),
      ],
      [
        "an expired attestation",
        async (n) => ({
          jwt: [
            await proofWith(
              key,
              n,
              await attester.attestKeys([key], { nonce: n, exp: Math.floor(Date.now() / 1000) - 3600 }),
            ),
          ],
        }),
      ],
      [
        "a proof key the attestation does not attest",
        async (n) => ({ jwt: [await proofWith(key, n, await attester.attestKeys([other], { nonce: n }))] }),
      ],
      [
        "an attestation without c_nonce",
        async (n) => ({ jwt: [await proofWith(key, n, await attester.attestKeys([key]))] }),
      ],
      [
        "an attestation proof without c_nonce",
        async () => ({ attestation: [await attester.attestKeys([key])] }),
      ],
    ];
    for (const [label, proofs] of cases) {
      const { accessToken, cNonce } = await tokenAndNonce();
      const r = await credentialRequest(accessToken, await proofs(cNonce));
      expect([label, r.status, r.body.error]).toEqual([label, 400, "invalid_proof"]);
    }
  });

  it("issues for at most a batch of attested keys, and takes one attestation proof only", async () => {
    const keys = await Promise.all(Array.from({ length: 11 }, () => generateEs256KeyPair()));
    const { accessToken, cNonce } = await tokenAndNonce();
    const r = await credentialRequest(accessToken, {
      attestation: [await attester.attestKeys(keys, { nonce: cNonce })],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.credentials).toHaveLength(10);
    const two = await tokenAndNonce();
    const twice = await attester.attestKeys([keys[0]!], { nonce: two.cNonce });
    const refused = await credentialRequest(two.accessToken, { attestation: [twice, twice] });
    expect([refused.status, refused.body.error]).toEqual([400, "invalid_credential_request"]);
  });

  it("takes a batch whose keys one attestation covers, and a proof naming its attested key by kid", async () => {
    const [a, b] = [await generateEs256KeyPair(), await generateEs256KeyPair()];
    const { accessToken, cNonce } = await tokenAndNonce();
    const attestation = await attester.attestKeys([a, b], { nonce: cNonce });
    const batch = await credentialRequest(accessToken, {
      jwt: [await proofWith(a, cNonce, attestation), await proofWith(b, cNonce)],
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    expect(batch.body.credentials).toHaveLength(2);

    const byKid = await tokenAndNonce();
    const kidProof = await signEs256Jwt(
      {
        alg: "ES256",
        typ: "openid4vci-proof+jwt",
        kid: "0",
        key_attestation: await attester.attestKeys([b, a], { nonce: byKid.cNonce }),
      },
      { aud: issuer.credentialIssuer, iat: Math.floor(Date.now() / 1000), nonce: byKid.cNonce },
      a.privateKey,
    );
    const named = await credentialRequest(byKid.accessToken, { jwt: [kidProof] });
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    expect(named.body.credentials.map((c: { credential: string }) => cnfX(c.credential)).sort()).toEqual(
      [a.publicJwk.x, b.publicJwk.x].sort(),
    );
  });

  it("does not let a credential outlive the attestation of its key", async () => {
    const key = await generateEs256KeyPair();
    const { accessToken, cNonce } = await tokenAndNonce();
    const attestationExp = Math.floor(Date.now() / 1000) + 3600;
    const r = await credentialRequest(accessToken, {
      jwt: [
        await proofWith(
          key,
          cNonce,
          await attester.attestKeys([key], { nonce: cNonce, exp: attestationExp }),
        ),
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const payload = decodeJwtUnverified(r.body.credentials[0].credential.split("~")[0]).payload as {
      exp: number;
    };
    expect(payload.exp).toBe(attestationExp);
  });
});
