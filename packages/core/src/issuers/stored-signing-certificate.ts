import { X509Certificate } from "node:crypto";
import type { TIssuerSigningCertificate } from "@cred/contracts/issuers";

/**
 * `Issuer.signingCertificate` as stored (see prisma/schema.prisma). A type alias, not an interface:
 * Prisma's JSON input type needs the implicit index signature.
 */
export type StoredSigningCertificate = {
  chainPem: string;
  x5c: string[];
  notBefore: string;
  notAfter: string;
};

/** The stored certificate of a row (a Prisma row, or a raw row where JSON may arrive as text); null when none. */
export function storedSigningCertificateOf(value: unknown): StoredSigningCertificate | null {
  const stored = typeof value === "string" ? (JSON.parse(value) as unknown) : value;
  if (typeof stored !== "object" || stored === null) return null;
  const c = stored as Partial<StoredSigningCertificate>;
  return typeof c.chainPem === "string" &&
    Array.isArray(c.x5c) &&
    typeof c.notBefore === "string" &&
    typeof c.notAfter === "string"
    ? (c as StoredSigningCertificate)
    : null;
}

function inValidity(stored: StoredSigningCertificate, now: number): boolean {
  return Date.parse(stored.notBefore) <= now && now <= Date.parse(stored.notAfter);
}

/** The chain for what the issuer signs now, while every certificate of it is valid; otherwise none. */
export function signingCertificateInUse(
  value: unknown,
  now = Date.now(),
): { x5c: string[]; notAfter: number } | undefined {
  const stored = storedSigningCertificateOf(value);
  return stored && inValidity(stored, now)
    ? { x5c: stored.x5c, notAfter: Date.parse(stored.notAfter) }
    : undefined;
}

/** When the chain in use ends, in epoch seconds (never, without one). */
export function chainEndSeconds(certificate: { notAfter: number } | undefined): number {
  return certificate ? Math.floor(certificate.notAfter / 1000) : Number.POSITIVE_INFINITY;
}

/**
 * An `exp` `lifetimeSeconds` after `iat`, but no later than the end of the chain that goes in its `x5c`
 * (a token is not valid past it), and at least a second after `iat`.
 */
export function expWithinChain(
  iat: number,
  lifetimeSeconds: number,
  certificate: { notAfter: number } | undefined,
): number {
  return Math.max(iat + 1, Math.min(iat + lifetimeSeconds, chainEndSeconds(certificate)));
}

/** The `x5c` header for what the issuer signs now (see `signingCertificateInUse`). */
export function x5cForSigning(value: unknown, now = Date.now()): string[] | undefined {
  return signingCertificateInUse(value, now)?.x5c;
}

export function signingCertificateDto(value: unknown, now = Date.now()): TIssuerSigningCertificate | null {
  const stored = storedSigningCertificateOf(value);
  if (!stored) return null;
  const leaf = new X509Certificate(stored.chainPem);
  return {
    certificateChainPem: stored.chainPem,
    subject: leaf.subject.split("\n").join(", "),
    issuer: leaf.issuer.split("\n").join(", "),
    serialNumber: leaf.serialNumber,
    notBefore: stored.notBefore,
    notAfter: stored.notAfter,
    x5cLength: stored.x5c.length,
    inUse: inValidity(stored, now),
  };
}
