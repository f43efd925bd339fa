// @peculiar/x509 needs the Reflect metadata API (through tsyringe); import the polyfill first
// (@abraham/reflection: the same API as reflect-metadata in a fraction of its size).
import "@abraham/reflection";
import { SubjectAlternativeNameExtension, X509Certificate } from "@peculiar/x509";

/** What the wallet reads of a verifier's x5c chain (leaf first). */
export interface CertificateChain {
  leaf: {
    rawData: Uint8Array;
    subject: string;
    issuer: string;
    notBefore: Date;
    notAfter: Date;
    /** Its dNSName SANs, lower-cased. */
    dnsNames: string[];
  };
  /** Whether each certificate is signed by the next one. */
  linked: boolean;
}

/** The dNSName SANs of a certificate, lower-cased. */
function dnsNames(certificate: X509Certificate): string[] {
  const extension = certificate.getExtension(SubjectAlternativeNameExtension);
  return (extension?.names.items ?? [])
    .filter((name) => name.type === "dns")
    .map((name) => name.value.toLowerCase());
}

/** Whether each certificate of the chain is signed by the next one (leaf first, as x5c orders them). */
async function isLinkedChain(chain: X509Certificate[]): Promise<boolean> {
  for (let i = 0; i + 1 < chain.length; i++) {
    const ok = await chain[i]!.verify({ publicKey: chain[i + 1]!.publicKey, signatureOnly: true });
    if (!ok || chain[i]!.issuer !== chain[i + 1]!.subject) return false;
  }
  return true;
}

export async function readChain(x5c: string[]): Promise<CertificateChain> {
  const chain = x5c.map((der) => new X509Certificate(der));
  const leaf = chain[0]!;
  return {
    leaf: {
      rawData: new Uint8Array(leaf.rawData),
      subject: leaf.subject,
      issuer: leaf.issuer,
      notBefore: leaf.notBefore,
      notAfter: leaf.notAfter,
      dnsNames: dnsNames(leaf),
    },
    linked: await isLinkedChain(chain),
  };
}
