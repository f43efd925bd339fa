import { z } from "zod";
import { EXAMPLE_VERIFIER_CERTIFICATE_CHAIN_PEM, EXAMPLE_VERIFIER_PRIVATE_KEY_PEM } from "./examples";
import { KEY_PROVIDERS, zTokenLabel } from "./issuers";
import { collectionOf, resourceOf, zListQuery } from "./pagination";

/** The shape of a registration certificate (header `typ: rc-wrp+jwt`); its signature verifies nowhere. */
export const EXAMPLE_REGISTRATION_CERTIFICATE =
  "eyJ0eXAiOiJyYy13cnArand0IiwiYWxnIjoiRVMyNTYiLCJ4NWMiOltdfQ.eyJzdWIiOiJWQVRGSS0xMjM0NTY3OCIsIm5hbWUiOiJXZWJzaG9wIiwiY3JlZGVudGlhbHMiOltdfQ.c2lnbmF0dXJl";

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

/** Where a verifier key is held (docs/key-custody.md): its provider, and the provider's reference. */
export const zVerifierKeyLocation = z
  .object({
    provider: z.enum(KEY_PROVIDERS).meta({
      description:
        "`software`: sealed under the service's master key. `pkcs11`: generated inside the platform's hardware security module (PKCS#11 token), sensitive and not extractable.",
      example: "pkcs11",
    }),
    keyReference: z.string().nullable().meta({
      description:
        "The provider's reference to the key: an RFC 7512 PKCS#11 URI (token label and CKA_ID) for `pkcs11`; null for `software`. Never key material.",
      example: "pkcs11:token=verifiers;id=%8a%01%3c%de%12%7e%55%90%01%aa%bb%cc%dd%ee%ff%00",
    }),
  })
  .meta({
    id: "VerifierKeyLocation",
    description: "Where the private key of a verifier certificate is held.",
  });
export type TVerifierKeyLocation = z.infer<typeof zVerifierKeyLocation>;

/** Who generates and holds the key of an access-certificate signing request. */
export const zVerifierKeyCustody = z
  .strictObject({
    provider: z.enum(KEY_PROVIDERS).meta({
      description:
        "`software` (default): the key is made in the service and sealed under its master key. `pkcs11`: it is generated inside the platform's hardware security module and never leaves it (the CSR and every request object are signed there); available when the platform is configured with one.",
      example: "pkcs11",
    }),
    tokenLabel: zTokenLabel.nullable().optional(),
  })
  .meta({
    id: "VerifierKeyCustody",
    description:
      "Who holds the private key of the requested access certificate, and so the key request objects are signed with once it is imported.",
  });

export const zVerifierCertificateSigningRequest = z
  .object({
    csrPem: z.string().meta({
      description: "The PKCS#10 request (PEM) to send to the access CA; its key stays here, sealed.",
      example: "-----BEGIN CERTIFICATE REQUEST-----\nMIIB…\n-----END CERTIFICATE REQUEST-----",
    }),
    subject: z.string().meta({
      description: "The requested subject (RFC 4514; 2.5.4.97 is organizationIdentifier).",
      example: "C=FI, O=Webshop Oy, 2.5.4.97=VATFI-12345678, CN=Webshop Oy",
    }),
    createdAt: z.string().meta({ description: "When the request was made.", example: ISO_EXAMPLE }),
    keyLocation: zVerifierKeyLocation,
  })
  .meta({ id: "VerifierCertificateSigningRequest" });
export type TVerifierCertificateSigningRequest = z.infer<typeof zVerifierCertificateSigningRequest>;

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
    organisationIdentifiers: z.array(z.string()).meta({
      description:
        "The leaf subject's organizationIdentifier (2.5.4.97) values: set for an access certificate (ETSI TS 119 411-8); a registration certificate must name one of them.",
      example: ["VATFI-12345678"],
    }),
    signingRequest: zVerifierCertificateSigningRequest.nullable().meta({
      description:
        "The access-certificate signing request awaiting its certificate (VerifierCertificates_ImportAccessCertificate), null when none is pending.",
    }),
    keyLocation: zVerifierKeyLocation,
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

// ── Relying-party access certificate (WRPAC, ETSI TS 119 411-8) ─────────────────────────────────────

const OID = /^[0-2](\.(0|[1-9][0-9]{0,9})){1,30}$/;
/** ETSI EN 319 412-1 §5.1.4 organizationIdentifier: VAT/NTR/PSD/LEI + country, or a national scheme. */
const ORGANISATION_IDENTIFIER = /^(?:(?:VAT|NTR|PSD|LEI)[A-Z]{2}|[A-Z]{2}:[A-Z]{2})-[^\s]{1,100}$/;
const DNS_NAME = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/;

export const ZCreateVerifierCertificateSigningRequestRequest = z
  .strictObject({
    organisationName: z.string().trim().min(1).max(200).meta({
      description: "Subject `O`: the legal name of the relying party, or of the intermediary acting for it.",
      example: "Webshop Oy",
    }),
    organisationIdentifier: z.string().regex(ORGANISATION_IDENTIFIER).meta({
      description:
        "Subject `organizationIdentifier` (2.5.4.97), built as ETSI EN 319 412-1 §5.1.4 says: `VAT`, `NTR`, `PSD` or `LEI` plus the country code, `-`, the identifier (e.g. `VATFI-12345678`, `LEIXG-…`), or a national scheme `XX:CC-…`. A registration certificate must name the same identifier as its subject (or its intermediary).",
      example: "VATFI-12345678",
    }),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .meta({ description: "Subject `C`: ISO 3166-1 alpha-2 country of registration.", example: "FI" }),
    commonName: z.string().trim().min(1).max(64).optional().meta({
      description: "Subject `CN`; the organisation name when omitted.",
      example: "Webshop Oy verifier",
    }),
    dnsNames: z
      .array(z.string().toLowerCase().regex(DNS_NAME))
      .min(1)
      .max(10)
      .optional()
      .meta({
        description:
          "dNSName subjectAltNames to request; the public host when omitted (so `x509_san_dns` works). An imported certificate must keep at least one.",
        example: ["verifier.example.com"],
      }),
    certificatePolicies: z
      .array(z.string().regex(OID))
      .min(1)
      .max(10)
      .optional()
      .meta({
        description:
          "Certificate policy OIDs to request in a certificatePolicies extension, as the access CA's certificate policy names them. Omitted: `0.4.0.194118.1.2`, NCP-l-eudiwrp, the normalised ETSI TS 119 411-8 policy for access certificates of legal persons (the subject requested here is one); name `0.4.0.194118.1.4` (QCP-l-eudiwrp) for a qualified one. The CA sets the policies it issues under.",
        example: ["0.4.0.194118.1.2"],
      }),
    contactUri: z
      .url({ protocol: /^https$/, error: "Use an https URL." })
      .max(2048)
      .optional()
      .meta({
        description:
          "A website where the relying party can be contacted for helpdesk and support, requested as a uniformResourceIdentifier subjectAltName (ETSI TS 119 411-8 asks the certificate for at least one of a website, a telephone number or an email address; the CA takes them from the relying party's registration).",
        example: "https://webshop.example.com/support",
      }),
    contactEmail: z.email().max(254).optional().meta({
      description:
        "An email address for matters of the relying party's registration and use of wallets, requested as an rfc822Name subjectAltName.",
      example: "wallet-support@webshop.example.com",
    }),
    keyCustody: zVerifierKeyCustody.optional().meta({
      description: "Who generates and holds the requested certificate's key; default `software`.",
    }),
  })
  .meta({ id: "CreateVerifierCertificateSigningRequestRequest" });
registerRequestExample(ZCreateVerifierCertificateSigningRequestRequest, [], {
  organisationName: "Webshop Oy",
  organisationIdentifier: "VATFI-12345678",
  country: "FI",
  dnsNames: ["verifier.example.com"],
});
export type TCreateVerifierCertificateSigningRequestRequest = z.infer<
  typeof ZCreateVerifierCertificateSigningRequestRequest
>;

export const ZVerifierCertificateSigningRequestResponse = resourceOf(zVerifierCertificateSigningRequest).meta(
  {
    id: "ManagementResourceOfVerifierCertificateSigningRequest",
  },
);

export const ZImportVerifierAccessCertificateRequest = z
  .strictObject({
    certificateChainPem: z.string().min(1).max(65_536).meta({
      description:
        "The certificate the access CA issued for the pending signing request, PEM, leaf first, then its issuing CAs (a trailing root is kept but not sent in `x5c`).",
      example: PEM_EXAMPLE,
    }),
    trustAnchorPem: z.string().min(1).max(16_384).meta({
      description:
        "The access CA's root (PEM) the chain must validate to (RFC 5280 path validation); wallets trust access CAs through their trusted lists.",
      example: PEM_EXAMPLE,
    }),
  })
  .meta({ id: "ImportVerifierAccessCertificateRequest" });
// Well-formed, but no access CA issued it for your pending request: use the chain your CA returns.
registerRequestExample(ZImportVerifierAccessCertificateRequest, [], {
  certificateChainPem: EXAMPLE_VERIFIER_CERTIFICATE_CHAIN_PEM,
  trustAnchorPem: EXAMPLE_VERIFIER_CERTIFICATE_CHAIN_PEM,
});
export type TImportVerifierAccessCertificateRequest = z.infer<typeof ZImportVerifierAccessCertificateRequest>;

// ── Relying-party registration certificate (WRPRC, ETSI TS 119 475) ───────────────────────────────

export const ZGetVerifierRegistrationCertificateRequest = z.object({});
export const ZDeleteVerifierRegistrationCertificateRequest = z.object({});

export const ZUploadVerifierRegistrationCertificateRequest = z
  .strictObject({
    registrationCertificate: z
      .string()
      .min(1)
      .max(32_768)
      .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, "must be a compact JWS (JWT)")
      .meta({
        description:
          "The registration certificate, a JWT (`typ: rc-wrp+jwt`, ETSI TS 119 475) signed by the registrar with `x5c`.",
        example: "eyJ0eXAiOiJyYy13cnArand0Ii…",
      }),
    trustAnchorPem: z.string().min(1).max(16_384).meta({
      description: "The registrar's root (PEM) the `x5c` chain must validate to.",
      example: PEM_EXAMPLE,
    }),
  })
  .meta({ id: "UploadVerifierRegistrationCertificateRequest" });
registerRequestExample(ZUploadVerifierRegistrationCertificateRequest, [], {
  registrationCertificate: EXAMPLE_REGISTRATION_CERTIFICATE,
  trustAnchorPem: EXAMPLE_VERIFIER_CERTIFICATE_CHAIN_PEM,
});
export type TUploadVerifierRegistrationCertificateRequest = z.infer<
  typeof ZUploadVerifierRegistrationCertificateRequest
>;

export const zVerifierRegistrationCertificate = z
  .object({
    id: z.string().meta({
      description:
        "The registration certificate's id: what a verification policy names in `registrationCertificateIds`.",
      example: "vreg_01jd5x6c3v8w9y0z1a2b3c4d5e",
    }),
    default: z.boolean().meta({
      description:
        "Whether it is the environment's default one (VerifierRegistrationCertificates_Upload; used by policies that name none), or one added by id (VerifierRegistrationCertificates_Add).",
      example: true,
    }),
    relyingPartyId: z.string().nullable().meta({
      description:
        "The relying party this tenant holds it for as an intermediary (RelyingParties_AddRegistrationCertificate); null when the tenant is itself the relying party.",
      example: null,
    }),
    registrationCertificate: z.string().meta({ description: "The JWT as uploaded.", example: "eyJ…" }),
    name: z
      .string()
      .nullable()
      .meta({ description: "The relying party's name (`name`).", example: "Webshop" }),
    subjectIds: z.array(z.string()).meta({
      description: "The relying party's identifiers (`sub`).",
      example: ["VATFI-12345678"],
    }),
    intermediary: z
      .object({
        ids: z.array(z.string()).meta({ description: "`act.sub` identifiers.", example: ["VATFI-87654321"] }),
        name: z.string().nullable().meta({ description: "`act.sub.name`.", example: "Intermediary Oy" }),
      })
      .nullable()
      .meta({
        description:
          "The intermediary the relying party registered as acting for it (`act`); the access certificate is then the intermediary's. null: the relying party acts itself.",
      }),
    credentials: z
      .array(
        z.object({
          format: z.string().meta({ example: "dc+sd-jwt" }),
          types: z.array(z.string()).meta({ example: ["urn:eudi:pid:1"] }),
          claims: z.array(z.array(z.string())).meta({ example: [["given_name"], ["address"]] }),
        }),
      )
      .meta({
        description: "What the relying party is registered to request: formats, types and claim paths.",
      }),
    registrar: z
      .string()
      .meta({ description: "Subject of the registrar's signing certificate.", example: "CN=…" }),
    issuedAt: z.string().nullable().meta({ description: "`iat` (ISO 8601).", example: ISO_EXAMPLE }),
    expiresAt: z
      .string()
      .nullable()
      .meta({ description: "`exp` (ISO 8601), null when absent.", example: null }),
    createdAt: z.string().meta({ description: "When it was uploaded.", example: ISO_EXAMPLE }),
  })
  .meta({
    id: "VerifierRegistrationCertificate",
    description: "The registration certificate carried in every request object's verifier_info.",
  });
export type TVerifierRegistrationCertificate = z.infer<typeof zVerifierRegistrationCertificate>;
export const ZVerifierRegistrationCertificateResponse = resourceOf(zVerifierRegistrationCertificate).meta({
  id: "ManagementResourceOfVerifierRegistrationCertificate",
});

// ── Registration certificates by id (several per environment: per policy, per relying party) ─────────

const zRegistrationCertificateId = z.string().min(1).max(64).meta({
  description: "The registration certificate's id.",
  example: "vreg_01jd5x6c3v8w9y0z1a2b3c4d5e",
});

/** VerifierRegistrationCertificates_Add: the same body as Upload; the certificate gets an id of its own. */
export const ZAddVerifierRegistrationCertificateRequest = ZUploadVerifierRegistrationCertificateRequest;
export const ZVerifierRegistrationCertificateIdParams = z.object({
  registrationCertificateId: zRegistrationCertificateId,
});
export const ZListVerifierRegistrationCertificatesRequest = zListQuery;
export const ZListVerifierRegistrationCertificatesResponse = collectionOf(
  zVerifierRegistrationCertificate,
).meta({
  id: "ManagementCollectionOfVerifierRegistrationCertificate",
});
