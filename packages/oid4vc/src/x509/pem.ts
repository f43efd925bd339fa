const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Splits a PEM bundle into certificates (order kept). */
export function splitPemCertificates(pem: string): string[] {
  return pem.match(PEM_CERT) ?? [];
}
