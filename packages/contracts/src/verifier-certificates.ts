import { z } from "zod";
import { EXAMPLE_VERIFIER_CERTIFICATE_CHAIN_PEM, EXAMPLE_VERIFIER_PRIVATE_KEY_PEM } from "./examples";
import { resourceOf } from "./pagination";
import { registerRequestExample } from "./request-example";

const ISO_EXAMPLE = "2026-08-30T12:00:00.000Z";
const PEM_EXAMPLE = "-----BEGIN CERTIFICATE-----\nMIIB…\n-----END CERTIFICATE-----";

export const ZGetVerifierCertificateRequest = z.object({});

export const ZUploadVerifierCertificateRequest = z
  .strictObject({
    certificateChainPem: z.string().min(1).max(65_536).meta({
      description:
        "PEM certificates, leaf first, each issued by the next. The leaf must be an EC P-256 (ES256) end-entity certificate with a dNSName subjectAltName, valid now. A trailing self-signed root is kept here but not sent in `x5c`.",
      example: EXAMPLE_VERIFIER_CERTIFICATE_CHAIN_PEM,
    }),
    privateKeyPem: z.string().min(1).max(16_384).meta({
      description:
        "The leaf's private key, PEM (PKCS#8 `PRIVATE KEY` or SEC1 `EC PRIVATE KEY`, unencrypted). Stored encrypted; never returned.",
      example: EXAMPLE_VERIFIER_PRIVATE_KEY_PEM,
    }),
  })
  .meta({ id: "UploadVerifierCertificateRequest" });
// A working chain and key, for the form only: its private key is published with the examples, so a
// certificate made from it identifies no one. Upload your own.
registerRequestExample(ZUploadVerifierCertificateRequest, [], {
  certificateChainPem: EXAMPLE_VERIFIER_CERTIFICATE_CHAIN_PEM,
  privateKeyPem: EXAMPLE_VERIFIER_PRIVATE_KEY_PEM,
});
export type TUploadVerifierCertificateRequest = z.infer<typeof ZUploadVerifierCertificateRequest>;

export const zVerifierCertificate = z
  .object({
    certificateChainPem: z
      .string()
      .meta({ description: "The stored chain, PEM, leaf first.", example: PEM_EXAMPLE }),
    subject: z.string().meta({ description: "Leaf subject.", example: "CN=verifier.example.com" }),
    issuer: z.string().meta({ description: "Leaf issuer.", example: "CN=verifier.example.com verifier CA" }),
    serialNumber: z.string().meta({ description: "Leaf serial number (hex).", example: "4F3A…" }),
    dnsName: z.string().meta({
      description: "The dNSName used for `x509_san_dns`: the public host when the leaf names it.",
      example: "verifier.example.com",
    }),
    dnsNames: z
      .array(z.string())
      .meta({ description: "Every dNSName SAN of the leaf.", example: ["verifier.example.com"] }),
    notBefore: z.string().meta({ description: "Leaf validity start (ISO 8601).", example: ISO_EXAMPLE }),
    notAfter: z.string().meta({ description: "Leaf validity end (ISO 8601).", example: ISO_EXAMPLE }),
    clientIds: z
      .object({
        x509Hash: z.string().meta({
          description: "`x509_hash:` + base64url(SHA-256(DER leaf)).",
          example: "x509_hash:Uvo3HtuIxuhC92rShpgqcT3YXwrqRxWEviRiA0OZszk",
        }),
        x509SanDns: z.string().meta({
          description: "`x509_san_dns:` + `dnsName`.",
          example: "x509_san_dns:verifier.example.com",
        }),
      })
      .meta({ description: "The client identifiers wallets see, per prefix." }),
    x509SanDnsUsable: z.boolean().meta({
      description:
        "Whether the public host (the response_uri host) is a DNS name, not an IP address, and the leaf names it in a dNSName SAN, which policies with `clientIdPrefix: x509_san_dns` need.",
      example: true,
    }),
    uploaded: z.boolean().meta({
      description: "true for an uploaded chain, false for the one the platform generated.",
      example: false,
    }),
    createdAt: z
      .string()
      .meta({ description: "When this certificate was generated or uploaded.", example: ISO_EXAMPLE }),
    warnings: z.array(z.string()).meta({
      description: "Non-fatal findings, e.g. a self-signed leaf (not HAIP compliant).",
      example: [],
    }),
  })
  .meta({ id: "VerifierCertificateResponse", description: "The verifier certificate of this environment." });
export type TVerifierCertificate = z.infer<typeof zVerifierCertificate>;

export const ZVerifierCertificateResponse = resourceOf(zVerifierCertificate).meta({
  id: "ManagementResourceOfVerifierCertificateResponse",
});
