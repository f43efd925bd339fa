import type { webcrypto } from "node:crypto";
import { type Es256SigningKey, es256SignerOf } from "../jose/jws";
import type { Jwk } from "../jose/key-input";
import { heldKeyCrypto } from "../x509/held-key-crypto";
import { x509 } from "../x509/peculiar-x509";

/**
 * Relying-party access certificates (WRPAC, ETSI TS 119 411-8, as ARF 2.x/3.0 and HAIP ask for on every
 * presentation request): the key pair and PKCS#10 request a verifier sends to its access CA.
 */

const ES256_KEY: webcrypto.EcKeyGenParams & webcrypto.EcdsaParams = {
  name: "ECDSA",
  namedCurve: "P-256",
  hash: "SHA-256",
};

/** X.520 attribute types of the subject (RFC 5280 / ETSI EN 319 412-1 §5.1.4 for organizationIdentifier). */
export const SUBJECT_ATTRIBUTE_OIDS = {
  commonName: "2.5.4.3",
  country: "2.5.4.6",
  organisationName: "2.5.4.10",
  organisationIdentifier: "2.5.4.97",
} as const;

/**
 * The certificate policies of ETSI TS 119 411-8 V1.1.1 clause 5.3 (`{ itu-t(0) identified-organization(4)
 * etsi(0) eudiwrp(194118) policy-identifiers(1) }`): normalised (NCP) and qualified (QCP) policies for
 * access certificates issued to natural (-n) and legal (-l) persons. The ETSI text was not reachable
 * here; the values are those independent implementations and profiles cite (docs/api/relying-party-certificates.md).
 */
export const ACCESS_CERTIFICATE_POLICY_OIDS = {
  "NCP-n-eudiwrp": "0.4.0.194118.1.1",
  "NCP-l-eudiwrp": "0.4.0.194118.1.2",
  "QCP-n-eudiwrp": "0.4.0.194118.1.3",
  "QCP-l-eudiwrp": "0.4.0.194118.1.4",
} as const;

/**
 * What a request names when the caller names no policy: the normalised policy for legal persons, the
 * least a WRPAC must meet (CIR 2025/848 Annex IV: at least NCP), for the legal-person subject made here.
 */
export const DEFAULT_ACCESS_CERTIFICATE_POLICY_OIDS: readonly string[] = [
  ACCESS_CERTIFICATE_POLICY_OIDS["NCP-l-eudiwrp"],
];

export interface AccessCertificateSubject {
  /** `O`: the legal name of the relying party (or of the intermediary acting for it). */
  organisationName: string;
  /** `organizationIdentifier` (2.5.4.97), e.g. `VATFI-12345678` or `LEIXG-…`. */
  organisationIdentifier: string;
  /** `C`: ISO 3166-1 alpha-2 country of registration. */
  country: string;
  /** `CN`: a name for the certificate; the organisation name when omitted. */
  commonName?: string;
}

export interface AccessCertificateRequestInput extends AccessCertificateSubject {
  /** dNSName subjectAltNames requested (the verifier's public host, so `x509_san_dns` works too). */
  dnsNames: string[];
  /**
   * Certificate policy OIDs requested (certificatePolicies extension); the access CA decides. Omitted:
   * DEFAULT_ACCESS_CERTIFICATE_POLICY_OIDS (NCP-l-eudiwrp).
   */
  policyOids?: readonly string[];
  /**
   * Contact information of the relying party requested as subjectAltNames (TS 119 411-8 GEN-6.6.1-07
   * asks the certificate for at least one of a website, a telephone number or an email address):
   * uniformResourceIdentifier entries for a helpdesk website, rfc822Name entries for email addresses.
   */
  contactUris?: readonly string[];
  contactEmails?: readonly string[];
  /**
   * A P-256 key held elsewhere (an HSM) to request the certificate for: the request is signed there and
   * no key is made here. Without it a fresh key is generated in the process and returned.
   */
  heldKey?: { signingKey: Es256SigningKey; publicJwk: Jwk };
}

export interface AccessCertificateRequest {
  csrPem: string;
  /** The subject as a one-line RFC 4514 string. */
  subject: string;
  /** The new private key (ES256 / P-256). Secret: seal it, never return it. Null for a `heldKey`. */
  privateKeyJwk: Jwk | null;
}

function subjectName(subject: AccessCertificateSubject): x509.JsonName {
  return [
    { [SUBJECT_ATTRIBUTE_OIDS.country]: [{ printableString: subject.country }] },
    { [SUBJECT_ATTRIBUTE_OIDS.organisationName]: [{ utf8String: subject.organisationName }] },
    { [SUBJECT_ATTRIBUTE_OIDS.organisationIdentifier]: [{ utf8String: subject.organisationIdentifier }] },
    {
      [SUBJECT_ATTRIBUTE_OIDS.commonName]: [{ utf8String: subject.commonName ?? subject.organisationName }],
    },
  ] as unknown as x509.JsonName;
}

/**
 * A fresh P-256 key and a PKCS#10 request signed with it whose subject carries C, O,
 * organizationIdentifier and CN (the legal-person identification TS 119 411-8 takes from EN 319 412-1
 * and EN 319 412-3), with requested extensions: dNSName SANs and the contact SANs given, key usage
 * digitalSignature (the key signs request objects) and the certificate policies (NCP-l-eudiwrp unless
 * others are named).
 */
export async function createAccessCertificateRequest(
  input: AccessCertificateRequestInput,
): Promise<AccessCertificateRequest> {
  const subtle = globalThis.crypto.subtle;
  const held = input.heldKey ? heldKeyCrypto(es256SignerOf(input.heldKey.signingKey)) : null;
  const keys: webcrypto.CryptoKeyPair = input.heldKey
    ? {
        privateKey: held!.privateKey,
        publicKey: await subtle.importKey(
          "jwk",
          {
            kty: input.heldKey.publicJwk.kty,
            crv: input.heldKey.publicJwk.crv,
            x: input.heldKey.publicJwk.x,
            y: input.heldKey.publicJwk.y,
          } as webcrypto.JsonWebKey,
          ES256_KEY,
          true,
          ["verify"],
        ),
      }
    : await subtle.generateKey(ES256_KEY, true, ["sign", "verify"]);
  const extensions: x509.Extension[] = [
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.SubjectAlternativeNameExtension([
      ...input.dnsNames.map((value) => ({ type: "dns" as const, value })),
      ...(input.contactUris ?? []).map((value) => ({ type: "url" as const, value })),
      ...(input.contactEmails ?? []).map((value) => ({ type: "email" as const, value })),
    ]),
  ];
  const policyOids = input.policyOids ?? DEFAULT_ACCESS_CERTIFICATE_POLICY_OIDS;
  if (policyOids.length > 0) extensions.push(new x509.CertificatePolicyExtension([...policyOids]));
  const csr = await x509.Pkcs10CertificateRequestGenerator.create(
    {
      name: new x509.Name(subjectName(input)),
      keys,
      signingAlgorithm: ES256_KEY,
      extensions,
    },
    held?.crypto,
  );
  const jwk = held ? null : ((await subtle.exportKey("jwk", keys.privateKey)) as Jwk);
  return {
    csrPem: csr.toString("pem"),
    subject: csr.subject,
    privateKeyJwk: jwk ? { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, d: jwk.d } : null,
  };
}

/** The `organizationIdentifier` (2.5.4.97) values of a certificate's subject, DER or PEM. */
export function organisationIdentifiersOf(certificate: string | Uint8Array): string[] {
  const cert = new x509.X509Certificate(certificate as never);
  return cert.subjectName.getField(SUBJECT_ATTRIBUTE_OIDS.organisationIdentifier);
}

/** The subject of a PKCS#10 request (PEM), one line. */
export function signingRequestSubject(csrPem: string): string {
  return new x509.Pkcs10CertificateRequest(csrPem).subject;
}
