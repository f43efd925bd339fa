// @peculiar/x509 needs the Reflect metadata API (through tsyringe); import the polyfill first.
import "reflect-metadata";
import { SubjectAlternativeNameExtension, X509Certificate } from "@peculiar/x509";

export { X509Certificate };

/** The dNSName SANs of a certificate, lower-cased. */
export function dnsNames(certificate: X509Certificate): string[] {
  const extension = certificate.getExtension(SubjectAlternativeNameExtension);
  return (extension?.names.items ?? [])
    .filter((name) => name.type === "dns")
    .map((name) => name.value.toLowerCase());
}

/** Whether each certificate of the chain is signed by the next one (leaf first, as x5c orders them). */
export async function isLinkedChain(chain: X509Certificate[]): Promise<boolean> {
  for (let i = 0; i + 1 < chain.length; i++) {
    const ok = await chain[i]!.verify({ publicKey: chain[i + 1]!.publicKey, signatureOnly: true });
    if (!ok || chain[i]!.issuer !== chain[i + 1]!.subject) return false;
  }
  return true;
}
