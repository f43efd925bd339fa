import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { CompactEncrypt, compactDecrypt } from "jose";
import { describe, expect, it } from "vitest";
import { decryptEcdhEsCompactJwe, encryptEcdhEsCompactJwe, type P256PrivateScalar } from "./ecdh-es-jwe";

const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const plaintext = new TextEncoder().encode('{"vp_token":{"pid":["x~"]}}');

async function joseEncrypt(enc: string, extra: Record<string, unknown> = {}) {
  return new CompactEncrypt(plaintext)
    .setProtectedHeader({ alg: "ECDH-ES", enc, kid: "k", ...extra })
    .encrypt(publicKey);
}

const privateJwk = privateKey.export({ format: "jwk" }) as P256PrivateScalar;

describe("decryptEcdhEsCompactJwe (native ECDH-ES + Concat KDF + AES-GCM)", () => {
  it.each([
    ["A128GCM", "KeyObject"],
    ["A256GCM", "KeyObject"],
    ["A128GCM", "JWK"],
    ["A256GCM", "JWK"],
  ])("decrypts what jose encrypts with %s, the private key given as a %s", async (enc, form) => {
    const key = form === "JWK" ? privateJwk : privateKey;
    const out = decryptEcdhEsCompactJwe(await joseEncrypt(enc), key, ["A128GCM", "A256GCM"]);
    expect(out.plaintext.toString()).toBe('{"vp_token":{"pid":["x~"]}}');
    expect(out.header).toMatchObject({ alg: "ECDH-ES", enc, kid: "k" });
  });

  it("refuses a private key of another curve or kind, and epk coordinates of the wrong length", async () => {
    const jwe = await joseEncrypt("A128GCM");
    const p384 = generateKeyPairSync("ec", { namedCurve: "P-384" }).privateKey;
    expect(() => decryptEcdhEsCompactJwe(jwe, p384, ["A128GCM"])).toThrow(/P-256/);
    expect(() => decryptEcdhEsCompactJwe(jwe, publicKey, ["A128GCM"])).toThrow(/P-256/);
    expect(() => decryptEcdhEsCompactJwe(jwe, { ...privateJwk, crv: "P-384" } as never, ["A128GCM"])).toThrow(
      /P-256/,
    );
    const [h, ...rest] = jwe.split(".") as [string, ...string[]];
    const header = JSON.parse(Buffer.from(h, "base64url").toString());
    const x = Buffer.from(header.epk.x, "base64url");
    const shifted = {
      ...header,
      epk: {
        ...header.epk,
        x: x.subarray(1).toString("base64url"),
        y: Buffer.concat([x.subarray(0, 1), Buffer.from(header.epk.y, "base64url")]).toString("base64url"),
      },
    };
    const reshaped = [Buffer.from(JSON.stringify(shifted)).toString("base64url"), ...rest].join(".");
    expect(() => decryptEcdhEsCompactJwe(reshaped, privateJwk, ["A128GCM"])).toThrow(/32 bytes/);
  });

  it("includes apu/apv in the key derivation", async () => {
    const jwe = await new CompactEncrypt(plaintext)
      .setProtectedHeader({ alg: "ECDH-ES", enc: "A128GCM" })
      .setKeyManagementParameters({
        apu: new TextEncoder().encode("Alice"),
        apv: new TextEncoder().encode("Bob"),
      })
      .encrypt(publicKey);
    expect(decryptEcdhEsCompactJwe(jwe, privateKey, ["A128GCM"]).plaintext.toString()).toContain("vp_token");
  });

  it("decrypts the OpenID4VP §8.3 example", () => {
    const key = createPrivateKey({
      format: "jwk",
      key: {
        kty: "EC",
        crv: "P-256",
        x: "YO4epjifD-KWeq1sL2tNmm36BhXnkJ0He-WqMYrp9Fk",
        y: "Hekpm0zfK7C-YccH5iBjcIXgf6YdUvNUac_0At55Okk",
        d: "Et-3ce0omz8_TuZ96Df9lp0GAaaDoUnDe6X-CRO7Aww",
      },
    });
    const jwe =
      "eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTEyOEdDTSIsImtpZCI6ImFjIiwiZXBrIjp7Imt0eSI6IkVDIiwieCI6Im5ubVZwbTNWM2piaGNhZlFhUkJrU1ZOSGx3Wkh3dC05ck9wSnVmeVlJdWsiLCJ5IjoicjRmakRxd0p5czlxVU9QLV9iM21SNVNaRy0tQ3dPMm1pYzVWU05UWU45ZyIsImNydiI6IlAtMjU2In19..uAYcHRUSSn2X0WPX.yVzlGSYG4qbg0bq18JcUiDRw56yVnbKR8E7S7YlEtzT00RqE3Pw5oTpUG3hdLN4taHZ9gC1kwak8JOnJgQ.1wR024_3-qtAlx1oFIUpQQ";
    expect(JSON.parse(decryptEcdhEsCompactJwe(jwe, key, ["A128GCM"]).plaintext.toString())).toEqual({
      vp_token: { example_credential_id: ["eyJhb...YMetA"] },
    });
  });

  it("fails on tampering (ciphertext, tag, protected header) and a foreign key", async () => {
    const jwe = await joseEncrypt("A128GCM");
    const [h, k, iv, c, t] = jwe.split(".") as [string, string, string, string, string];
    const flip = (s: string) => `${s.slice(0, -2)}${s.at(-2) === "A" ? "B" : "A"}${s.at(-1)}`;
    expect(() =>
      decryptEcdhEsCompactJwe([h, k, iv, flip(c), t].join("."), privateKey, ["A128GCM"]),
    ).toThrow();
    expect(() =>
      decryptEcdhEsCompactJwe([h, k, iv, c, flip(t)].join("."), privateKey, ["A128GCM"]),
    ).toThrow();
    const header = JSON.parse(Buffer.from(h, "base64url").toString());
    const h2 = Buffer.from(JSON.stringify({ ...header, kid: "other" })).toString("base64url");
    expect(() => decryptEcdhEsCompactJwe([h2, k, iv, c, t].join("."), privateKey, ["A128GCM"])).toThrow();
    const other = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey;
    expect(() => decryptEcdhEsCompactJwe(jwe, other, ["A128GCM"])).toThrow();
    const otherJwk = other.export({ format: "jwk" }) as P256PrivateScalar;
    expect(() => decryptEcdhEsCompactJwe(jwe, otherJwk, ["A128GCM"])).toThrow();
  });

  it("rejects an off-curve ephemeral key, a disallowed enc, zip and crit", async () => {
    const jwe = await joseEncrypt("A128GCM");
    const [h, ...rest] = jwe.split(".") as [string, ...string[]];
    const header = JSON.parse(Buffer.from(h, "base64url").toString());
    const withHeader = (extra: Record<string, unknown>) =>
      [Buffer.from(JSON.stringify({ ...header, ...extra })).toString("base64url"), ...rest].join(".");
    const y = Buffer.from(header.epk.y as string, "base64url");
    y[16]! ^= 1;
    const offCurve = withHeader({ epk: { ...header.epk, y: y.toString("base64url") } });
    // The same point, spelled with a padding bit set in the last character: not canonical base64url.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const yText = header.epk.y as string;
    const lastIndex = alphabet.indexOf(yText.at(-1)!);
    const nonCanonicalY = `${yText.slice(0, -1)}${alphabet[lastIndex ^ 1]}`;
    expect(Buffer.from(nonCanonicalY, "base64url").equals(Buffer.from(yText, "base64url"))).toBe(true);
    const nonCanonical = withHeader({ epk: { ...header.epk, y: nonCanonicalY } });
    expect(() => decryptEcdhEsCompactJwe(nonCanonical, privateJwk, ["A128GCM"])).toThrow(/base64url/);
    expect(() => decryptEcdhEsCompactJwe(offCurve, privateKey, ["A128GCM"])).toThrow();
    expect(() => decryptEcdhEsCompactJwe(offCurve, privateJwk, ["A128GCM"])).toThrow(
      /not valid for specified curve/,
    );
    expect(() => decryptEcdhEsCompactJwe(jwe, privateKey, ["A256GCM"])).toThrow(/enc/);
    expect(() => decryptEcdhEsCompactJwe(withHeader({ zip: "DEF" }), privateKey, ["A128GCM"])).toThrow(
      /compressed/,
    );
    expect(() => decryptEcdhEsCompactJwe(withHeader({ crit: ["x"], x: 1 }), privateKey, ["A128GCM"])).toThrow(
      /crit/,
    );
    expect(() =>
      decryptEcdhEsCompactJwe(withHeader({ alg: "ECDH-ES+A128KW" }), privateKey, ["A128GCM"]),
    ).toThrow(/alg/);
    expect(() => decryptEcdhEsCompactJwe("a.b.c", privateKey, ["A128GCM"])).toThrow();
  });
});

describe("encryptEcdhEsCompactJwe (the wallet's side)", () => {
  const recipient = publicKey.export({ format: "jwk" }) as { kty: string; crv: string; x: string; y: string };

  it.each(["A128GCM", "A256GCM"])(
    "encrypts with %s what jose decrypts, a fresh ephemeral key each time",
    async (enc) => {
      const first = encryptEcdhEsCompactJwe(plaintext, recipient, enc, { kid: "k" });
      const second = encryptEcdhEsCompactJwe(plaintext, recipient, enc, { kid: "k" });
      for (const jwe of [first, second]) {
        const { plaintext: out, protectedHeader } = await compactDecrypt(jwe, privateKey);
        expect(new TextDecoder().decode(out)).toBe('{"vp_token":{"pid":["x~"]}}');
        expect(protectedHeader).toMatchObject({
          alg: "ECDH-ES",
          enc,
          kid: "k",
          epk: { kty: "EC", crv: "P-256" },
        });
        expect(decryptEcdhEsCompactJwe(jwe, privateJwk, [enc]).plaintext.toString()).toContain("vp_token");
      }
      const epk = (jwe: string) => JSON.parse(Buffer.from(jwe.split(".")[0]!, "base64url").toString()).epk;
      expect(epk(first).x).not.toBe(epk(second).x);
    },
  );

  it("refuses other encryptions and other curves", () => {
    expect(() => encryptEcdhEsCompactJwe(plaintext, recipient, "A128CBC-HS256")).toThrow(/enc/);
    const p384 = generateKeyPairSync("ec", { namedCurve: "P-384" }).publicKey.export({ format: "jwk" });
    expect(() => encryptEcdhEsCompactJwe(plaintext, p384 as never, "A128GCM")).toThrow(/P-256/);
  });
});
