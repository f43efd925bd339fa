/**
 * Checks of the contract that need more than zod can do in a browser: parsing an X.509 certificate
 * (node:crypto) and the protocol's redirect URI rules (@cred/oid4vc). The contract ships a structural
 * version of each, which is what the console's forms check; the server installs the full check once,
 * on loading (packages/core/src/shared/contract-checks.ts), before it parses any request. The schemas
 * call the installed check, so a failing value gives the same issue (path, message) either way.
 */
export type ServerChecks = {
  /** Whether a string is one PEM-encoded X.509 CA certificate (basicConstraints cA), fit to be a trust anchor. */
  isPemCaCertificate: (pem: string) => boolean;
  /** Whether a string may be registered as a wallet's redirect URI. */
  isAcceptableRedirectUri: (uri: string) => boolean;
};

/** Exactly one PEM certificate block: what can be checked without parsing X.509. */
export function hasOnePemCertificateBlock(pem: string): boolean {
  return pem.match(/-----BEGIN CERTIFICATE-----/g)?.length === 1 && pem.includes("-----END CERTIFICATE-----");
}

/** An absolute URI without fragment: what can be checked without the protocol's scheme and host rules. */
export function isAbsoluteUriWithoutFragment(uri: string): boolean {
  return URL.canParse(uri) && !uri.includes("#");
}

const structuralChecks: ServerChecks = {
  isPemCaCertificate: hasOnePemCertificateBlock,
  isAcceptableRedirectUri: isAbsoluteUriWithoutFragment,
};

let installed: ServerChecks = structuralChecks;

/** Replaces the structural checks by the server's full ones (core calls this once, on loading). */
export function installServerChecks(checks: ServerChecks): void {
  installed = checks;
}

/** Whether the full checks are installed (core's tests assert it). */
export function serverChecksInstalled(): boolean {
  return installed !== structuralChecks;
}

export const isPemCaCertificate = (pem: string): boolean => installed.isPemCaCertificate(pem);
export const isAcceptableRedirectUri = (uri: string): boolean => installed.isAcceptableRedirectUri(uri);
