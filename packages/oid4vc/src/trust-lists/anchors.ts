import { X509Certificate } from "node:crypto";
import { TrustListError } from "./errors";

/** A certificate as PEM, base64 DER, or DER bytes. */
export type CertificateInput = string | Uint8Array;

/** Parses a certificate given as PEM, base64 DER or DER bytes; MalformedList when it is none of these. */
export function toX509(input: CertificateInput): X509Certificate {
  try {
    if (typeof input !== "string") return new X509Certificate(Buffer.from(input));
    if (input.includes("-----BEGIN")) return new X509Certificate(input);
    return new X509Certificate(Buffer.from(input.replace(/\s+/g, ""), "base64"));
  } catch {
    throw new TrustListError("MalformedList", "a certificate does not parse as X.509");
  }
}

function spki(cert: X509Certificate): Buffer {
  return cert.publicKey.export({ type: "spki", format: "der" });
}

/**
 * Checks that the signer is one of the anchors, by the exact certificate or by its public key (SPKI:
 * a re-issued certificate for the same key), and that it is valid at `at`. Throws UnknownSigner otherwise.
 */
export function requireAnchoredSigner(
  signer: X509Certificate,
  anchors: readonly CertificateInput[],
  at: Date,
): void {
  if (anchors.length === 0) throw new TrustListError("UnknownSigner", "no signer certificates are expected");
  const signerSpki = spki(signer);
  const known = anchors
    .map(toX509)
    .some((anchor) => anchor.raw.equals(signer.raw) || spki(anchor).equals(signerSpki));
  if (!known)
    throw new TrustListError(
      "UnknownSigner",
      `the list is signed by ${signer.subject.replace(/\n/g, ", ")}, which is not an expected signer`,
    );
  if (at < new Date(signer.validFrom) || at > new Date(signer.validTo)) {
    throw new TrustListError("UnknownSigner", "the signer certificate is outside its validity period");
  }
}

/** Refuses a list whose NextUpdate has passed or that has none (closed). */
export function requireCurrent(nextUpdate: Date | undefined, at: Date): void {
  if (!nextUpdate) throw new TrustListError("ListExpired", "the list has no NextUpdate (a closed list)");
  if (nextUpdate.getTime() <= at.getTime()) {
    throw new TrustListError("ListExpired", `NextUpdate ${nextUpdate.toISOString()} has passed`);
  }
}
