import { CompactEncrypt, compactDecrypt, exportJWK, generateKeyPair, importJWK } from "jose";
import { describe, expect, it } from "vitest";
import { encryptEcdhEsCompactJwe } from "../jose/ecdh-es-jwe";
import { OAuthError } from "../jose/oauth-error";
import { generateResponseEncryptionKey } from "../vp/response-encryption";
import {
  type CredentialEncryptionKey,
  credentialEncryptionMetadata,
  decryptCredentialRequest,
  encryptCredentialResponse,
  parseResponseEncryption,
  readCredentialRequestBody,
} from "./credential-encryption";
import { parseCredentialRequest } from "./credential-request";
import { buildCredentialIssuerMetadata } from "./issuer-metadata";

function issuerKey(): CredentialEncryptionKey {
  const { publicJwk, privateJwk } = generateResponseEncryptionKey();
  return {
    publicJwk: publicJwk as CredentialEncryptionKey["publicJwk"],
    privateJwk: privateJwk as CredentialEncryptionKey["privateJwk"],
  };
}

/** A wallet's encrypted request, made with jose (an implementation independent of ours). */
async function encryptWithJose(
  claims: unknown,
  key: CredentialEncryptionKey,
  header: Record<string, unknown> = {},
) {
  const recipient = await importJWK(key.publicJwk, "ECDH-ES");
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: "ECDH-ES", enc: "A128GCM", kid: key.publicJwk.kid, ...header })
    .encrypt(recipient);
}

async function errorOf(fn: () => unknown): Promise<{ error: string; description?: string }> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof OAuthError) return { error: e.error, description: e.error_description };
    throw e;
  }
  return { error: "none" };
}

async function walletResponseKey() {
  const { publicKey, privateKey } = await generateKeyPair("ECDH-ES", { crv: "P-256" });
  const jwk = { ...(await exportJWK(publicKey)), alg: "ECDH-ES", kid: "wallet-1" };
  return { jwk, privateKey };
}

describe("credential request and response encryption (OpenID4VCI §10)", () => {
  it("publishes request and response encryption together, without the private key", () => {
    const key = issuerKey();
    const metadata = credentialEncryptionMetadata({ ...key.publicJwk, d: "secret" }, true);
    expect(metadata.credential_request_encryption).toEqual({
      jwks: { keys: [key.publicJwk] },
      enc_values_supported: ["A128GCM", "A256GCM"],
      encryption_required: true,
    });
    expect(metadata.credential_response_encryption).toEqual({
      alg_values_supported: ["ECDH-ES"],
      enc_values_supported: ["A128GCM", "A256GCM"],
      encryption_required: true,
    });
    const built = buildCredentialIssuerMetadata({
      credentialIssuer: "https://issuer.example",
      credentialEndpoint: "https://issuer.example/credential",
      configurations: [],
      credentialEncryption: { publicJwk: key.publicJwk, required: false },
    });
    expect(built.credential_request_encryption?.encryption_required).toBe(false);
    expect(built.credential_response_encryption?.alg_values_supported).toEqual(["ECDH-ES"]);
  });

  it("decrypts a request jose encrypted, with A128GCM and A256GCM", async () => {
    const key = issuerKey();
    const body = { credential_configuration_id: "pid", proofs: { jwt: ["a.b.c"] } };
    expect(await decryptCredentialRequest(await encryptWithJose(body, key), [key])).toEqual(body);
    const a256 = await encryptWithJose(body, key, { enc: "A256GCM" });
    expect(await decryptCredentialRequest(a256, [key])).toEqual(body);
  });

  it.each([
    ["another kid", { kid: "someone-else" }, "invalid_encryption_parameters"],
    ["a zip", { zip: "DEF" }, "invalid_encryption_parameters"],
  ] as const)("refuses a request with %s", async (_label, header, code) => {
    const key = issuerKey();
    // jose does not compress, so a zip header is only claimed (with our encrypter): it is refused unread.
    const jwe =
      "zip" in header
        ? encryptEcdhEsCompactJwe(Buffer.from("{}"), key.publicJwk as never, "A128GCM", {
            kid: key.publicJwk.kid,
            ...header,
          })
        : await encryptWithJose({ credential_configuration_id: "pid" }, key, header);
    expect((await errorOf(() => decryptCredentialRequest(jwe, [key]))).error).toBe(code);
  });

  it("refuses a request for another key, a tampered one, and one that holds no JSON object", async () => {
    const key = issuerKey();
    const other = issuerKey();
    const forOther = await encryptWithJose({ credential_configuration_id: "pid" }, other, {
      kid: key.publicJwk.kid,
    });
    expect((await errorOf(() => decryptCredentialRequest(forOther, [key]))).error).toBe(
      "invalid_credential_request",
    );
    const good = await encryptWithJose({ credential_configuration_id: "pid" }, key);
    const parts = good.split(".");
    // The ciphertext's first character changed (it carries six whole bits): replacing its last ones with
    // a fixed "AA" left it as it was whenever it already ended so, and the request then decrypted.
    const ciphertext = parts[3]!;
    parts[3] = `${ciphertext[0] === "A" ? "B" : "A"}${ciphertext.slice(1)}`;
    expect((await errorOf(() => decryptCredentialRequest(parts.join("."), [key]))).error).toBe(
      "invalid_credential_request",
    );
    const array = await encryptWithJose(["not", "an", "object"], key);
    expect((await errorOf(() => decryptCredentialRequest(array, [key]))).error).toBe(
      "invalid_credential_request",
    );
    expect((await errorOf(() => decryptCredentialRequest("a.b.c", [key]))).error).toBe(
      "invalid_credential_request",
    );
  });

  it("reads the body by media type: encrypted, plain, and what the issuer's setting allows", async () => {
    const key = issuerKey();
    const jwe = await encryptWithJose({ credential_configuration_id: "pid" }, key);
    expect(
      await readCredentialRequestBody({
        contentType: "application/jwt; charset=utf-8",
        body: jwe,
        keys: [key],
        required: true,
      }),
    ).toEqual({ body: { credential_configuration_id: "pid" }, encrypted: true });
    const plain = { credential_configuration_id: "pid" };
    expect(
      await readCredentialRequestBody({
        contentType: "application/json",
        body: plain,
        keys: [key],
        required: false,
      }),
    ).toEqual({ body: plain, encrypted: false });
    const required = await errorOf(() =>
      readCredentialRequestBody({
        contentType: "application/json",
        body: plain,
        keys: [key],
        required: true,
      }),
    );
    expect(required.error).toBe("invalid_encryption_parameters");
    const notOffered = await errorOf(() =>
      readCredentialRequestBody({
        contentType: "application/jwt",
        body: jwe,
        keys: [],
        required: false,
      }),
    );
    expect(notOffered.error).toBe("invalid_encryption_parameters");
  });

  it("encrypts the response to the wallet's key, naming its kid; jose decrypts it", async () => {
    const wallet = await walletResponseKey();
    const encryption = parseResponseEncryption({ jwk: wallet.jwk, enc: "A256GCM" });
    const response = { credentials: [{ credential: "eyJ…~" }], notification_id: "n1" };
    const jwe = encryptCredentialResponse(response, encryption);
    const { plaintext, protectedHeader } = await compactDecrypt(jwe, wallet.privateKey);
    expect(JSON.parse(new TextDecoder().decode(plaintext))).toEqual(response);
    expect(protectedHeader).toMatchObject({ alg: "ECDH-ES", enc: "A256GCM", kid: "wallet-1" });
  });

  it.each([
    ["not an object", "x"],
    ["no jwk", { enc: "A128GCM" }],
    ["an RSA key", { jwk: { kty: "RSA", n: "x", e: "AQAB", alg: "ECDH-ES" }, enc: "A128GCM" }],
    ["no alg on the jwk", "no-alg"],
    ["another enc", "enc:A192GCM"],
    ["a zip", "zip"],
    ["a private key", "private"],
    ["a point off the curve", "off-curve"],
  ] as const)("refuses credential_response_encryption with %s", async (_label, variant) => {
    const wallet = await walletResponseKey();
    const value =
      variant === "enc:A192GCM"
        ? { jwk: wallet.jwk, enc: "A192GCM" }
        : variant === "zip"
          ? { jwk: wallet.jwk, enc: "A128GCM", zip: "DEF" }
          : variant === "private"
            ? { jwk: { ...wallet.jwk, d: "AAAA" }, enc: "A128GCM" }
            : variant === "off-curve"
              ? { jwk: { ...wallet.jwk, y: wallet.jwk.x }, enc: "A128GCM" }
              : variant === "no-alg"
                ? { jwk: { ...wallet.jwk, alg: undefined }, enc: "A128GCM" }
                : variant;
    expect((await errorOf(() => parseResponseEncryption(value))).error).toBe("invalid_encryption_parameters");
  });

  it("takes coordinates as wallets spell them (padding, a leading zero dropped) and encrypts to the same key", async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const wallet = await walletResponseKey();
      const padded = { ...wallet.jwk, x: `${wallet.jwk.x}=`, y: wallet.jwk.y };
      const bytes = Buffer.from(wallet.jwk.x as string, "base64url");
      // 33 bytes with a leading zero, as an ASN.1 integer would carry it.
      const widened = { ...wallet.jwk, x: Buffer.concat([Buffer.from([0]), bytes]).toString("base64url") };
      for (const jwk of [padded, widened]) {
        const encryption = parseResponseEncryption({ jwk, enc: "A128GCM" });
        expect(encryption.jwk.x).toBe(wallet.jwk.x);
        const { plaintext } = await compactDecrypt(
          encryptCredentialResponse({ ok: 1 }, encryption),
          wallet.privateKey,
        );
        expect(JSON.parse(new TextDecoder().decode(plaintext))).toEqual({ ok: 1 });
      }
    }
    // A coordinate whose first byte is zero, sent with that byte dropped (31 bytes).
    const { generateKeyPairSync } = await import("node:crypto");
    for (;;) {
      const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
      const jwk = publicKey.export({ format: "jwk" }) as { x: string; y: string };
      const x = Buffer.from(jwk.x, "base64url");
      if (x[0] !== 0) continue;
      const shortened = {
        kty: "EC",
        crv: "P-256",
        alg: "ECDH-ES",
        x: x.subarray(1).toString("base64url"),
        y: jwk.y,
      };
      const encryption = parseResponseEncryption({ jwk: shortened, enc: "A128GCM" });
      expect(encryption.jwk.x).toBe(jwk.x);
      const { plaintext } = await compactDecrypt(
        encryptCredentialResponse({ ok: 2 }, encryption),
        privateKey,
      );
      expect(JSON.parse(new TextDecoder().decode(plaintext))).toEqual({ ok: 2 });
      break;
    }
  });

  it("decrypts a request without kid with the issuer's only key", async () => {
    const key = issuerKey();
    const recipient = await importJWK(key.publicJwk, "ECDH-ES");
    const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ a: 1 })))
      .setProtectedHeader({ alg: "ECDH-ES", enc: "A128GCM" })
      .encrypt(recipient);
    expect(await decryptCredentialRequest(` ${jwe}\n`, [key])).toEqual({ a: 1 });
  });

  it("takes credential_response_encryption only in an encrypted request, and requires it where set", async () => {
    const wallet = await walletResponseKey();
    const body = {
      credential_configuration_id: "pid",
      credential_response_encryption: { jwk: wallet.jwk, enc: "A128GCM" },
    };
    const accepted = parseCredentialRequest(body, {
      encryption: { requestEncrypted: true, required: false },
    });
    expect(accepted.responseEncryption?.enc).toBe("A128GCM");
    for (const encryption of [undefined, { requestEncrypted: false, required: false }]) {
      const refused = await errorOf(() => parseCredentialRequest(body, encryption ? { encryption } : {}));
      expect(refused.error).toBe("invalid_encryption_parameters");
    }
    const missing = await errorOf(() =>
      parseCredentialRequest(
        { credential_configuration_id: "pid" },
        { encryption: { requestEncrypted: true, required: true } },
      ),
    );
    expect(missing).toMatchObject({ error: "invalid_encryption_parameters" });
    expect(missing.description).toContain("credential_response_encryption");
  });
});
