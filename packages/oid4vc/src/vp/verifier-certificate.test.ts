import {
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  type JsonWebKey,
  X509Certificate,
} from "node:crypto";
import { isIP } from "node:net";
import { describe, expect, it } from "vitest";
import { isDnsName, parseClientId, x509HashClientId, x509SanDnsClientId } from "./client-id";
import {
  generateVerifierCertificate,
  InvalidVerifierCertificateError,
  parseVerifierCertificate,
} from "./verifier-certificate";

describe("generateVerifierCertificate", async () => {
  const generated = await generateVerifierCertificate({
    dnsName: "Verifier.Example.org",
    organisationName: "Acme, Inc.",
  });
  const leaf = new X509Certificate(generated.leafCertificatePem);
  const ca = new X509Certificate(generated.caCertificatePem);

  it("produces a CA and a leaf signed by it, x5c = [leaf] (no trust anchor)", () => {
    expect(generated.x5c).toEqual([generated.leafDer]);
    expect(Buffer.from(generated.leafDer, "base64").equals(leaf.raw)).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.verify(leaf.publicKey)).toBe(false);
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
  });

  it("puts the DNS name in a dNSName SAN and uses ES256 / P-256", () => {
    expect(leaf.subjectAltName).toBe("DNS:verifier.example.org");
    expect(leaf.publicKey.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    expect(leaf.subject).toContain("O=Acme\\, Inc."); // Node escapes the comma
    expect(generated.privateKeyJwk).toMatchObject({ kty: "EC", crv: "P-256" });
    expect(generated.privateKeyJwk.d).toBeTypeOf("string");
  });

  it("derives both client ids", () => {
    const hash = createHash("sha256").update(leaf.raw).digest("base64url");
    expect(generated.clientIds).toEqual({
      x509Hash: `x509_hash:${hash}`,
      x509SanDns: "x509_san_dns:verifier.example.org",
    });
    expect(x509HashClientId(leaf.raw)).toBe(`x509_hash:${hash}`);
    expect(x509HashClientId(generated.leafDer)).toBe(`x509_hash:${hash}`);
  });

  it("round-trips through parseVerifierCertificate (PEM key and JWK)", () => {
    const parsed = parseVerifierCertificate({
      certificateChainPem: generated.certificateChainPem,
      privateKey: generated.privateKeyJwk,
    });
    expect(parsed.x5c).toEqual([generated.leafDer]); // trailing self-signed CA dropped
    expect(parsed.dnsNames).toEqual(["verifier.example.org"]);
    expect(parsed.clientIds).toEqual(generated.clientIds);
    expect(parsed.warnings).toEqual([]);
  });

  it("rejects a key that does not match the leaf", () => {
    const other = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
      format: "pem",
      type: "pkcs8",
    });
    expect(() =>
      parseVerifierCertificate({
        certificateChainPem: generated.certificateChainPem,
        privateKey: String(other),
      }),
    ).toThrow(/does not match/);
  });

  it("rejects a chain in the wrong order", () => {
    expect(() =>
      parseVerifierCertificate({
        certificateChainPem: `${generated.caCertificatePem}\n${generated.leafCertificatePem}`,
        privateKey: generated.privateKeyJwk,
      }),
    ).toThrow(InvalidVerifierCertificateError);
  });

  it("rejects an expired leaf and input without certificates", () => {
    expect(() =>
      parseVerifierCertificate({
        certificateChainPem: generated.certificateChainPem,
        privateKey: generated.privateKeyJwk,
        now: new Date(Date.now() + 400 * 86_400_000),
      }),
    ).toThrow(/expired/);
    expect(() =>
      parseVerifierCertificate({ certificateChainPem: "nope", privateKey: generated.privateKeyJwk }),
    ).toThrow(/no PEM certificate/);
  });

  it("accepts a PKCS#8 PEM private key", () => {
    const pem = createPrivateKey({ key: generated.privateKeyJwk as JsonWebKey, format: "jwk" })
      .export({ format: "pem", type: "pkcs8" })
      .toString();
    expect(
      parseVerifierCertificate({ certificateChainPem: generated.leafCertificatePem, privateKey: pem }).x5c,
    ).toEqual([generated.leafDer]);
  });
});

describe("self-signed uploads", async () => {
  it("are accepted with a HAIP warning, and a leaf without dNSName SAN is rejected", async () => {
    const g = await generateVerifierCertificate({ dnsName: "a.example" });
    // The CA alone: self-signed, no SAN, a CA → rejected.
    expect(() =>
      parseVerifierCertificate({ certificateChainPem: g.caCertificatePem, privateKey: g.caPrivateKeyJwk }),
    ).toThrow(/dNSName/);
  });
});

describe("client ids", () => {
  it("builds and parses prefixes", () => {
    expect(x509SanDnsClientId("Client.Example.org")).toBe("x509_san_dns:client.example.org");
    expect(() => x509SanDnsClientId("https://x")).toThrow();
    expect(parseClientId("x509_hash:abc")).toEqual({ prefix: "x509_hash", value: "abc" });
    expect(parseClientId("x509_san_dns:client.example.org")).toEqual({
      prefix: "x509_san_dns",
      value: "client.example.org",
    });
    expect(parseClientId("redirect_uri:https://a/cb")).toEqual({
      prefix: "redirect_uri",
      value: "https://a/cb",
    });
    expect(parseClientId("https://pre-registered.example")).toEqual({
      prefix: null,
      value: "https://pre-registered.example",
    });
    expect(parseClientId("client123")).toEqual({ prefix: null, value: "client123" });
  });

  it("x509_san_dns takes a DNS name only, never an IP literal (OpenID4VP §5.9.3)", () => {
    for (const name of [
      "localhost",
      "verifier.example.com",
      "a-1.example",
      "xn--bcher-kva.example",
      "1password.com",
    ])
      expect(isDnsName(name), name).toBe(true);
    // IP literals, with node:net's isIP as the oracle, and hosts a URL parser reads as IPv4 addresses
    // (WHATWG URL normalises them to a dotted quad, which isIP knows).
    for (const ip of ["127.0.0.1", "203.0.113.5", "255.255.255.255", "::1", "fe80::1", "::ffff:127.0.0.1"]) {
      expect(isIP(ip), ip).not.toBe(0);
      expect(isDnsName(ip), ip).toBe(false);
    }
    expect(isDnsName("[::1]")).toBe(false);
    for (const host of ["10.1", "0x7f.1", "017.1", "2130706433"]) {
      expect(isIP(new URL(`http://${host}/`).hostname), host).toBe(4);
      expect(isDnsName(host), host).toBe(false);
    }
    // Ending in a number but no IPv4 address: no URL host at all.
    for (const host of ["example.123", "a.0x"]) {
      expect(() => new URL(`http://${host}/`), host).toThrow();
      expect(isDnsName(host), host).toBe(false);
    }
    for (const name of ["", ".", "a..b", ".example", "example.", "under_score.example", "https://x"])
      expect(isDnsName(name), name).toBe(false);
    expect(() => x509SanDnsClientId("127.0.0.1")).toThrow(/not a DNS name/);
  });
});
