import { createHash } from "node:crypto";
import type { CryptoKey } from "jose";
import { z } from "zod";
import { signEs256Jwt } from "../jose/jws";
import { ZNumericDate } from "../jose/time";

/** Header `typ` of a Key Binding JWT (RFC 9901 §4.3). */
export const KB_JWT_TYP = "kb+jwt";

const sha256OfAscii = (value: string) => createHash("sha256").update(value, "ascii").digest("base64url");

/** `sd_hash` (RFC 9901 §4.3.1): base64url(SHA-256(ASCII(<issuer-jwt>~<disclosures>~))). */
export function computeSdHash(sdJwt: string): string {
  return sha256OfAscii(sdJwt);
}

export const ZKbJwtPayload = z.looseObject({
  iat: ZNumericDate,
  aud: z.string().min(1),
  nonce: z.string().min(1),
  sd_hash: z.string().min(1),
  // OpenID4VP 1.0 Appendix B.3.3: the transaction data the holder authorised with this presentation.
  transaction_data_hashes: z.array(z.string().min(1)).min(1).optional(),
  transaction_data_hashes_alg: z.string().min(1).optional(),
});
export type TKbJwtPayload = z.infer<typeof ZKbJwtPayload>;

/**
 * The hash a KB-JWT's `transaction_data_hashes` carries for one `transaction_data` string of the request:
 * SHA-256 (the default `sha-256`) over the string as sent, not base64url-decoded, base64url.
 */
export function transactionDataHash(encoded: string): string {
  return sha256OfAscii(encoded);
}

export interface CreateKbJwtInput {
  /** The holder's private key (the one whose public part is in `cnf.jwk`). */
  privateKey: CryptoKey;
  /** The presented SD-JWT up to and including the last `~`. */
  sdJwt: string;
  aud: string;
  nonce: string;
  /** Epoch seconds. */
  iat: number;
}

/** Creates a KB-JWT (wallet side). */
export function createKbJwt(input: CreateKbJwtInput): Promise<string> {
  return signEs256Jwt(
    { alg: "ES256", typ: KB_JWT_TYP },
    { iat: input.iat, aud: input.aud, nonce: input.nonce, sd_hash: computeSdHash(input.sdJwt) },
    input.privateKey,
  );
}
