import type { CertificateChain } from "./x509-chain";

export type { CertificateChain };

/**
 * Reads an x5c chain with @peculiar/x509, loaded only when a request carries a certificate: the library
 * and its parts (tsyringe, the Reflect metadata polyfill, asn1) would otherwise be most of the wallet page's first
 * chunk, and no other console page needs them.
 */
export async function readCertificateChain(x5c: string[]): Promise<CertificateChain> {
  const { readChain } = await import("./x509-chain");
  return readChain(x5c);
}
