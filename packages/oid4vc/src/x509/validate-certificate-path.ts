import type { webcrypto } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

/** More certificates than this in one chain are refused (path building is recursive). */
export const MAX_CERTIFICATE_PATH_LENGTH = 5;

/** Why a chain is refused; stable words, one per check. */
export type CertificatePathProblem =
  | "malformed"
  | "too_long"
  | "anchor_only"
  | "no_path"
  | "not_in_order"
  | "not_valid_at_time"
  | "issuer_not_ca"
  | "path_length_exceeded"
  | "name_constraints_violated"
  | "policy_not_satisfied"
  | "unknown_critical_extension"
  | "leaf_is_ca"
  | "leaf_key_usage";

export type CertificatePathResult =
  | {
      valid: true;
      /** DER, leaf first, the trust anchor last. */
      path: Uint8Array[];
      /** The earliest `notAfter` on the path, anchor included. */
      notAfter: Date;
    }
  | { valid: false; problem: CertificatePathProblem; message: string };

export interface ValidateCertificatePathInput {
  /** DER certificates, leaf first, each certified by the next (a JOSE `x5c`); may end with the anchor. */
  chain: readonly Uint8Array[];
  /** DER of the pinned root the chain must end at. */
  trustAnchor: Uint8Array;
  /** The time every certificate on the path must be valid at. */
  at: Date;
  /** The Web Crypto that verifies signatures; the global one by default. */
  crypto?: webcrypto.Crypto;
}

const OID = {
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  nameConstraints: "2.5.29.30",
  certificatePolicies: "2.5.29.32",
  policyMappings: "2.5.29.33",
  authorityKeyIdentifier: "2.5.29.35",
  policyConstraints: "2.5.29.36",
  extKeyUsage: "2.5.29.37",
  inhibitAnyPolicy: "2.5.29.54",
} as const;

/**
 * The extensions a path is validated against, here or by pkijs, and so the only ones that may be
 * critical (RFC 5280 §4.2). Extended key usage is recognised without asking for a purpose: what a
 * chain is trusted for is decided by the root it is pinned under.
 */
const PROCESSED_EXTENSIONS: ReadonlySet<string> = new Set(Object.values(OID));

/** keyUsage bits, in the first content octet of the BIT STRING. */
const DIGITAL_SIGNATURE = 0x80;

const refuse = (problem: CertificatePathProblem, message: string): CertificatePathResult => ({
  valid: false,
  problem,
  message,
});

/** pkijs result codes (`CertificateChainValidationEngine.verify`) and what they mean here. */
function engineProblem(code: number): CertificatePathProblem {
  if (code === 8) return "not_valid_at_time";
  if (code === 14) return "issuer_not_ca";
  if (code === 41 || code === 42 || code === 21) return "name_constraints_violated";
  if (code === 0 || code === 98 || code === 99) return "policy_not_satisfied";
  return "no_path";
}

function parse(der: Uint8Array): pkijs.Certificate | null {
  try {
    const asn1 = asn1js.fromBER(der);
    // One certificate and nothing after it.
    if (asn1.offset !== der.byteLength) return null;
    return new pkijs.Certificate({ schema: asn1.result });
  } catch {
    return null;
  }
}

const sameBytes = (a: Uint8Array, b: Uint8Array) =>
  a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);

const extensionOf = (cert: pkijs.Certificate, oid: string) => cert.extensions?.find((e) => e.extnID === oid);

const selfIssued = (cert: pkijs.Certificate) => cert.subject.isEqual(cert.issuer);

/**
 * RFC 5280 §6.1.4 (l), (m): a CA's pathLenConstraint bounds the non-self-issued intermediate
 * certificates below it on the path (`path` leaf first). The anchor's bound holds too, as in most
 * validators. The index of the first CA whose bound is exceeded, or -1.
 */
function pathLengthExceededAt(path: readonly pkijs.Certificate[]): number {
  for (let i = 1; i < path.length; i++) {
    const constraints = extensionOf(path[i]!, OID.basicConstraints)?.parsedValue as
      | pkijs.BasicConstraints
      | undefined;
    const limit = constraints?.pathLenConstraint;
    if (typeof limit !== "number") continue;
    const below = path.slice(1, i).filter((cert) => !selfIssued(cert)).length;
    if (below > limit) return i;
  }
  return -1;
}

/** Whether a keyUsage extension, when there is one, lets the key sign (RFC 5280 §4.2.1.3: absent, any). */
function allowsDigitalSignature(cert: pkijs.Certificate): boolean {
  const keyUsage = extensionOf(cert, OID.keyUsage)?.parsedValue as asn1js.BitString | undefined;
  if (!keyUsage) return true;
  const first = keyUsage.valueBlock.valueHexView[0] ?? 0;
  return (first & DIGITAL_SIGNATURE) !== 0;
}

function isCa(cert: pkijs.Certificate): boolean {
  const constraints = extensionOf(cert, OID.basicConstraints)?.parsedValue as
    | pkijs.BasicConstraints
    | undefined;
  return constraints?.cA === true;
}

const describe = (index: number, length: number) =>
  index === 0 ? "the leaf certificate" : index === length - 1 ? "the trust anchor" : `certificate ${index}`;

/**
 * RFC 5280 path validation of a chain (leaf first) to one pinned trust anchor. pkijs's
 * `CertificateChainValidationEngine` checks that each certificate is signed by the next with names
 * chained, that every one is valid at `at`, that every certificate above the leaf is a CA (basicConstraints
 * cA; keyCertSign when it has a keyUsage), name constraints (the anchor's passed in as the initial
 * subtrees, which the engine would otherwise skip) and certificate policies. Checked here, where the
 * engine does not look (see the tests that pin what it does alone): at most `MAX_CERTIFICATE_PATH_LENGTH`
 * certificates, the anchor alone certifies nothing, pathLenConstraint (the anchor's too), no critical
 * extension outside the ones processed, a leaf that is not a CA and whose keyUsage (if any) includes
 * digitalSignature, and a path that is the chain exactly as given (no reordering, no stray certificate).
 * No revocation checking (nothing is fetched). Never throws for bad input: a refusal says which check failed.
 */
export async function validateCertificatePath(
  input: ValidateCertificatePathInput,
): Promise<CertificatePathResult> {
  if (input.chain.length === 0) return refuse("malformed", "the chain is empty");
  if (input.chain.length > MAX_CERTIFICATE_PATH_LENGTH)
    return refuse(
      "too_long",
      `the chain has ${input.chain.length} certificates; at most ${MAX_CERTIFICATE_PATH_LENGTH} are accepted`,
    );
  const anchor = parse(input.trustAnchor);
  if (!anchor) return refuse("malformed", "the trust anchor is not a DER certificate");
  const last = input.chain[input.chain.length - 1]!;
  const chainDer = sameBytes(last, input.trustAnchor) ? input.chain.slice(0, -1) : [...input.chain];
  if (chainDer.length === 0) return refuse("anchor_only", "the chain holds only the trust anchor");
  const chain: pkijs.Certificate[] = [];
  for (const [i, der] of chainDer.entries()) {
    const cert = parse(der);
    if (!cert) return refuse("malformed", `${describe(i, chainDer.length + 1)} is not a DER certificate`);
    chain.push(cert);
  }

  const given = [...chain, anchor];
  const exceeded = pathLengthExceededAt(given);
  if (exceeded >= 0)
    return refuse(
      "path_length_exceeded",
      `${describe(exceeded, given.length)} allows fewer intermediate certificates below it (pathLenConstraint)`,
    );
  for (const [i, cert] of given.entries()) {
    const unknown = cert.extensions?.find((e) => e.critical && !PROCESSED_EXTENSIONS.has(e.extnID));
    if (unknown)
      return refuse(
        "unknown_critical_extension",
        `${describe(i, given.length)} has a critical extension that is not processed: ${unknown.extnID}`,
      );
  }
  const leaf = chain[0]!;
  if (isCa(leaf)) return refuse("leaf_is_ca", "the leaf certificate is a CA certificate");
  if (!allowsDigitalSignature(leaf))
    return refuse("leaf_key_usage", "the leaf certificate's keyUsage does not include digitalSignature");

  const engine = new pkijs.CertificateChainValidationEngine({
    trustedCerts: [anchor],
    // The engine takes the last certificate as the one to validate.
    certs: [...chain.slice(1).reverse(), leaf],
    checkDate: input.at,
  });
  const cryptoEngine = new pkijs.CryptoEngine({
    // Node's webcrypto and the DOM Crypto type pkijs names differ only in typings.
    crypto: (input.crypto ?? globalThis.crypto) as never,
  });
  // The anchor's own name constraints bind the path too (the engine applies those of the certificates
  // below the anchor only).
  const anchorConstraints = extensionOf(anchor, OID.nameConstraints)?.parsedValue as
    | pkijs.NameConstraints
    | undefined;
  const verdict = await engine.verify(
    {
      initialPermittedSubtreesSet: anchorConstraints?.permittedSubtrees ?? [],
      initialExcludedSubtreesSet: anchorConstraints?.excludedSubtrees ?? [],
    },
    cryptoEngine,
  );
  if (!verdict.result) return refuse(engineProblem(verdict.resultCode), verdict.resultMessage);
  // The path the engine built must be the chain as given: each certificate issued by the next.
  const path = verdict.certificatePath ?? [];
  const asGiven =
    path.length === given.length && given.every((cert, i) => sameBytes(cert.tbsView, path[i]!.tbsView));
  if (!asGiven)
    return refuse("not_in_order", "the chain is not leaf first with each certificate issued by the next");

  return {
    valid: true,
    path: [...chainDer.map((der) => new Uint8Array(der)), new Uint8Array(input.trustAnchor)],
    notAfter: new Date(Math.min(...given.map((cert) => cert.notAfter.value.getTime()))),
  };
}
