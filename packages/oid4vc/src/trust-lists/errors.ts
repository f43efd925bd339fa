/** Why a trusted list (ETSI TS 119 612 XML or TS 119 602 LoTE) was refused. */
export type TrustListErrorCode =
  /** Not well-formed, not the expected root element, or a required field is missing or invalid. */
  | "MalformedList"
  /** The signature or a reference digest does not verify, or the list carries no signature. */
  | "BadSignature"
  /** The signer certificate is none of the anchors the caller expects, or is outside its validity. */
  | "UnknownSigner"
  /** NextUpdate has passed (or the list has no NextUpdate: a closed list). */
  | "ListExpired"
  /** The signature does not cover the whole list (wrong reference, extra signatures, signature wrapping). */
  | "WrongReference"
  /** A signature, digest or canonicalisation algorithm outside what this layer accepts. */
  | "UnsupportedAlgorithm";

export class TrustListError extends Error {
  constructor(
    readonly code: TrustListErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = "TrustListError";
  }
}
