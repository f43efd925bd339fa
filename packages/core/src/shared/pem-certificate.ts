import { X509Certificate } from "node:crypto";

/** Whether a string is one PEM-encoded X.509 certificate that parses (one: a bundle is refused). */
export function isPemCertificate(pem: string): boolean {
  if (pem.match(/-----BEGIN CERTIFICATE-----/g)?.length !== 1) return false;
  try {
    new X509Certificate(pem);
    return true;
  } catch {
    return false;
  }
}

/** Whether a string is one PEM-encoded X.509 CA certificate (basicConstraints cA), fit to be a trust anchor. */
export function isPemCaCertificate(pem: string): boolean {
  if (!isPemCertificate(pem)) return false;
  return new X509Certificate(pem).ca;
}
