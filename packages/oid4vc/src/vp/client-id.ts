import { createHash } from "node:crypto";

/** Client Identifier Prefixes of OpenID4VP §5.9.3 that this package produces or understands. */
export type ClientIdPrefix =
  | "x509_hash"
  | "x509_san_dns"
  | "redirect_uri"
  | "decentralized_identifier"
  | "verifier_attestation"
  | "openid_federation"
  | "origin";

const KNOWN_PREFIXES = new Set<string>([
  "x509_hash",
  "x509_san_dns",
  "redirect_uri",
  "decentralized_identifier",
  "verifier_attestation",
  "openid_federation",
  "origin",
]);

function derBytes(leafDer: Uint8Array | string): Uint8Array {
  return typeof leafDer === "string" ? Buffer.from(leafDer, "base64") : leafDer;
}

/** `x509_hash:<base64url(SHA-256(DER leaf))>` (HAIP-mandated prefix). `leafDer` may be an `x5c` entry. */
export function x509HashClientId(leafDer: Uint8Array | string): string {
  return `x509_hash:${createHash("sha256").update(derBytes(leafDer)).digest("base64url")}`;
}

/**
 * Whether `name` is a DNS name, the only thing a `dNSName` SAN and so an `x509_san_dns` client identifier
 * may hold (OpenID4VP §5.9.3; RFC 5280 §4.2.1.6: an IP address belongs in an `iPAddress` SAN). Letters,
 * digits, `-` and `.`, no empty label (so never an IPv6 literal, which has colons), and a last label that
 * is not a number: URL parsers read such a host as an IPv4 address in one of its forms (`127.0.0.1`,
 * `10.1`, `0x7f.1`; WHATWG URL "ends in a number"). No `node:net` here: the console bundles this file.
 */
export function isDnsName(name: string): boolean {
  if (!/^[A-Za-z0-9.-]+$/.test(name)) return false;
  const labels = name.split(".");
  if (labels.some((label) => label === "")) return false;
  return !/^(\d+|0x[0-9a-f]*)$/i.test(labels[labels.length - 1]!);
}

/** `x509_san_dns:<dns>`: the DNS name must be a `dNSName` SAN of the leaf certificate. */
export function x509SanDnsClientId(dnsName: string): string {
  if (!isDnsName(dnsName)) throw new TypeError(`not a DNS name: ${dnsName}`);
  return `x509_san_dns:${dnsName.toLowerCase()}`;
}

/**
 * Splits a client identifier into prefix and original identifier. No colon (or an unknown prefix such as
 * `https:`) means a pre-registered client identifier (`prefix: null`).
 */
export function parseClientId(clientId: string): { prefix: ClientIdPrefix | null; value: string } {
  const colon = clientId.indexOf(":");
  if (colon <= 0) return { prefix: null, value: clientId };
  const prefix = clientId.slice(0, colon);
  if (!KNOWN_PREFIXES.has(prefix)) return { prefix: null, value: clientId };
  return { prefix: prefix as ClientIdPrefix, value: clientId.slice(colon + 1) };
}
