import { describe, expect, it } from "vitest";
import { jwkThumbprintKid } from "../jose/jwk";
import { signEs256Jwt } from "../jose/jws";
import { es256PublicKeyObject, generateEs256KeyPair } from "../jose/keys";
import { OAuthError } from "../jose/oauth-error";
import { ClientAttestationError, verifyClientAttestation } from "./client-attestation";
import { verifyKeyAttestation } from "./key-attestation";

const NOW = 1_800_000_000;
const AS = "https://issuer.example/issuers/iss_1";
type Key = Awaited<ReturnType<typeof generateEs256KeyPair>>;
const pub = ({ publicJwk: { kty, crv, x, y } }: Key) => ({ kty, crv, x, y });

async function setup() {
  return { attester: await generateEs256KeyPair(), instance: await generateEs256KeyPair() };
}

const attestation = (
  attester: Key,
  instance: Key,
  payload: Record<string, unknown> = {},
  typ = "oauth-client-attestation+jwt",
) =>
  signEs256Jwt(
    { alg: "ES256", typ },
    { sub: "https://wallet.example", exp: NOW + 600, cnf: { jwk: pub(instance) }, ...payload },
    attester.privateKey,
  );
const pop = (instance: Key, payload: Record<string, unknown> = {}) =>
  signEs256Jwt(
    { alg: "ES256", typ: "oauth-client-attestation-pop+jwt" },
    { aud: AS, jti: "j1", iat: NOW, ...payload },
    instance.privateKey,
  );

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ClientAttestationError)
      return `${error.code}${error.untrustedAttester ? " (untrusted)" : ""}`;
    if (error instanceof OAuthError) return error.error;
    throw error;
  }
  return "none";
}

describe("verifyClientAttestation", () => {
  it("accepts an attestation with its PoP, or with a DPoP proof by the attested key", async () => {
    const { attester, instance } = await setup();
    const key = { audience: AS, now: NOW, attesterKey: async () => es256PublicKeyObject(attester.publicJwk) };
    const verified = await verifyClientAttestation({
      ...key,
      attestation: await attestation(attester, instance, { wallet_name: "W" }),
      pop: await pop(instance),
    });
    expect(verified).toMatchObject({
      clientId: "https://wallet.example",
      walletName: "W",
      pop: { jti: "j1", iat: NOW },
    });
    const combined = await verifyClientAttestation({
      ...key,
      attestation: await attestation(attester, instance),
      dpopJkt: jwkThumbprintKid(pub(instance)),
    });
    expect(combined.pop).toBeUndefined();
  });

  it("refuses what cannot authenticate, telling an untrusted attester apart", async () => {
    const { attester, instance } = await setup();
    const other = await generateEs256KeyPair();
    const base = {
      audience: AS,
      now: NOW,
      attesterKey: async () => es256PublicKeyObject(attester.publicJwk),
    };
    const att = await attestation(attester, instance);
    expect(
      await failure(
        verifyClientAttestation({
          ...base,
          attesterKey: async () => null,
          attestation: att,
          pop: await pop(instance),
        }),
      ),
    ).toBe("invalid_client (untrusted)");
    expect(
      await failure(
        verifyClientAttestation({
          ...base,
          attestation: await attestation(other, instance),
          pop: await pop(instance),
        }),
      ),
    ).toBe("invalid_client");
    expect(
      await failure(
        verifyClientAttestation({
          ...base,
          attestation: await attestation(attester, instance, {}, "JWT"),
          pop: await pop(instance),
        }),
      ),
    ).toBe("invalid_client");
    expect(
      await failure(
        verifyClientAttestation({
          ...base,
          attestation: await attestation(attester, instance, { exp: NOW - 3600 }),
          pop: await pop(instance),
        }),
      ),
    ).toBe("invalid_client_attestation");
    expect(
      await failure(
        verifyClientAttestation({
          ...base,
          attestation: await attestation(attester, instance, { cnf: { jwk: instance.privateJwk } }),
          pop: await pop(instance),
        }),
      ),
    ).toBe("invalid_client");
    expect(await failure(verifyClientAttestation({ ...base, attestation: att, pop: await pop(other) }))).toBe(
      "invalid_client",
    );
    expect(
      await failure(
        verifyClientAttestation({
          ...base,
          attestation: att,
          pop: await pop(instance, { aud: "https://else" }),
        }),
      ),
    ).toBe("invalid_client");
    expect(
      await failure(
        verifyClientAttestation({ ...base, attestation: att, pop: await pop(instance, { iat: NOW - 3600 }) }),
      ),
    ).toBe("invalid_client");
    expect(await failure(verifyClientAttestation({ ...base, attestation: att }))).toBe("invalid_client");
    expect(
      await failure(
        verifyClientAttestation({ ...base, attestation: att, dpopJkt: jwkThumbprintKid(pub(other)) }),
      ),
    ).toBe("invalid_client");
    // An aud array naming us among others is fine.
    const many = await pop(instance, { aud: ["https://else", AS] });
    expect((await verifyClientAttestation({ ...base, attestation: att, pop: many })).clientId).toBe(
      "https://wallet.example",
    );
  });
});

describe("verifyKeyAttestation", () => {
  const keyAttestation = (
    attester: Key,
    keys: Key[],
    payload: Record<string, unknown> = {},
    typ = "key-attestation+jwt",
  ) =>
    signEs256Jwt(
      { alg: "ES256", typ },
      {
        iat: NOW,
        exp: NOW + 600,
        attested_keys: keys.map(pub),
        key_storage: ["iso_18045_high"],
        nonce: "n",
        ...payload,
      },
      attester.privateKey,
    );

  it("returns the attested keys and nonce, under the final and the drafts' typ", async () => {
    const { attester, instance } = await setup();
    const options = {
      attesterKey: async () => es256PublicKeyObject(attester.publicJwk),
      requirement: { keyStorage: ["iso_18045_high", "iso_18045_moderate"] },
      now: NOW,
      requireExp: true,
    };
    for (const typ of ["key-attestation+jwt", "keyattestation+jwt"]) {
      const verified = await verifyKeyAttestation(
        await keyAttestation(attester, [instance], {}, typ),
        options,
      );
      expect(verified).toEqual({
        keys: [{ jwk: pub(instance), thumbprint: jwkThumbprintKid(pub(instance)) }],
        nonce: "n",
        exp: NOW + 600,
      });
    }
    const noExp = await keyAttestation(attester, [instance], { exp: undefined });
    expect(await failure(verifyKeyAttestation(noExp, options))).toBe("invalid_proof");
    expect((await verifyKeyAttestation(noExp, { ...options, requireExp: false })).keys).toHaveLength(1);
    const basic = await keyAttestation(attester, [instance], { key_storage: ["iso_18045_basic"] });
    expect(await failure(verifyKeyAttestation(basic, options))).toBe("invalid_proof");
    const noStorage = await keyAttestation(attester, [instance], { key_storage: undefined });
    expect(await failure(verifyKeyAttestation(noStorage, options))).toBe("invalid_proof");
    const privateKey = await keyAttestation(attester, [instance], { attested_keys: [instance.privateJwk] });
    expect(await failure(verifyKeyAttestation(privateKey, options))).toBe("invalid_proof");
    const future = await keyAttestation(attester, [instance], { iat: NOW + 3600 });
    expect(await failure(verifyKeyAttestation(future, options))).toBe("invalid_proof");
    expect(
      await failure(verifyKeyAttestation(await keyAttestation(attester, [instance], {}, "JWT"), options)),
    ).toBe("invalid_proof");
    expect(
      await failure(
        verifyKeyAttestation(await keyAttestation(attester, [instance]), {
          ...options,
          attesterKey: async () => null,
        }),
      ),
    ).toBe("invalid_proof");
  });
});
