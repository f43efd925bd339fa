/**
 * Verification of the enveloped XMLDSig signature of an ETSI TS 119 612 trusted list (clause 5.7.1: an
 * enveloped XAdES signature whose reference covers the whole list, exclusive canonicalisation), with
 * xml-crypto. Only what the signature covers is returned, so the caller parses signed bytes only.
 */
import type { X509Certificate } from "node:crypto";
import { SignedXml } from "xml-crypto";
import { type CertificateInput, requireAnchoredSigner, toX509 } from "./anchors";
import { ECDSA_SIGNATURE_METHODS, withEcdsaSignatureMethods } from "./ecdsa-xml-signature";
import { TrustListError } from "./errors";
import { DSIG_NS, descendants, parseXmlStrict, text } from "./xml-dom";

const ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";
const EXC_C14N = "http://www.w3.org/2001/10/xml-exc-c14n#";
const EXC_C14N_COMMENTS = "http://www.w3.org/2001/10/xml-exc-c14n#WithComments";
const SIGNED_PROPERTIES_TYPE = "http://uri.etsi.org/01903#SignedProperties";
/** RSA from xml-crypto, ECDSA from ./ecdsa-xml-signature (xml-crypto has none built in). */
const SIGNATURE_ALGORITHMS = new Set([
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512",
  ...Object.keys(ECDSA_SIGNATURE_METHODS),
]);
const DIGEST_ALGORITHMS = new Set([
  "http://www.w3.org/2001/04/xmlenc#sha256",
  "http://www.w3.org/2001/04/xmlenc#sha512",
]);

export interface VerifiedXmlSignature {
  /** The canonical XML of the signed document (the whole list, the signature removed). */
  signedXml: string;
  signer: X509Certificate;
}

export function verifyEnvelopedXmlSignature(
  xml: string,
  options: { anchors: readonly CertificateInput[]; at: Date },
): VerifiedXmlSignature {
  const doc = parseXmlStrict(xml);
  const root = doc.documentElement;
  // Exactly one signature, a direct child of the root: anything else is a wrapping attempt or a second,
  // unchecked signature.
  const signatures = descendants(root, "Signature", DSIG_NS);
  if (signatures.length === 0) throw new TrustListError("BadSignature", "the list carries no ds:Signature");
  if (signatures.length > 1)
    throw new TrustListError("WrongReference", "the list carries more than one ds:Signature");
  const signature = signatures[0] as Element;
  if (signature.parentNode !== root) {
    throw new TrustListError("WrongReference", "the ds:Signature is not a child of the list's root element");
  }

  // An Id the root shares with another element lets a reference by Id point at either: refuse it.
  const rootId = root.getAttribute("Id");
  if (rootId) {
    const all = root.getElementsByTagName("*");
    for (let i = 0; i < all.length; i++) {
      if (all.item(i)?.getAttribute("Id") === rootId) {
        throw new TrustListError("WrongReference", `another element carries the root's Id "${rootId}"`);
      }
    }
  }

  const signedInfo = descendants(signature, "SignedInfo", DSIG_NS)[0];
  const c14n =
    signedInfo && descendants(signedInfo, "CanonicalizationMethod", DSIG_NS)[0]?.getAttribute("Algorithm");
  if (c14n !== EXC_C14N && c14n !== EXC_C14N_COMMENTS) {
    throw new TrustListError(
      "UnsupportedAlgorithm",
      `SignedInfo canonicalisation ${c14n ?? "(none)"} is not exclusive c14n`,
    );
  }
  const algorithm =
    signedInfo && descendants(signedInfo, "SignatureMethod", DSIG_NS)[0]?.getAttribute("Algorithm");
  if (!algorithm || !SIGNATURE_ALGORITHMS.has(algorithm)) {
    throw new TrustListError(
      "UnsupportedAlgorithm",
      `signature algorithm ${algorithm ?? "(none)"} is not accepted`,
    );
  }

  const keyInfoCertificate = descendants(signature, "KeyInfo", DSIG_NS)
    .flatMap((keyInfo) => descendants(keyInfo, "X509Certificate", DSIG_NS))
    .map((element) => text(element))[0];
  if (!keyInfoCertificate) throw new TrustListError("UnknownSigner", "KeyInfo carries no X509Certificate");
  const signer = toX509(keyInfoCertificate);
  requireAnchoredSigner(signer, options.anchors, options.at);

  // The key comes from the anchored certificate, never from whatever KeyInfo xml-crypto would pick.
  const verifier = withEcdsaSignatureMethods(
    new SignedXml({ publicCert: signer.toString(), getCertFromKeyInfo: () => null }),
  );
  verifier.loadSignature(signature as unknown as Node);
  let valid: boolean;
  try {
    valid = verifier.checkSignature(xml);
  } catch (error) {
    throw new TrustListError("BadSignature", `the signature does not verify (${(error as Error).message})`);
  }
  if (!valid)
    throw new TrustListError("BadSignature", "a reference digest or the signature value does not verify");

  const references = verifier.getReferences();
  const whole = references.filter(
    (reference) => reference.uri === "" || (rootId && reference.uri === `#${rootId}`),
  );
  if (whole.length !== 1) {
    throw new TrustListError(
      "WrongReference",
      'no single reference covers the whole list (URI="" or the root\'s Id)',
    );
  }
  const [listReference] = whole;
  const transforms = listReference?.transforms ?? [];
  if (
    transforms.length !== 2 ||
    transforms[0] !== ENVELOPED ||
    (transforms[1] !== EXC_C14N && transforms[1] !== EXC_C14N_COMMENTS)
  ) {
    throw new TrustListError(
      "WrongReference",
      "the list reference must use the enveloped-signature and exclusive c14n transforms",
    );
  }
  for (const reference of references) {
    if (!DIGEST_ALGORITHMS.has(reference.digestAlgorithm)) {
      throw new TrustListError(
        "UnsupportedAlgorithm",
        `digest algorithm ${reference.digestAlgorithm} is not accepted`,
      );
    }
    if (reference !== listReference && reference.type !== SIGNED_PROPERTIES_TYPE) {
      throw new TrustListError("WrongReference", `unexpected reference ${reference.uri}`);
    }
  }
  const signedXml =
    verifier.getSignedReferences()[references.indexOf(listReference as (typeof references)[number])];
  if (!signedXml)
    throw new TrustListError("BadSignature", "the signed content of the list reference is missing");
  return { signedXml, signer };
}
