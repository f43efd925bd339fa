/**
 * Test-only: builds and signs ETSI TS 119 612 lists and TS 119 602 LoTEs with a test key, so tests make
 * their own trusted lists. Not exported by the trust-lists entry point (tests import
 * `@cred/oid4vc/trust-lists/testing`); the service never signs lists.
 */
import { SignJWT } from "jose";
import { SignedXml } from "xml-crypto";
import { x509 } from "../x509/peculiar-x509";
import { withEcdsaSignatureMethods } from "./ecdsa-xml-signature";

const RSA = {
  name: "RSASSA-PKCS1-v1_5",
  hash: "SHA-256",
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
} as const;
const ES256 = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY = 86_400_000;

export interface TestSigner {
  kind: "rsa" | "ec";
  certificatePem: string;
  /** DER base64, as a list carries certificates. */
  certificateBase64: string;
  privateKeyPem: string;
  privateKey: CryptoKey;
}

function pem(label: string, der: ArrayBuffer): string {
  const body = Buffer.from(der)
    .toString("base64")
    .match(/.{1,64}/g)
    ?.join("\n");
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

/** A self-signed signer (RSA for XMLDSig, P-256 for a LoTE JWS), valid from yesterday for a year unless told. */
export async function createTestSigner(
  name: string,
  options: { kind?: "rsa" | "ec"; notBefore?: Date; notAfter?: Date } = {},
): Promise<TestSigner> {
  const algorithm = options.kind === "ec" ? ES256 : RSA;
  const keys = (await globalThis.crypto.subtle.generateKey(algorithm, true, [
    "sign",
    "verify",
  ])) as CryptoKeyPair;
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: "01",
    name,
    notBefore: options.notBefore ?? new Date(Date.now() - DAY),
    notAfter: options.notAfter ?? new Date(Date.now() + 365 * DAY),
    signingAlgorithm: algorithm,
    keys,
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  });
  return {
    kind: options.kind ?? "rsa",
    certificatePem: certificate.toString("pem"),
    certificateBase64: certificate.toString("base64"),
    privateKeyPem: pem("PRIVATE KEY", await globalThis.crypto.subtle.exportKey("pkcs8", keys.privateKey)),
    privateKey: keys.privateKey,
  };
}

export interface TestService {
  type: string;
  status: string;
  statusStartingTime: Date;
  certificatesBase64: string[];
  name?: string;
  history?: Omit<TestService, "history">[];
}

export interface TestPointer {
  location: string;
  territory: string;
  signerCertificatesBase64: string[];
  listType?: string;
}

export interface TestTrustedListInput {
  territory: string;
  sequenceNumber?: number;
  listType?: string;
  issueDateTime?: Date;
  nextUpdate?: Date;
  pointers?: TestPointer[];
  providers?: { name: string; services: TestService[] }[];
  /** The root element's Id attribute (for a reference URI="#Id"). */
  id?: string;
}

const escapeXml = (value: string) => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function serviceStateXml(element: string, state: Omit<TestService, "history">): string {
  const identities = state.certificatesBase64
    .map((der) => `<DigitalId><X509Certificate>${der}</X509Certificate></DigitalId>`)
    .join("");
  return `<${element}><ServiceTypeIdentifier>${escapeXml(state.type)}</ServiceTypeIdentifier><ServiceName><Name xml:lang="en">${escapeXml(state.name ?? "Test service")}</Name></ServiceName><ServiceDigitalIdentity>${identities}</ServiceDigitalIdentity><ServiceStatus>${escapeXml(state.status)}</ServiceStatus><StatusStartingTime>${state.statusStartingTime.toISOString()}</StatusStartingTime></${element}>`;
}

/** An unsigned TS 119 612 V2.4.1 list (TSLVersionIdentifier 6) with the fields this layer reads. */
export function buildTrustedListXml(input: TestTrustedListInput): string {
  const issue = input.issueDateTime ?? new Date(Date.now() - DAY);
  const next = input.nextUpdate ?? new Date(Date.now() + 30 * DAY);
  const pointers = (input.pointers ?? [])
    .map(
      (pointer) =>
        `<OtherTSLPointer><ServiceDigitalIdentities><ServiceDigitalIdentity>${pointer.signerCertificatesBase64.map((der) => `<DigitalId><X509Certificate>${der}</X509Certificate></DigitalId>`).join("")}</ServiceDigitalIdentity></ServiceDigitalIdentities><TSLLocation>${escapeXml(pointer.location)}</TSLLocation><AdditionalInformation><OtherInformation><TSLType>${escapeXml(pointer.listType ?? "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUgeneric")}</TSLType></OtherInformation><OtherInformation><SchemeTerritory>${pointer.territory}</SchemeTerritory></OtherInformation><OtherInformation><tslx:MimeType xmlns:tslx="http://uri.etsi.org/02231/v2/additionaltypes#">application/vnd.etsi.tsl+xml</tslx:MimeType></OtherInformation></AdditionalInformation></OtherTSLPointer>`,
    )
    .join("");
  const providers = (input.providers ?? [])
    .map((provider) => {
      const services = provider.services
        .map((service) => {
          const history = (service.history ?? [])
            .map((entry) => serviceStateXml("ServiceHistoryInstance", entry))
            .join("");
          return `<TSPService>${serviceStateXml("ServiceInformation", service)}${history ? `<ServiceHistory>${history}</ServiceHistory>` : ""}</TSPService>`;
        })
        .join("");
      return `<TrustServiceProvider><TSPInformation><TSPName><Name xml:lang="en">${escapeXml(provider.name)}</Name></TSPName></TSPInformation><TSPServices>${services}</TSPServices></TrustServiceProvider>`;
    })
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>
<TrustServiceStatusList xmlns="http://uri.etsi.org/02231/v2#" TSLTag="http://uri.etsi.org/19612/TSLTag"${input.id ? ` Id="${input.id}"` : ""}><SchemeInformation><TSLVersionIdentifier>6</TSLVersionIdentifier><TSLSequenceNumber>${input.sequenceNumber ?? 1}</TSLSequenceNumber><TSLType>${escapeXml(input.listType ?? "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUgeneric")}</TSLType><SchemeOperatorName><Name xml:lang="en">Test scheme operator ${input.territory}</Name></SchemeOperatorName><SchemeTerritory>${input.territory}</SchemeTerritory>${pointers ? `<PointersToOtherTSL>${pointers}</PointersToOtherTSL>` : ""}<ListIssueDateTime>${issue.toISOString()}</ListIssueDateTime><NextUpdate><dateTime>${next.toISOString()}</dateTime></NextUpdate></SchemeInformation>${providers ? `<TrustServiceProviderList>${providers}</TrustServiceProviderList>` : ""}</TrustServiceStatusList>`;
}

/**
 * Signs a list as TS 119 612 asks: an enveloped signature, last child of the root, one reference over the
 * whole document (URI="" by default, or "#Id" of the root), exclusive c14n, RSA-SHA256 or ECDSA-SHA256 by the signer's key, signer in KeyInfo.
 */
export function signTrustedListXml(
  xml: string,
  signer: TestSigner,
  options: { referenceByRootId?: boolean } = {},
): string {
  const signature = withEcdsaSignatureMethods(
    new SignedXml({
      privateKey: signer.privateKeyPem,
      publicCert: signer.certificatePem,
      signatureAlgorithm:
        signer.kind === "ec"
          ? "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256"
          : "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
      canonicalizationAlgorithm: "http://www.w3.org/2001/10/xml-exc-c14n#",
    }),
  );
  signature.addReference({
    xpath: "/*",
    transforms: [
      "http://www.w3.org/2000/09/xmldsig#enveloped-signature",
      "http://www.w3.org/2001/10/xml-exc-c14n#",
    ],
    digestAlgorithm: "http://www.w3.org/2001/04/xmlenc#sha256",
    ...(options.referenceByRootId ? {} : { uri: "", isEmptyUri: true }),
  });
  signature.computeSignature(xml, { prefix: "ds", location: { reference: "/*", action: "append" } });
  return signature.getSignedXml();
}

export interface TestLoteInput {
  sequenceNumber?: number;
  /** LoTEType; the EU wallet providers list by default. */
  listType?: string;
  territory?: string;
  issueDateTime?: Date;
  nextUpdate?: Date;
  entities: { name: string; services: Omit<TestService, "history">[] }[];
}

/** An unsigned TS 119 602 list of trusted entities (JSON) with the fields this layer reads. */
export function buildLote(input: TestLoteInput) {
  return {
    LoTE: {
      ListAndSchemeInformation: {
        LoTEVersionIdentifier: 1,
        LoTESequenceNumber: input.sequenceNumber ?? 1,
        LoTEType: input.listType ?? "http://uri.etsi.org/19602/LoTEType/EUWalletProvidersList",
        SchemeOperatorName: [{ lang: "en", value: "Test scheme operator" }],
        SchemeTerritory: input.territory ?? "EU",
        ListIssueDateTime: (input.issueDateTime ?? new Date(Date.now() - DAY)).toISOString(),
        NextUpdate: (input.nextUpdate ?? new Date(Date.now() + 30 * DAY)).toISOString(),
      },
      TrustedEntitiesList: input.entities.map((entity) => ({
        TrustedEntityInformation: { TEName: [{ lang: "en", value: entity.name }] },
        TrustedEntityServices: entity.services.map((service) => ({
          ServiceInformation: {
            ServiceTypeIdentifier: service.type,
            ServiceName: [{ lang: "en", value: service.name ?? "Test service" }],
            ServiceDigitalIdentity: { X509Certificates: service.certificatesBase64.map((val) => ({ val })) },
            ServiceStatus: service.status,
            StatusStartingTime: service.statusStartingTime.toISOString(),
          },
        })),
      })),
    },
  };
}

/** Signs a LoTE JSON document as a compact JWS with the signer in x5c. */
export async function signLoteJws(lote: unknown, signer: TestSigner, alg = "ES256"): Promise<string> {
  return new SignJWT(lote as Record<string, unknown>)
    .setProtectedHeader({ alg, typ: "JWT", x5c: [signer.certificateBase64] })
    .sign(signer.privateKey);
}
