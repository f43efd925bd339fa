import { describe, expect, it } from "vitest";
import { splitSdJwt } from "./compact";
import { createDisclosure, digestDisclosure, parseDisclosure } from "./disclosure";
import { packClaims } from "./pack-claims";
import { DisclosureError, unpackClaims } from "./unpack-claims";

// RFC 9901 §4.2.1, §4.2.2, §4.2.3 and §4.2.4 examples.
const RFC_FAMILY_NAME = "WyJfMjZiYzRMVC1hYzZxMktJNmNCVzVlcyIsICJmYW1pbHlfbmFtZSIsICJNw7ZiaXVzIl0";
const RFC_FAMILY_NAME_DIGEST = "X9yH0Ajrdm1Oij4tWso9UzzKJvPoDxwmuEcO3XAdRC0";
const RFC_FAMILY_NAME_NO_WHITESPACE = "WyJfMjZiYzRMVC1hYzZxMktJNmNCVzVlcyIsImZhbWlseV9uYW1lIiwiTcO2Yml1cyJd";
const RFC_FAMILY_NAME_ESCAPED =
  "WyJfMjZiYzRMVC1hYzZxMktJNmNCVzVlcyIsICJmYW1pbHlfbmFtZSIsICJNXHUwMGY2Yml1cyJd";
const RFC_FAMILY_NAME_NEWLINES = "WwoiXzI2YmM0TFQtYWM2cTJLSTZjQlc1ZXMiLAoiZmFtaWx5X25hbWUiLAoiTcO2Yml1cyIKXQ";
const RFC_NATIONALITY_FR = "WyJsa2x4RjVqTVlsR1RQVW92TU5JdkNBIiwgIkZSIl0";
const RFC_NATIONALITY_FR_DIGEST = "w0I8EKcdCtUPkGCNUrfwVp2xEgNjtoIDlOxc9-PlOhs";

describe("disclosures (RFC 9901 examples)", () => {
  it("parses and hashes the family_name example", () => {
    const d = parseDisclosure(RFC_FAMILY_NAME);
    expect(d).toMatchObject({ salt: "_26bc4LT-ac6q2KI6cBW5es", name: "family_name", value: "Möbius" });
    expect(d.digest).toBe(RFC_FAMILY_NAME_DIGEST);
    expect(digestDisclosure(RFC_FAMILY_NAME)).toBe(RFC_FAMILY_NAME_DIGEST);
  });

  it("treats every JSON encoding variant as the same claim but a different digest", () => {
    for (const variant of [
      RFC_FAMILY_NAME_NO_WHITESPACE,
      RFC_FAMILY_NAME_ESCAPED,
      RFC_FAMILY_NAME_NEWLINES,
    ]) {
      const d = parseDisclosure(variant);
      expect(d).toMatchObject({ name: "family_name", value: "Möbius" });
      expect(d.digest).not.toBe(RFC_FAMILY_NAME_DIGEST);
    }
  });

  it("creates the compact (no whitespace) encoding of the example", () => {
    const d = createDisclosure("_26bc4LT-ac6q2KI6cBW5es", "family_name", "Möbius");
    expect(d.encoded).toBe(RFC_FAMILY_NAME_NO_WHITESPACE);
    expect(d.digest).toBe(digestDisclosure(RFC_FAMILY_NAME_NO_WHITESPACE));
  });

  it("parses the array element example", () => {
    const d = parseDisclosure(RFC_NATIONALITY_FR);
    expect(d).toEqual({
      encoded: RFC_NATIONALITY_FR,
      digest: RFC_NATIONALITY_FR_DIGEST,
      salt: "lklxF5jMYlGTPUovMNIvCA",
      value: "FR",
    });
  });

  it("rejects malformed disclosures", () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    expect(() => parseDisclosure(b64(["salt"]))).toThrow();
    expect(() => parseDisclosure(b64(["salt", "a", 1, 2]))).toThrow();
    expect(() => parseDisclosure(b64({ salt: "x" }))).toThrow();
    expect(() => parseDisclosure(b64([1, "a", 1]))).toThrow();
    expect(() => parseDisclosure(b64(["s", 5, 1]))).toThrow();
    expect(() => parseDisclosure("***")).toThrow();
  });
});

describe("unpackClaims", () => {
  it("reproduces the RFC's nationalities example with and without the disclosure", () => {
    const payload = { nationalities: ["DE", { "...": RFC_NATIONALITY_FR_DIGEST }, "US"] };
    expect(unpackClaims(payload, [parseDisclosure(RFC_NATIONALITY_FR)]).claims).toEqual({
      nationalities: ["DE", "FR", "US"],
    });
    expect(unpackClaims(payload, []).claims).toEqual({ nationalities: ["DE", "US"] });
  });

  it("reproduces the RFC's family_name example and removes _sd/_sd_alg", () => {
    const payload = { given_name: "Alice", _sd: [RFC_FAMILY_NAME_DIGEST], _sd_alg: "sha-256" };
    const out = unpackClaims(payload, [parseDisclosure(RFC_FAMILY_NAME)]);
    expect(out.claims).toEqual({ given_name: "Alice", family_name: "Möbius" });
    expect(out.disclosed.map((d) => d.path)).toEqual([["family_name"]]);
  });

  const fam = parseDisclosure(RFC_FAMILY_NAME);
  const fr = parseDisclosure(RFC_NATIONALITY_FR);
  it.each([
    ["an unreferenced disclosure", { a: 1 }, [fam]],
    ["a digest referenced twice", { _sd: [fam.digest], x: { _sd: [fam.digest] } }, [fam]],
    ["an array disclosure referenced from _sd", { _sd: [fr.digest] }, [fr]],
    ["a property disclosure referenced from an array", { a: [{ "...": fam.digest }] }, [fam]],
    ["a disclosed name that already exists", { family_name: "x", _sd: [fam.digest] }, [fam]],
    ["a non-array _sd", { _sd: fam.digest }, [fam]],
    ["a non-string digest", { _sd: [42] }, []],
    ["the same disclosure twice", { _sd: [fam.digest] }, [fam, fam]],
  ] as const)("rejects %s", (_label, payload, disclosures) => {
    expect(() => unpackClaims(payload as Record<string, unknown>, disclosures)).toThrow(DisclosureError);
  });

  it("rejects registered SD-JWT VC claims hidden in disclosures, but accepts a disclosed iat", () => {
    for (const name of ["iss", "exp", "nbf", "cnf", "vct", "status", "_sd", "..."]) {
      const d = createDisclosure("salt", name, "x");
      expect(() => unpackClaims({ _sd: [d.digest] }, [d])).toThrow(DisclosureError);
    }
    const iat = createDisclosure("salt", "iat", 1);
    expect(unpackClaims({ _sd: [iat.digest] }, [iat]).claims).toEqual({ iat: 1 });
  });

  it("keeps __proto__ as a plain own claim", () => {
    const d = createDisclosure("salt", "__proto__", { polluted: true });
    const out = unpackClaims({ _sd: [d.digest] }, [d]).claims;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("packClaims", () => {
  const claims = {
    given_name: "Erika",
    address: { street_address: "Heidestraße 17", locality: "Köln" },
    nationalities: ["DE", "FR"],
    degrees: [{ type: "BSc" }, { type: "MSc" }],
  };

  it("round-trips flat, nested, recursive and array element disclosures", () => {
    const packed = packClaims(claims, [
      ["given_name"],
      ["address"],
      ["address", "street_address"],
      ["nationalities", 1],
      ["degrees", null, "type"],
    ]);
    expect(packed.disclosures).toHaveLength(6);
    expect(packed.claims.given_name).toBeUndefined();
    expect(packed.claims.address).toBeUndefined();
    expect(packed.claims.nationalities).toEqual(["DE", { "...": expect.any(String) }]);
    expect(packed.claims.degrees).toEqual([{ _sd: [expect.any(String)] }, { _sd: [expect.any(String)] }]);
    const sd = packed.claims._sd as string[];
    expect(sd).toEqual([...sd].sort());
    const recursive = packed.disclosures.find((d) => d.name === "address")!;
    expect(recursive.value).toEqual({ locality: "Köln", _sd: [expect.any(String)] });
    expect(unpackClaims(packed.claims, packed.disclosures).claims).toEqual(claims);
  });

  it("uses a fresh 128-bit salt per disclosure", () => {
    const packed = packClaims({ a: 1, b: 1 }, [["a"], ["b"]]);
    const salts = packed.disclosures.map((d) => d.salt);
    expect(new Set(salts).size).toBe(2);
    for (const s of salts) expect(Buffer.from(s, "base64url")).toHaveLength(16);
  });

  it("adds decoys that verifiers ignore", () => {
    const packed = packClaims({ a: 1 }, [["a"]], { decoys: 3 });
    expect(packed.claims._sd).toHaveLength(4);
    expect(unpackClaims(packed.claims, packed.disclosures).claims).toEqual({ a: 1 });
    const onlyDecoys = packClaims({ a: 1 }, [], { decoys: 2 });
    expect(onlyDecoys.claims).toEqual({ a: 1, _sd: [expect.any(String), expect.any(String)] });
  });

  it("leaves claims untouched when nothing is disclosable", () => {
    expect(packClaims(claims, [])).toEqual({ claims, disclosures: [] });
  });

  it("refuses registered claims, unknown paths and reserved names", () => {
    expect(() => packClaims({ a: 1 }, [["vct"]])).toThrow(/never/);
    expect(() => packClaims({ a: 1 }, [["iat"]])).toThrow(/never/);
    expect(() => packClaims({ a: 1 }, [["b"]])).toThrow(/matches no claim/);
    expect(() => packClaims({ a: [1] }, [["a", 3]])).toThrow(/matches no claim/);
    expect(() => packClaims({ a: { _sd: [] } }, [])).toThrow(/reserved/);
    expect(() => packClaims({ a: 1 }, [[]])).toThrow();
  });
});

describe("splitSdJwt", () => {
  it("splits SD-JWT and SD-JWT+KB", () => {
    expect(splitSdJwt("h.p.s~d1~d2~")).toEqual({
      issuerJwt: "h.p.s",
      disclosures: ["d1", "d2"],
      kbJwt: undefined,
      sdJwt: "h.p.s~d1~d2~",
    });
    expect(splitSdJwt("h.p.s~kb.p.s")).toEqual({
      issuerJwt: "h.p.s",
      disclosures: [],
      kbJwt: "kb.p.s",
      sdJwt: "h.p.s~",
    });
  });

  it("rejects tokens without ~ and empty disclosures", () => {
    expect(() => splitSdJwt("h.p.s")).toThrow();
    expect(() => splitSdJwt("h.p.s~~d~")).toThrow();
    expect(() => splitSdJwt("~d~")).toThrow();
  });
});
