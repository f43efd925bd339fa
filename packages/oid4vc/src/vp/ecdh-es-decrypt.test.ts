import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { CompactEncrypt } from "jose";
import { describe, expect, it } from "vitest";
import { decryptEcdhEsCompactJwe } from "./ecdh-es-decrypt";

const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const plaintext = new TextEncoder().encode('{"vp_token":{"pid":["x~"]}}');

async function joseEncrypt(enc: string, extra: Record<string, unknown> = {}) {
  return new CompactEncrypt(plaintext)
    .setProtectedHeader({ alg: "ECDH-ES", enc, kid: "k", ...extra })
    .encrypt(publicKey);
}

describe("decryptEcdhEsCompactJwe (native ECDH-ES + Concat KDF + AES-GCM)", () => {
  it.each(["A128GCM", "A256GCM"])("decrypts what jose encrypts with %s", async (enc) => {
    const out = decryptEcdhEsCompactJwe(await joseEncrypt(enc), privateKey, ["A128GCM", "A256GCM"]);
    expect(out.plaintext.toString()).toBe('{"vp_token":{"pid":["x~"]}}');
    expect(out.header).toMatchObject({ alg: "ECDH-ES", enc, kid: "k" });
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
  });

  it("rejects an off-curve ephemeral key, a disallowed enc, zip and crit", async () => {
    const jwe = await joseEncrypt("A128GCM");
    const [h, ...rest] = jwe.split(".") as [string, ...string[]];
    const header = JSON.parse(Buffer.from(h, "base64url").toString());
    const withHeader = (extra: Record<string, unknown>) =>
      [Buffer.from(JSON.stringify({ ...header, ...extra })).toString("base64url"), ...rest].join(".");
    const y = header.epk.y as string;
    const offCurve = withHeader({
      epk: { ...header.epk, y: `${y.slice(0, -1)}${y.at(-1) === "A" ? "B" : "A"}` },
    });
    expect(() => decryptEcdhEsCompactJwe(offCurve, privateKey, ["A128GCM"])).toThrow();
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
