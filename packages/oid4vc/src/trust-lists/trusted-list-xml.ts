/**
 * ETSI TS 119 612 V2.4.1 trusted lists (XML, namespace http://uri.etsi.org/02231/v2#; TSLVersionIdentifier
 * 5 or 6): parsing of the scheme information, pointers to other lists (a list of the lists), and the trust
 * service providers with their services and service history; and verification of the list's signature.
 */
import { type CertificateInput, requireCurrent } from "./anchors";
import { TrustListError } from "./errors";
import type {
  SchemeInformation,
  TrustList,
  TrustListPointer,
  TrustServiceProvider,
  TrustServiceState,
  VerifiedTrustList,
} from "./model";
import { child, children, DSIG_NS, descendants, parseXmlStrict, TSL_NS, text } from "./xml-dom";
import { verifyEnvelopedXmlSignature } from "./xml-signature";

const ACCEPTED_VERSIONS = new Set([5, 6]);

function required(element: Element | undefined, what: string): string {
  const value = text(element);
  if (!value) throw new TrustListError("MalformedList", `${what} is missing`);
  return value;
}

function dateOf(value: string, what: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new TrustListError("MalformedList", `${what} is not a date-time`);
  return date;
}

function integerOf(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new TrustListError("MalformedList", `${what} is not an integer`);
  return Number(value);
}

/** The first name of a multilingual name list, English preferred. */
function nameOf(parent: Element | undefined): string | undefined {
  if (!parent) return undefined;
  const names = children(parent, "Name");
  const english = names.find(
    (name) => name.getAttributeNS("http://www.w3.org/XML/1998/namespace", "lang") === "en",
  );
  return text(english ?? names[0]);
}

function base64Der(value: string, what: string): Uint8Array {
  const compact = value.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact))
    throw new TrustListError("MalformedList", `${what} is not base64`);
  return new Uint8Array(Buffer.from(compact, "base64"));
}

/** X509Certificate values of a ServiceDigitalIdentity (other DigitalId kinds are skipped). */
function certificatesOf(identities: Element[]): Uint8Array[] {
  return identities
    .flatMap((identity) => children(identity, "DigitalId"))
    .flatMap((digitalId) => children(digitalId, "X509Certificate"))
    .map((element) => base64Der(required(element, "X509Certificate"), "X509Certificate"));
}

function stateOf(element: Element, what: string): TrustServiceState {
  const name = nameOf(child(element, "ServiceName"));
  return {
    serviceType: required(child(element, "ServiceTypeIdentifier"), `${what} ServiceTypeIdentifier`),
    ...(name ? { serviceName: name } : {}),
    status: required(child(element, "ServiceStatus"), `${what} ServiceStatus`),
    statusStartingTime: dateOf(
      required(child(element, "StatusStartingTime"), `${what} StatusStartingTime`),
      `${what} StatusStartingTime`,
    ),
    certificates: certificatesOf(children(element, "ServiceDigitalIdentity")),
  };
}

function pointerOf(pointer: Element): TrustListPointer {
  const otherInformation =
    (child(pointer, "AdditionalInformation") &&
      children(child(pointer, "AdditionalInformation") as Element, "OtherInformation")) ||
    [];
  const info = (localName: string) =>
    otherInformation
      .map((other) => text(children(other, localName, "*")[0]))
      .find((value) => value !== undefined);
  const territory = info("SchemeTerritory");
  const listType = info("TSLType");
  const mimeType = info("MimeType");
  const identities = children(pointer, "ServiceDigitalIdentities").flatMap((list) =>
    children(list, "ServiceDigitalIdentity"),
  );
  return {
    location: required(child(pointer, "TSLLocation"), "OtherTSLPointer TSLLocation"),
    ...(territory ? { territory } : {}),
    ...(listType ? { listType } : {}),
    ...(mimeType ? { mimeType } : {}),
    signerCertificates: certificatesOf(identities),
  };
}

function schemeInformationOf(element: Element): SchemeInformation {
  const versionIdentifier = integerOf(text(child(element, "TSLVersionIdentifier")), "TSLVersionIdentifier");
  if (versionIdentifier === undefined || !ACCEPTED_VERSIONS.has(versionIdentifier)) {
    throw new TrustListError(
      "MalformedList",
      `TSLVersionIdentifier ${versionIdentifier ?? "(none)"} is not 5 or 6`,
    );
  }
  const nextUpdate = text(child(child(element, "NextUpdate") ?? element, "dateTime"));
  const pointers = children(child(element, "PointersToOtherTSL") ?? element, "OtherTSLPointer").map(
    pointerOf,
  );
  const operatorName = nameOf(child(element, "SchemeOperatorName"));
  const listType = text(child(element, "TSLType"));
  const territory = text(child(element, "SchemeTerritory"));
  const sequenceNumber = integerOf(text(child(element, "TSLSequenceNumber")), "TSLSequenceNumber");
  return {
    versionIdentifier,
    ...(sequenceNumber !== undefined ? { sequenceNumber } : {}),
    ...(listType ? { listType } : {}),
    ...(operatorName ? { operatorName } : {}),
    ...(territory ? { territory } : {}),
    issueDateTime: dateOf(
      required(child(element, "ListIssueDateTime"), "ListIssueDateTime"),
      "ListIssueDateTime",
    ),
    ...(nextUpdate ? { nextUpdate: dateOf(nextUpdate, "NextUpdate") } : {}),
    pointers,
  };
}

/** Parses a TS 119 612 list without checking its signature (use verifyTrustedListXml for anything trusted). */
export function parseTrustedListXml(xml: string): TrustList {
  const root = parseXmlStrict(xml).documentElement;
  if (root.localName !== "TrustServiceStatusList" || root.namespaceURI !== TSL_NS) {
    throw new TrustListError("MalformedList", "the root element is not a TS 119 612 TrustServiceStatusList");
  }
  const scheme = child(root, "SchemeInformation");
  if (!scheme) throw new TrustListError("MalformedList", "SchemeInformation is missing");
  const providerList = child(root, "TrustServiceProviderList");
  const providers: TrustServiceProvider[] = (
    providerList ? children(providerList, "TrustServiceProvider") : []
  ).map((tsp) => ({
    name: nameOf(child(child(tsp, "TSPInformation") ?? tsp, "TSPName")) ?? "",
    services: children(child(tsp, "TSPServices") ?? tsp, "TSPService").map((service) => {
      const information = child(service, "ServiceInformation");
      if (!information) throw new TrustListError("MalformedList", "a TSPService has no ServiceInformation");
      const history = children(child(service, "ServiceHistory") ?? service, "ServiceHistoryInstance");
      return {
        ...stateOf(information, "ServiceInformation"),
        history: history.map((entry) => stateOf(entry, "ServiceHistoryInstance")),
      };
    }),
  }));
  return { format: "etsi-ts-119-612-xml", schemeInformation: schemeInformationOf(scheme), providers };
}

export interface VerifyTrustListOptions {
  /** The certificates allowed to sign this list (PEM, base64 DER or DER): by exact certificate or public key. */
  anchors: readonly CertificateInput[];
  /** The time the list must be current at; now by default. */
  at?: Date;
}

/**
 * Verifies a TS 119 612 list: one enveloped XMLDSig signature over the whole list (exclusive c14n), made by a
 * signer certificate from KeyInfo that is one of `anchors`, and NextUpdate not yet passed. The model is
 * parsed from the signed content only. Throws TrustListError.
 */
export function verifyTrustedListXml(xml: string, options: VerifyTrustListOptions): VerifiedTrustList {
  const at = options.at ?? new Date();
  const root = parseXmlStrict(xml).documentElement;
  if (root.localName !== "TrustServiceStatusList" || root.namespaceURI !== TSL_NS) {
    throw new TrustListError("MalformedList", "the root element is not a TS 119 612 TrustServiceStatusList");
  }
  if (descendants(root, "Signature", DSIG_NS).length === 0)
    throw new TrustListError("BadSignature", "the list is not signed");
  const { signedXml, signer } = verifyEnvelopedXmlSignature(xml, { anchors: options.anchors, at });
  const list = parseTrustedListXml(signedXml);
  requireCurrent(list.schemeInformation.nextUpdate, at);
  return { ...list, signerCertificate: new Uint8Array(signer.raw) };
}
