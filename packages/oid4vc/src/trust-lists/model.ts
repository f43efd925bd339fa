/**
 * The parsed model shared by ETSI TS 119 612 trusted lists (XML) and TS 119 602 lists of trusted entities
 * (JSON): a list of providers (TSPs / trusted entities), each with services that carry a type, a status
 * from a starting time, their X.509 certificates, and the history of earlier states.
 */
export type TrustListFormat = "etsi-ts-119-612-xml" | "etsi-ts-119-602-json";

export const SERVICE_STATUS = {
  granted: "http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted",
  withdrawn: "http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/withdrawn",
} as const;

export const SERVICE_TYPE = {
  /** CA issuing qualified certificates (TS 119 612). */
  caQc: "http://uri.etsi.org/TrstSvc/Svctype/CA/QC",
  /** PID provider issuance service (TS 119 602 profile for PID providers). */
  pidIssuance: "http://uri.etsi.org/19602/SvcType/PID/Issuance",
  /** Wallet provider issuance service (wallet unit attestations, TS 119 602). */
  walletSolutionIssuance: "http://uri.etsi.org/19602/SvcType/WalletSolution/Issuance",
} as const;

/** One state of a service: its current information or an entry of its history. */
export interface TrustServiceState {
  serviceType: string;
  serviceName?: string;
  /** A status URI, e.g. SERVICE_STATUS.granted; absent when the list profile has none (TS 119 602 PID lists). */
  status?: string;
  statusStartingTime: Date;
  /** The service digital identities: X.509 certificates, DER. */
  certificates: Uint8Array[];
}

export interface TrustService extends TrustServiceState {
  /** Earlier states, as the list gives them (newest first by ETSI convention, not relied on). */
  history: TrustServiceState[];
}

export interface TrustServiceProvider {
  name: string;
  services: TrustService[];
}

/** A pointer of a list of lists to another list, with the certificates that may sign it. */
export interface TrustListPointer {
  location: string;
  territory?: string;
  listType?: string;
  mimeType?: string;
  /** The certificates that may sign the pointed-to list, DER. */
  signerCertificates: Uint8Array[];
}

export interface SchemeInformation {
  versionIdentifier?: number;
  sequenceNumber?: number;
  listType?: string;
  operatorName?: string;
  territory?: string;
  issueDateTime: Date;
  /** Absent for a closed list. */
  nextUpdate?: Date;
  pointers: TrustListPointer[];
}

export interface TrustList {
  format: TrustListFormat;
  schemeInformation: SchemeInformation;
  providers: TrustServiceProvider[];
}

/** A list whose signature verified against one of the expected anchors. */
export interface VerifiedTrustList extends TrustList {
  /** The certificate that signed the list (DER). */
  signerCertificate: Uint8Array;
}
