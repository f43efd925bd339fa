/**
 * Wallet-side helpers, for tests, benchmarks and conformance tooling. A verifier must use
 * `verifySdJwtVc`: nothing here checks a signature.
 */
import type { CryptoKey } from "jose";
import { type DecodedJwt, decodeJwtUnverified, type JwsHeader } from "../jose/jws";
import { type ClaimPath, claimPathIsPrefix, claimPathMatches } from "./claim-path";
import { splitSdJwt } from "./compact";
import { type Disclosure, parseDisclosure } from "./disclosure";
import { createKbJwt } from "./key-binding";
import { type DisclosedClaim, unpackClaims } from "./unpack-claims";

export interface DecodedSdJwt {
  header: JwsHeader;
  /** The issuer-signed payload as is (with `_sd` digests). */
  payload: Record<string, unknown>;
  /** The payload with every included disclosure applied. */
  claims: Record<string, unknown>;
  disclosures: Disclosure[];
  /** Each disclosure with its path in `claims`. */
  disclosed: DisclosedClaim[];
  kbJwt?: DecodedJwt;
  /** `<issuer-jwt>~<disclosures>~`, without the KB-JWT. */
  sdJwt: string;
}

/** Decodes an SD-JWT(+KB) without verifying anything but its structure. Throws on malformed input. */
export function decodeSdJwt(token: string): DecodedSdJwt {
  const parts = splitSdJwt(token);
  const { header, payload } = decodeJwtUnverified(parts.issuerJwt);
  const disclosures = parts.disclosures.map(parseDisclosure);
  const { claims, disclosed } = unpackClaims(payload, disclosures);
  const decoded: DecodedSdJwt = { header, payload, claims, disclosures, disclosed, sdJwt: parts.sdJwt };
  if (parts.kbJwt !== undefined) decoded.kbJwt = decodeJwtUnverified(parts.kbJwt);
  return decoded;
}

export interface PresentSdJwtVcOptions {
  /**
   * Claims to disclose, as paths in the fully disclosed claims (see `decodeSdJwt(...).claims`), or
   * "all". Disclosing a claim also discloses the disclosures it sits in and those nested inside it.
   */
  disclose: ReadonlyArray<ClaimPath> | "all";
  /** Adds a KB-JWT signed with the holder key. */
  kb?: { privateKey: CryptoKey; aud: string; nonce: string; iat: number };
}

/** Builds a presentation `<issuer-jwt>~<selected disclosures>~[<kb-jwt>]` from an issued SD-JWT VC. */
export async function presentSdJwtVc(token: string, options: PresentSdJwtVcOptions): Promise<string> {
  const decoded = decodeSdJwt(token);
  const { disclose } = options;
  const selected =
    disclose === "all"
      ? decoded.disclosed
      : decoded.disclosed.filter(({ path }) =>
          disclose.some(
            (wanted) =>
              claimPathIsPrefix(wanted, path) || // the claim itself or something inside it
              (path.length < wanted.length && claimPathMatches(wanted.slice(0, path.length), path)), // an ancestor
          ),
        );
  const issuerJwt = decoded.sdJwt.slice(0, decoded.sdJwt.indexOf("~"));
  // Keep the issuer's order of disclosures (the order carries no meaning, but it keeps output stable).
  const chosen = new Set(selected.map((s) => s.disclosure.encoded));
  let sdJwt = `${issuerJwt}~`;
  for (const d of decoded.disclosures) if (chosen.has(d.encoded)) sdJwt += `${d.encoded}~`;
  if (!options.kb) return sdJwt;
  const kbJwt = await createKbJwt({ ...options.kb, sdJwt });
  return `${sdJwt}${kbJwt}`;
}
