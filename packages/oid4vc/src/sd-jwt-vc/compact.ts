/** The parts of a compact SD-JWT or SD-JWT+KB (RFC 9901 §4): `<jwt>~<d1>~...~<dn>~[<kb-jwt>]`. */
export interface SdJwtParts {
  issuerJwt: string;
  disclosures: string[];
  /** The KB-JWT, if the token is an SD-JWT+KB. */
  kbJwt: string | undefined;
  /** Everything up to and including the last `~`: the input of `sd_hash`. */
  sdJwt: string;
}

/** Splits a compact SD-JWT; throws `TypeError` when it has no `~` or contains an empty disclosure. */
export function splitSdJwt(token: string): SdJwtParts {
  const lastTilde = token.lastIndexOf("~");
  if (lastTilde < 0) throw new TypeError("an SD-JWT must contain at least one '~'");
  const sdJwt = token.slice(0, lastTilde + 1);
  const tail = token.slice(lastTilde + 1);
  const parts = sdJwt.split("~");
  parts.pop(); // the empty string after the final '~'
  const [issuerJwt, ...disclosures] = parts;
  if (!issuerJwt) throw new TypeError("the SD-JWT has no issuer-signed JWT");
  if (disclosures.some((d) => d.length === 0)) throw new TypeError("the SD-JWT contains an empty disclosure");
  return { issuerJwt, disclosures, kbJwt: tail.length > 0 ? tail : undefined, sdJwt };
}
